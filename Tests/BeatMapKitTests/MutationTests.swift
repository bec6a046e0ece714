// SPDX-License-Identifier: GPL-3.0-or-later

import BeatMapKit
import Foundation
import Testing

/// A small deterministic generator (SplitMix64), so a failing mutation can be replayed from its seed.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

@Suite("Random mutations of valid maps")
struct MutationTests {
    static let baseBeats: [Double] = {
        let first: [Double] = (0..<16).map { (k: Int) -> Double in 0.5 + Double(k) * 0.5 }
        let second: [Double] = (0..<18).map { (k: Int) -> Double in 8.5 + Double(k) * 0.4 }
        return first + second
    }()

    static let base: [UInt8] = {
        let map = BeatMap(
            audio: AudioReference(path: "a.ogg", duration: 16, sampleRate: 44100),
            tempo: [TempoSegment(time: 0.5, bpm: 120, beatsPerBar: 4), TempoSegment(time: 8.5, bpm: 150)],
            beats: baseBeats,
            analysis: .object(JSONObject([("tool", .string("t"))])))
        let text = (try? BeatMapCodec.encode(map)) ?? ""
        return Array(text.utf8)
    }()

    static let tokens: [String] = [
        "NaN", "-Infinity", "1e999", "-0", "null", "\"", "{", "}", "[", "]", ",", ":", "\\u", "\u{0}", "9999999",
        "-5", "0.0000001", "\"bpm\": 0", "\"version\": 2", "true", "[]", "{}",
    ]

    func mutate(_ bytes: [UInt8], using random: inout SeededGenerator) -> [UInt8] {
        var bytes = bytes
        for _ in 0..<Int.random(in: 1...4, using: &random) {
            guard !bytes.isEmpty else { break }
            let position = Int.random(in: 0..<bytes.count, using: &random)
            switch Int.random(in: 0..<5, using: &random) {
            case 0: bytes[position] = UInt8.random(in: 0...255, using: &random)
            case 1: bytes.remove(at: position)
            case 2:
                bytes.insert(
                    contentsOf: Array(Self.tokens.randomElement(using: &random)?.utf8 ?? "x".utf8), at: position)
            case 3:
                // Swap two lines (reorders beats, segments or members).
                let lines = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).map(Array.init)
                var shuffled = lines
                let a = Int.random(in: 0..<lines.count, using: &random)
                let b = Int.random(in: 0..<lines.count, using: &random)
                shuffled.swapAt(a, b)
                bytes = Array(shuffled.joined(separator: [UInt8(ascii: "\n")]))
            default: bytes = Array(bytes.prefix(position))
            }
        }
        return bytes
    }

    @Test("2,000 mutated maps never crash, and every finding is a known rule inside the file")
    func mutations() {
        var random = SeededGenerator(state: 20_261_121)
        let validator = Validator()
        let known = Set(RuleCatalog.ids)
        var findingsSeen = 0
        for _ in 0..<2_000 {
            let bytes = mutate(Self.base, using: &random)
            let report = validator.validate(bytes: bytes, path: "m.beatmap.json")
            let lines = bytes.count { $0 == UInt8(ascii: "\n") } + 1
            for finding in report.findings {
                #expect(known.contains(finding.ruleID))
                #expect(finding.location.line >= 1)
                #expect(finding.location.line <= lines)
                #expect(!finding.message.isEmpty)
            }
            findingsSeen += report.findings.count
            let single = ValidationReport(files: [report])
            for name in Reporters.all.map({ $0.identifier }) {
                guard let reporter = Reporters.reporter(named: name) else {
                    Issue.record("no reporter named \(name)")
                    continue
                }
                let output: String = reporter.generate(single)
                #expect(!output.isEmpty)
            }
        }
        #expect(findingsSeen > 1_000, "mutations should mostly break the map")
    }

    @Test("the unmutated base map is valid")
    func baseIsValid() {
        #expect(Validator().validate(bytes: Self.base, path: "m").findings.isEmpty)
    }
}
