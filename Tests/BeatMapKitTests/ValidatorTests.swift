// SPDX-License-Identifier: GPL-3.0-or-later

import BeatMapKit
import Foundation
import Testing

@Suite("Validator")
struct ValidatorTests {
    func validate(_ text: String, configuration: ValidationConfiguration = ValidationConfiguration()) -> FileReport {
        Validator(configuration: configuration).validate(bytes: Array(text.utf8), path: "m.beatmap.json")
    }

    @Test("findings point at the offending element's line and column")
    func locations() throws {
        let text = """
            {
              "version": 1,
              "audio": { "duration": 4.0 },
              "tempo": [ { "time": 0.5, "bpm": 120 } ],
              "beats": [
                0.5,
                1.0,
                1.52,
                2.0
              ]
            }
            """
        let report = validate(text)
        try #require(report.findings.count == 1)
        let finding = report.findings[0]
        #expect(finding.ruleID == "off-grid")
        #expect(finding.beatIndex == 2)
        #expect(finding.time == 1.52)
        #expect(finding.location == SourceLocation(line: 8, column: 5))
        #expect(finding.message.contains("+20.0 ms"))
        #expect(finding.message.contains("1.5 s"))
    }

    @Test("invalid JSON gives the line and column of the problem")
    func syntaxLocation() {
        let report = validate("{\n  \"version\": 1,\n  \"beats\": [1, 2,]\n}")
        #expect(report.findings.map(\.ruleID) == ["invalid-json"])
        #expect(report.findings[0].location == SourceLocation(line: 3, column: 18))
    }

    @Test("schema problems are all reported, each where it is")
    func schemaCollectsAll() {
        let report = validate("{ \"version\": 3,\n \"audio\": { \"duration\": \"long\" },\n \"beats\": {} }")
        #expect(report.findings.allSatisfy { $0.ruleID == "schema" })
        #expect(report.findings.count == 3)
        #expect(report.findings.map(\.location.line) == [1, 2, 3])
    }

    @Test("without a tempo map the validator infers one and says which")
    func inferredTempo() throws {
        let report = validate(
            "{ \"version\": 1, \"audio\": { \"duration\": 10 }, \"beats\": [1.0, 1.5, 2.0, 2.5, 3.0, 3.5] }")
        #expect(report.findings.isEmpty)
        try #require(report.notes.count == 1)
        #expect(report.notes[0].contains("120 BPM"))
        #expect(report.notes[0].contains("inferred"))
    }

    @Test("a beat on a segment change may follow either segment's grid")
    func segmentBoundary() {
        let text = """
            { "version": 1, "audio": { "duration": 10 },
              "tempo": [ { "time": 0.0, "bpm": 120 }, { "time": 2.0, "bpm": 90 } ],
              "beats": [0.0, 0.5, 1.0, 1.5, 2.0, 2.6666667, 3.3333333, 4.0] }
            """
        #expect(validate(text).findings.isEmpty)
    }

    @Test("hit-window overlap depends on the hit window")
    func assistWindow() {
        let text = "{ \"version\": 1, \"audio\": { \"duration\": 10 }, \"beats\": [1.0, 1.4, 1.8, 2.2] }"
        #expect(validate(text).findings.isEmpty)
        var assist = ValidationConfiguration()
        assist.hitWindow = 0.3
        let findings = validate(text, configuration: assist).findings
        #expect(findings.map(\.ruleID) == ["hit-window-overlap"])
        #expect(findings.first?.beatIndex == 1)
        #expect(findings.first?.message.contains("4 beats from 1 to 4") == true)
    }

    @Test("a config file sets severities and tolerances; unknown settings are refused")
    func configurationFile() throws {
        try Self.withConfigurationFile { folder, file in
            try Data(
                "{ \"rules\": { \"gap\": \"error\", \"hit-window-overlap\": \"off\" }, \"toleranceMs\": 8, \"subdivisions\": [1, 2] }"
                    .utf8
            )
            .write(to: file)
            var configuration = ValidationConfiguration()
            try configuration.apply(configurationFileAt: file)
            #expect(configuration.severities["gap"] == .error)
            #expect(configuration.disabledRules == ["hit-window-overlap"])
            #expect(configuration.gridTolerance == 0.008)
            #expect(configuration.subdivisions == [1, 2])
            let sub = folder.appendingPathComponent("a/b")
            try FileManager.default.createDirectory(at: sub, withIntermediateDirectories: true)
            #expect(
                ValidationConfiguration.findConfigurationFile(from: sub)?.standardizedFileURL.path
                    == file.standardizedFileURL.path)

            try Data("{ \"tolerance\": 8 }".utf8).write(to: file)
            var other = ValidationConfiguration()
            #expect(throws: ConfigurationError.self) { try other.apply(configurationFileAt: file) }
            try Data("{ \"rules\": { \"no-such-rule\": \"off\" } }".utf8).write(to: file)
            #expect(throws: ConfigurationError.self) { try other.apply(configurationFileAt: file) }
        }
    }

    /// Runs `body` with a temporary folder and the path of a configuration file in it.
    static func withConfigurationFile(_ body: (_ folder: URL, _ file: URL) throws -> Void) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cfg-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try body(folder, folder.appendingPathComponent(ValidationConfiguration.fileName))
    }

    /// A map whose `beats` member is `beats`.
    static func map(beats: [String]) -> String {
        "{ \"version\": 1, \"audio\": { \"duration\": 10 },\n\"beats\": [\n" + beats.joined(separator: ",\n")
            + "\n] }"
    }

    @Test("a rule's findings beyond the limit are summed up in one finding that counts them")
    func findingsPerRuleLimit() throws {
        // 1,000 beats at 1.0 s: 999 duplicates.
        let text = Self.map(beats: Array(repeating: "1.0", count: 1000))
        let report = validate(text, configuration: ValidationConfiguration().with { $0.maximumFindingsPerRule = 100 })
        let duplicates = report.findings.filter { $0.ruleID == "duplicate-beat" }
        try #require(duplicates.count == 101)
        #expect(duplicates.prefix(100).map(\.beatIndex) == (1...100).map { Optional($0) })
        #expect(duplicates.prefix(100).allSatisfy { $0.count == 1 })
        let summary = duplicates[100]
        #expect(summary.count == 899)
        #expect(summary.beatIndex == 101)
        #expect(summary.location == SourceLocation(line: 104, column: 1))
        #expect(summary.message.hasPrefix("899 more duplicate-beat findings in this file not listed"))
        #expect(report.errorCount == 999)
        #expect(ValidationReport(files: [report]).errorCount == 999)

        let all = validate(text, configuration: ValidationConfiguration().with { $0.maximumFindingsPerRule = nil })
        #expect(all.findings.filter { $0.ruleID == "duplicate-beat" }.count == 999)
        #expect(all.errorCount == 999)
        #expect(ValidationConfiguration().maximumFindingsPerRule == 100)
    }

    @Test("the sink builds only the violations it keeps and the first it drops")
    func sinkIsLazy() {
        var built = 0
        var sink = ViolationSink(limit: 3)
        for index in 0..<1000 {
            sink.report(
                {
                    built += 1
                    return Violation("v\(index)", at: .start, beatIndex: index)
                }())
        }
        #expect(sink.violations.map(\.beatIndex) == [0, 1, 2])
        #expect(sink.omitted == 997)
        #expect(sink.firstOmitted?.beatIndex == 3)
        #expect(built == 4)
        var unlimited = ViolationSink()
        for index in 0..<5 { unlimited.report(Violation("v", at: .start), count: index + 1) }
        #expect(unlimited.violations.map(\.count) == [1, 2, 3, 4, 5])
        #expect(unlimited.omitted == 0)
    }

    @Test("schema problems beyond 1,000 are counted by the reader, and the validator's limit still applies")
    func schemaIssueLimit() {
        let text =
            "{ \"version\": 1, \"audio\": { \"duration\": 10 },\n\"tempo\": [\n"
            + Array(repeating: "\"x\"", count: 1500).joined(separator: ",\n") + "\n],\n\"beats\": [1.0] }"
        guard case .schemaViolations(let issues) = BeatMapCodec.decode(Array(text.utf8)) else {
            Issue.record("expected schema violations")
            return
        }
        #expect(issues.count == BeatMapCodec.maximumSchemaIssues + 1)
        #expect(issues.last?.count == 500)
        #expect(issues.reduce(0) { $0 + $1.count } == 1500)
        #expect(issues.last?.location == SourceLocation(line: 1003, column: 1))
        #expect(issues.last?.message.hasPrefix("500 more problems not listed") == true)

        let report = validate(text)
        #expect(report.findings.count == 101)
        #expect(report.findings.allSatisfy { $0.ruleID == "schema" })
        #expect(report.errorCount == 1500)
        let listed = validate(text, configuration: ValidationConfiguration().with { $0.maximumFindingsPerRule = nil })
        #expect(listed.findings.count == 1001)
        #expect(listed.errorCount == 1500)

        // Beats that are not numbers: 20 listed, the rest in one issue that counts them.
        let beats = validate(Self.map(beats: Array(repeating: "\"x\"", count: 50)))
        #expect(beats.findings.count == 21)
        #expect(beats.findings.filter { $0.count > 1 }.map(\.count) == [30])
        #expect(beats.errorCount == 50)
    }

    @Test("maxFindingsPerRule in the configuration file: a whole number, 0 for no limit")
    func findingsLimitSetting() throws {
        try Self.withConfigurationFile { _, file in
            for (text, expected) in [("5", 5 as Int?), ("0", nil)] {
                try Data("{ \"maxFindingsPerRule\": \(text) }".utf8).write(to: file)
                var configuration = ValidationConfiguration()
                try configuration.apply(configurationFileAt: file)
                #expect(configuration.maximumFindingsPerRule == expected)
            }
            for bad in ["-1", "2.5", "\"all\""] {
                try Data("{ \"maxFindingsPerRule\": \(bad) }".utf8).write(to: file)
                var configuration = ValidationConfiguration()
                #expect(throws: ConfigurationError.self) { try configuration.apply(configurationFileAt: file) }
            }
        }
    }
}
