// SPDX-License-Identifier: GPL-3.0-or-later
// fuzz-modules: BeatMapKit
//
// Fuzz target: map-file bytes → reader → validator → every reporter, plus the canonical writer.
// Besides crashes (Swift traps, AddressSanitizer reports), it checks invariants and traps when one
// fails: JSON-based reports are strict JSON, every finding points inside the file, and the canonical
// text of a map decodes again and is its own canonical text (the formatter's fixed point).

import BeatMapKit
import Foundation

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzMapReader(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    // The last byte picks settings, so that one corpus explores several configurations.
    let selector = bytes.last ?? 0
    var configuration = ValidationConfiguration()
    if selector & 1 != 0 { configuration.subdivisions = [1, 2, 3, 4] }
    if selector & 2 != 0 { configuration.hitWindow = 0.3 }
    if selector & 4 != 0 { configuration.gridTolerance = 0 }
    let audio: AudioFacts? =
        selector & 8 != 0 ? AudioFacts(duration: 8, sampleRate: 44_100, sha256: String(repeating: "ab", count: 32)) : nil
    let validator = Validator(configuration: configuration)
    let file = validator.validate(bytes: bytes, path: "fuzz.beatmap.json", audio: audio)
    let lines = bytes.count { $0 == UInt8(ascii: "\n") } + 1
    for finding in file.findings {
        require(finding.location.line >= 1 && finding.location.line <= lines, "finding outside the file: \(finding)")
        require(finding.location.column >= 1, "finding before a line's start: \(finding)")
    }
    // One reporter per input (bits 4–6 of the selector) keeps executions fast; all are exercised.
    let report = ValidationReport(files: [file])
    let type = Reporters.all[Int(selector >> 4) % Reporters.all.count]
    guard let reporter = Reporters.reporter(named: type.identifier, strict: selector & 128 != 0) else {
        fail("no reporter named \(type.identifier)")
    }
    let text = reporter.generate(report)
    require(text.hasSuffix("\n"), "\(type.identifier) output does not end with a newline")
    if type.identifier == "json" || type.identifier == "sarif" {
        do {
            _ = try JSONSerialization.jsonObject(with: Data(text.utf8))
        } catch {
            fail("\(type.identifier) output is not JSON: \(error)\n\(text)")
        }
    }
    if case .map = BeatMapCodec.decode(bytes), let canonical = try? BeatMapFormatter.canonicalText(of: bytes, path: "fuzz") {
        guard case .map = BeatMapCodec.decode(Array(canonical.utf8)) else {
            fail("canonical text does not decode:\n\(canonical)")
        }
        let again = try? BeatMapFormatter.canonicalText(of: Array(canonical.utf8), path: "fuzz")
        require(again == canonical, "canonical text is not a fixed point:\n\(canonical)\n---\n\(again ?? "nil")")
    }
    return 0
}

/// Stops with `message` (kept in optimised builds, unlike `precondition`'s) when `condition` fails.
func require(_ condition: Bool, _ message: @autoclosure () -> String = "invariant failed", line: UInt = #line) {
    if !condition { fail(message(), line: line) }
}

/// Stops with `message`, which libFuzzer shows with the crashing input.
func fail(_ message: String, line: UInt = #line) -> Never {
    fatalError(message, line: line)
}
