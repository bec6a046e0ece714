// SPDX-License-Identifier: GPL-3.0-or-later

import BeatMapKit
import Foundation
import Testing

/// CI without the audio (Git LFS not pulled): a missing audio file is visible in every reporter, can be
/// made an error, and checks that did not run are never reported as passed. And the validator's noise:
/// one `gap` per run of gaps, and a beat past the end only `out-of-duration`.
@Suite("CI without the audio, and validator noise")
struct CIWithoutAudioTests {
    /// Reads every audio file as 4 s at 44.1 kHz, with onsets only if `onsets`.
    struct FixedInspector: AudioInspector {
        var onsets: [Double]?
        func inspect(_ url: URL, computeHash: Bool) throws -> AudioFacts {
            AudioFacts(
                duration: 4, sampleRate: 44_100, onsets: onsets, onsetStrengths: onsets.map { $0.map { _ in 1 } })
        }
    }

    static let map = """
        {
          "version": 1,
          "audio": {
            "path": "audio/song.ogg",
            "duration": 4.0
          },
          "beats": [0.5, 1.0, 1.5, 2.0]
        }
        """

    /// The report for ``map`` in a new folder (with its audio file when `withAudio`).
    static func report(
        withAudio: Bool, configuration: ValidationConfiguration = ValidationConfiguration(),
        inspector: any AudioInspector = FixedInspector()
    ) throws -> ValidationReport {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("ci-audio-\(UUID().uuidString)")
        try FileManager.default.createDirectory(
            at: folder.appendingPathComponent("audio"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("song.beatmap.json")
        try Data(map.utf8).write(to: url)
        if withAudio { try Data("not read".utf8).write(to: folder.appendingPathComponent("audio/song.ogg")) }
        let validator = Validator(configuration: configuration, audioInspector: inspector)
        return ValidationReport(files: [validator.validateFile(at: url, path: "song.beatmap.json")])
    }

    static func output(_ format: String, _ report: ValidationReport, strict: Bool = false) throws -> String {
        let options = ReporterOptions(strict: strict, remedyHint: { $0 == .detectOnsets ? " [ONSETS]" : "" })
        return try #require(Reporters.reporter(named: format, options: options)).generate(report)
    }

    @Test("a missing audio file is a note in text, a notice in github, a note in SARIF, an entry in JSON")
    func missingAudioEverywhere() throws {
        let report = try Self.report(withAudio: false)
        let file = try #require(report.files.first)
        #expect(file.findings.isEmpty)
        #expect(
            file.missingAudio
                == MissingAudio(path: "audio/song.ogg", location: SourceLocation(line: 4, column: 13), required: false))
        #expect(!report.fails(strict: true), "a missing file is not a finding unless audio is required")

        let text = try Self.output("text", report)
        #expect(text.contains("song.beatmap.json:1:1: note: audio file audio/song.ogg not found; audio checks skipped"))
        #expect(text.hasSuffix("0 errors, 0 warnings; 1 map's audio not found (audio checks skipped).\n"))

        let github = try Self.output("github", report)
        #expect(
            github.hasPrefix(
                "::notice file=song.beatmap.json,line=4,col=13,title=beatmap [audio]::audio file audio/song.ogg not found; audio checks skipped\n"
            ))

        let sarif = try Self.output("sarif", report)
        let root = try #require(try JSONSerialization.jsonObject(with: Data(sarif.utf8)) as? [String: Any])
        let runs = try #require(root["runs"] as? [[String: Any]])
        let results = try #require(runs.first?["results"] as? [[String: Any]])
        try #require(results.count == 1)
        #expect(results[0]["level"] as? String == "note")
        #expect(results[0]["ruleId"] as? String == "audio-mismatch")
        #expect((results[0]["message"] as? [String: Any])?["text"] as? String == file.missingAudio?.message)

        let json = try Self.output("json", report)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        #expect((object["summary"] as? [String: Any])?["missingAudio"] as? Int == 1)
        let files = try #require(object["files"] as? [[String: Any]])
        let missing = try #require(files.first?["missingAudio"] as? [String: Any])
        #expect(missing["path"] as? String == "audio/song.ogg")
        #expect(missing["line"] as? Int == 4)
        #expect(missing["required"] as? Bool == false)
        let skipped = try #require(files.first?["skipped"] as? [[String: Any]])
        #expect(
            skipped.compactMap { $0["rule"] as? String } == [
                "audio-mismatch", "audio-misaligned", "audio-offbeat", "audio-metric-level", "bar-phase",
            ])
        #expect(skipped.first?["reason"] as? String == "audio file audio/song.ogg not found")
    }

    @Test("JUnit skips the audio rules of a map whose audio is missing instead of passing them")
    func junitMissingAudio() throws {
        let junit = try Self.output("junit", try Self.report(withAudio: false))
        #expect(junit.contains("tests=\"15\" failures=\"0\" errors=\"0\" skipped=\"5\""))
        #expect(
            junit.contains(
                "<testcase name=\"audio-mismatch\" classname=\"song.beatmap.json\">\n      <skipped message=\"audio file audio/song.ogg not found\"/>\n    </testcase>"
            ))
        #expect(junit.contains("<testcase name=\"off-grid\" classname=\"song.beatmap.json\"/>"), "rules that ran pass")
    }

    @Test("without onset detection the onset rules are skipped, with the front end's hint; with it they pass")
    func junitWithoutOnsets() throws {
        let report = try Self.report(withAudio: true)
        let file = try #require(report.files.first)
        #expect(file.missingAudio == nil)
        #expect(
            file.skipped.map(\.ruleID) == ["audio-misaligned", "audio-offbeat", "audio-metric-level", "bar-phase"])
        #expect(file.skipped.allSatisfy { $0.reason == .onsetsNotDetected })
        let junit = try Self.output("junit", report)
        #expect(junit.contains("<testcase name=\"audio-mismatch\" classname=\"song.beatmap.json\"/>"))
        #expect(
            junit.contains(
                "<testcase name=\"audio-misaligned\" classname=\"song.beatmap.json\">\n      <skipped message=\"the audio&apos;s onsets were not detected [ONSETS]\"/>"
            ))

        let detected = try Self.report(withAudio: true, inspector: FixedInspector(onsets: [0.5, 1.0, 1.5, 2.0]))
        // Onsets without the analyzer's bar evidence: only bar-phase is left out.
        #expect(try #require(detected.files.first).skipped.map(\.ruleID) == ["bar-phase"])
        #expect(try Self.output("junit", detected).contains("skipped=\"1\""))
    }

    @Test("a rule turned off, or every rule of an unreadable map, is skipped, not passed")
    func skippedRules() throws {
        var configuration = ValidationConfiguration()
        configuration.disabledRules = ["gap"]
        let report = try Self.report(withAudio: true, configuration: configuration)
        #expect(try #require(report.files.first).skipReason(of: "gap") == .disabled)

        let broken = Validator().validate(bytes: Array("{ nope".utf8), path: "b.beatmap.json")
        #expect(broken.findings.map(\.ruleID) == ["invalid-json"])
        #expect(broken.skipped.count == RuleCatalog.ids.count - 1)
        #expect(broken.skipped.allSatisfy { $0.reason == .unreadableMap })
        let junit = try Self.output("junit", ValidationReport(files: [broken]))
        #expect(junit.contains("failures=\"1\" errors=\"0\" skipped=\"14\""))
    }

    @Test("with the audio required, a missing file (or a map naming none) is an audio-mismatch error")
    func requireAudio() throws {
        var configuration = ValidationConfiguration()
        configuration.requireAudio = true
        let report = try Self.report(withAudio: false, configuration: configuration)
        let file = try #require(report.files.first)
        #expect(file.findings.map(\.ruleID) == ["audio-mismatch"])
        #expect(file.findings.first?.severity == .error)
        #expect(file.findings.first?.location == SourceLocation(line: 4, column: 13))
        #expect(file.findings.first?.message == "audio file audio/song.ogg not found, but the audio is required")
        #expect(file.missingAudio?.required == true)
        #expect(!file.notes.contains { $0.contains("not found") }, "the error says it; no note besides")
        #expect(report.fails(strict: false))
        let github = try Self.output("github", report)
        #expect(github.hasPrefix("::error file=song.beatmap.json,line=4,col=13,title=beatmap [audio-mismatch]::"))
        #expect(!github.contains("::notice"))
        let junit = try Self.output("junit", report)
        #expect(
            junit.contains(
                "<failure type=\"error\" message=\"audio file audio/song.ogg not found, but the audio is required\">"))

        let unnamed = Validator(configuration: configuration, audioInspector: FixedInspector()).validate(
            bytes: Array("{ \"version\": 1, \"audio\": { \"duration\": 4 }, \"beats\": [0.5, 1.0] }".utf8),
            path: "m.beatmap.json", mapURL: URL(fileURLWithPath: "/tmp/m.beatmap.json"))
        #expect(unnamed.findings.map(\.ruleID) == ["audio-mismatch"])
        #expect(unnamed.findings.first?.message.contains("names no audio file") == true)

        var file2 = ValidationConfiguration()
        let config = FileManager.default.temporaryDirectory.appendingPathComponent("req-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: config) }
        try Data("{ \"requireAudio\": true }".utf8).write(to: config)
        try file2.apply(configurationFileAt: config)
        #expect(file2.requireAudio)
    }

    @Test("a half-time section is one gap finding, not one per interval")
    func gapRuns() throws {
        // 120 BPM; beats 10…40 every second beat (30 gaps in a row), then back to every beat.
        var beats = (0..<10).map { 0.5 + Double($0) * 0.5 }
        beats += (1...30).map { beats[9] + Double($0) }
        let last = beats[beats.count - 1]
        beats += (1...8).map { last + Double($0) * 0.5 }
        let text =
            "{ \"version\": 1, \"audio\": { \"duration\": 60 }, \"tempo\": [ { \"time\": 0.5, \"bpm\": 120 } ], \"beats\": "
            + "[\(beats.map { String($0) }.joined(separator: ", "))] }"
        let report = Validator().validate(bytes: Array(text.utf8), path: "m.beatmap.json")
        let gaps = report.findings.filter { $0.ruleID == "gap" }
        try #require(gaps.count == 1)
        #expect(gaps[0].beatIndex == 10)
        #expect(gaps[0].count == 1)
        #expect(
            gaps[0].message.hasPrefix(
                "30 gaps in a row of 2.00 beats each (30.0 s in all) between beat 10 at 5.0 s and beat 40"))
        #expect(report.findings.count == 1)
    }

    @Test("a beat past the end is out-of-duration only: not also off-grid and gap")
    func pastTheEnd() {
        let text = """
            { "version": 1, "audio": { "duration": 4.0 }, "tempo": [ { "time": 0.5, "bpm": 120 } ],
              "beats": [0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 3.5, 4.0, 6.27] }
            """
        let report = Validator().validate(bytes: Array(text.utf8), path: "m.beatmap.json")
        #expect(report.findings.map(\.ruleID) == ["out-of-duration"])
        #expect(report.findings.first?.beatIndex == 8)
        let before = """
            { "version": 1, "audio": { "duration": 4.0 }, "tempo": [ { "time": 0.5, "bpm": 120 } ],
              "beats": [-1.23, 0.5, 1.0, 1.5] }
            """
        let early = Validator().validate(bytes: Array(before.utf8), path: "m.beatmap.json")
        #expect(early.findings.map(\.ruleID) == ["out-of-duration"])
    }
}
