// SPDX-License-Identifier: GPL-3.0-or-later

import BeatMapKit
import Foundation
import Testing

/// Replays the map fuzz target's committed seeds and every input that once made it fail
/// (tools/fuzz/regressions/map/), checking the same invariants as tools/fuzz/targets/map.swift.
@Suite("Fuzz regressions: map reader and validator")
struct FuzzRegressionTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    static func inputs(in folder: String) -> [URL] {
        let url = root.appendingPathComponent(folder)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []
        return names.filter { !$0.hasPrefix("README") }.sorted().map { url.appendingPathComponent($0) }
    }

    static let regressions = inputs(in: "tools/fuzz/regressions/map")
    static let seeds = inputs(in: "tools/fuzz/corpus/map")

    /// Every reporter on the report of `bytes`, in each configuration the fuzz target uses.
    static func checkInvariants(_ bytes: [UInt8], name: String) throws {
        let lines = bytes.count { $0 == UInt8(ascii: "\n") } + 1
        for selector in [UInt8(0), 15] {
            var configuration = ValidationConfiguration()
            if selector & 1 != 0 { configuration.subdivisions = [1, 2, 3, 4] }
            if selector & 2 != 0 { configuration.hitWindow = 0.3 }
            if selector & 4 != 0 { configuration.gridTolerance = 0 }
            let audio = selector & 8 != 0 ? AudioFacts(duration: 8, sampleRate: 44_100) : nil
            let file = Validator(configuration: configuration).validate(bytes: bytes, path: name, audio: audio)
            for finding in file.findings {
                #expect((1...lines).contains(finding.location.line), "\(name): \(finding)")
                #expect(finding.location.column >= 1, "\(name): \(finding)")
            }
            let report = ValidationReport(files: [file])
            for type in Reporters.all {
                let text = try #require(Reporters.reporter(named: type.identifier)).generate(report)
                #expect(text.hasSuffix("\n"))
                if type.identifier == "json" || type.identifier == "sarif" {
                    #expect(throws: Never.self, "\(name): \(type.identifier) output is not JSON") {
                        _ = try JSONSerialization.jsonObject(with: Data(text.utf8))
                    }
                }
            }
        }
        if case .map = BeatMapCodec.decode(bytes),
            let canonical = try? BeatMapFormatter.canonicalText(of: bytes, path: name)
        {
            let again = try BeatMapFormatter.canonicalText(of: Array(canonical.utf8), path: name)
            #expect(again == canonical, "\(name): canonical text is not a fixed point")
        }
    }

    @Test("the committed seeds and crash inputs exist")
    func corpusPresent() {
        #expect(Self.seeds.count >= 10)
        #expect(!Self.regressions.isEmpty)
    }

    @Test("every seed and crash input keeps the fuzz target's invariants", arguments: regressions + seeds)
    func invariants(_ url: URL) throws {
        try Self.checkInvariants(Array(try Data(contentsOf: url)), name: url.lastPathComponent)
    }

    @Test("a duration that rounds to 0 µs is a schema error, not a map whose canonical text is invalid")
    func durationBelowResolution() throws {
        let bytes = Array(#"{"version":1,"audio":{"duration":1e-300},"beats":[1e-300]}"#.utf8)
        guard case .schemaViolations(let issues) = BeatMapCodec.decode(bytes) else {
            Issue.record("decoded as a map")
            return
        }
        #expect(
            issues.map(\.message) == [
                #""audio.duration" must be a finite number of seconds greater than 0 (at least 0.000001)"#
            ])
        let map = BeatMap(audio: AudioReference(duration: 1e-9), beats: [])
        #expect(throws: BeatMapError.invalidValue(field: "audio.duration", reason: "must be at least 0.000001 seconds"))
        {
            try BeatMapCodec.encode(map)
        }
    }

    @Test("a tempo of 1e300 BPM is an invalid-tempo finding, not a crash in the message")
    func hugeTempo() {
        let text = #"{"version":1,"audio":{"duration":8},"tempo":[{"time":0,"bpm":1e300}],"beats":[0.5]}"#
        let report = Validator().validate(bytes: Array(text.utf8), path: "huge.beatmap.json")
        let messages = report.findings.filter { $0.ruleID == "invalid-tempo" }.map(\.message)
        #expect(messages == ["tempo segment 1 has 1e+300 BPM, outside 20…400 BPM"])
    }
}
