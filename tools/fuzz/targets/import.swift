// SPDX-License-Identifier: GPL-3.0-or-later
// fuzz-modules: BeatMapKit
//
// Fuzz target: bytes → a file of one of the fourteen import formats → Interchange.importMap (as
// `beatmap import` calls it, without writing). The last input byte is a selector, not file content: it
// picks the format, grid or note beats, and a --duration; for Beat Saber, whether the file is `Info.dat`
// or `AudioData.dat` (an Info.dat input is split at its first NUL byte: the bytes after it become the
// folder's AudioData.dat). Invariants (trap when one fails): an import either throws an InterchangeError
// with a message, or returns a map whose beats are finite and whose text decodes as a valid map and
// re-encodes to the same text. libFuzzer's -timeout and -rss_limit_mb catch hangs and runaway memory.

import BeatMapKit
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The formats, in selector order.
private let formats = InterchangeFormat.allCases

/// A per-process scratch folder in shared memory when available (faster than disk). Beat Saber reads a
/// folder, so every file lives in a folder of its own.
private let scratchFolder: URL = {
    var isDirectory: ObjCBool = false
    let base =
        FileManager.default.fileExists(atPath: "/dev/shm", isDirectory: &isDirectory) && isDirectory.boolValue
        ? "/dev/shm" : NSTemporaryDirectory()
    let folder = URL(fileURLWithPath: base).appendingPathComponent("beatmap-fuzz-import-\(getpid())")
    do {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    } catch {
        fail("cannot create \(folder.path): \(error)")
    }
    return folder
}()

/// Durations passed as `--duration` (nil: none, so the importer estimates or refuses).
private let durations: [TimeInterval?] = [nil, 30, 0.000_2]

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzImporter(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 0 else { return 0 }
    let selector = Int(data[size - 1])
    let content = Data(bytes: data, count: size - 1)
    let format = formats[selector % formats.count]
    let variant = selector / formats.count  // 0…25
    var options = ImportOptions(beats: variant & 1 == 0 ? .grid : .notes)
    options.duration = durations[(variant >> 1) % durations.count]

    var files: [(name: String, bytes: Data)] = []
    switch format {
    case .beatsaber:
        if variant & 1 == 0, let split = content.firstIndex(of: 0) {
            files = [
                (BeatSaberFormat.infoFileName, content[..<split]),
                (BeatSaberFormat.audioDataFileName, content[(split + 1)...]),
            ]
        } else {
            files = [(variant & 1 == 0 ? BeatSaberFormat.infoFileName : BeatSaberFormat.audioDataFileName, content)]
        }
    case .swift, .sm, .ssc, .osu, .jams, .midi, .chart, .csharp, .gdscript:
        files = [("fuzz.\(format.fileExtension)", content)]
    default:  // audacity, sonic-visualiser, csv, txt: extensions they share
        files = [("fuzz-\(format.rawValue).\(format.fileExtension)", content)]
    }
    let urls = files.map { scratchFolder.appendingPathComponent($0.name) }
    for (url, file) in zip(urls, files) {
        guard (try? file.bytes.write(to: url)) != nil else { fail("cannot write \(url.path)") }
    }
    defer { for url in urls { unlink(url.path) } }

    let result: Interchange.ImportResult
    do {
        result = try Interchange.importMap(
            from: urls[0], format: format, options: options, to: nil, workingFolder: scratchFolder, overwrite: false)
    } catch {
        // The typed throw guarantees an InterchangeError; it must say what is wrong.
        require(!error.message.isEmpty, "\(format.rawValue): an error without a message: \(error)")
        require(!(error.errorDescription ?? "").isEmpty, "\(format.rawValue): an empty error description")
        if let line = error.line { require(line >= 1, "\(format.rawValue): error at line \(line): \(error)") }
        return 0
    }
    let map = result.imported.map
    require(map.beats.allSatisfy(\.isFinite), "\(format.rawValue): imported a non-finite beat")
    require(map.audio.duration.isFinite && map.audio.duration > 0, "\(format.rawValue): duration \(map.audio.duration)")
    guard case .map(let decoded, _) = BeatMapCodec.decode(Array(result.text.utf8)) else {
        fail("\(format.rawValue): the imported map's text is not a valid map:\n\(result.text)")
    }
    require(decoded.beats.allSatisfy(\.isFinite), "\(format.rawValue): the decoded map has a non-finite beat")
    require(decoded.beats.count == map.beats.count, "\(format.rawValue): beat count changed")
    let again: String
    do {
        again = try BeatMapCodec.encode(decoded)
    } catch {
        fail("\(format.rawValue): the decoded map does not encode: \(error)\n\(result.text)")
    }
    require(again == result.text, "\(format.rawValue): not a fixed point:\n\(result.text)\n---\n\(again)")
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
