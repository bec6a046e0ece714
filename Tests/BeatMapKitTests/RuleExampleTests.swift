// SPDX-License-Identifier: GPL-3.0-or-later

public import BeatMapKit
import Foundation
public import Testing

/// Runs every rule's own examples: triggering examples must produce the rule (at the stated beat
/// indices), non-triggering examples must not.
@Suite("Rule examples")
struct RuleExampleTests {
    static let rules = RuleCatalog.descriptions

    func findings(_ example: RuleExample) -> [Finding] {
        let validator = Validator(configuration: example.configuration)
        return validator.validate(bytes: Array(example.text.utf8), path: "example.beatmap.json", audio: example.audio)
            .findings
    }

    @Test("triggering examples report the rule", arguments: rules)
    func triggering(rule: RuleDescription) {
        #expect(!rule.triggeringExamples.isEmpty, "\(rule.id) has no triggering example")
        for example in rule.triggeringExamples {
            let hits = findings(example).filter { $0.ruleID == rule.id }
            #expect(!hits.isEmpty, "\(rule.id) did not trigger on:\n\(example.text)")
            #expect(hits.allSatisfy { $0.severity == rule.defaultSeverity })
            if let indices = example.beatIndices {
                #expect(hits.compactMap(\.beatIndex) == indices, "\(rule.id) indices for:\n\(example.text)")
            }
        }
    }

    @Test("non-triggering examples do not report the rule", arguments: rules)
    func nonTriggering(rule: RuleDescription) {
        #expect(!rule.nonTriggeringExamples.isEmpty, "\(rule.id) has no non-triggering example")
        for example in rule.nonTriggeringExamples {
            let hits = findings(example).filter { $0.ruleID == rule.id }
            #expect(hits.isEmpty, "\(rule.id) triggered on:\n\(example.text)\n\(hits.map(\.message))")
        }
    }

    /// The rules that know the edit that fixes their finding.
    static let fixable = ["audio-misaligned", "audio-offbeat", "audio-metric-level", "bar-phase"]

    @Test("a finding's fix, made by the editor, clears it: every triggering example", arguments: fixable)
    func fixes(id: String) throws {
        let rule = try #require(Self.rules.first { $0.id == id })
        for example in rule.triggeringExamples {
            let hit = try #require(findings(example).first { $0.ruleID == id })
            let fix = try #require(hit.fix, "\(id) gave no fix for:\n\(example.text)")
            guard case .map(let map, _) = BeatMapCodec.decode(Array(example.text.utf8)) else {
                Issue.record("the example is not a map")
                return
            }
            let fixed = try BeatMapEditor.apply(fix, to: map).map
            let again = Validator(configuration: example.configuration).validate(
                bytes: Array(try BeatMapCodec.encode(fixed).utf8), path: "fixed.beatmap.json", audio: example.audio)
            #expect(!again.findings.contains { $0.ruleID == id }, "\(id) after \(fix.summary):\n\(example.text)")
        }
    }

    @Test("JSON gives a finding's fix as the edit, its values and its summary")
    func fixInJSON() throws {
        let rule = try #require(Self.rules.first { $0.id == "audio-offbeat" })
        let example = try #require(rule.triggeringExamples.first)
        let report = Validator(configuration: example.configuration).validate(
            bytes: Array(example.text.utf8), path: "example.beatmap.json", audio: example.audio)
        let text = JSONReporter().generate(ValidationReport(files: [report]))
        let root = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        let files = try #require(root["files"] as? [[String: Any]])
        let found = try #require(files.first?["findings"] as? [[String: Any]])
        let offbeat = try #require(found.first { $0["rule"] as? String == "audio-offbeat" })
        let fix = try #require(offbeat["fix"] as? [String: Any])
        #expect(fix["edit"] as? String == "shiftBeats")
        #expect(fix["fraction"] as? Double == -0.5)
        #expect(fix["summary"] as? String == "every beat half a beat earlier")
    }

    @Test("rule ids are unique and stable")
    func ids() {
        #expect(
            RuleCatalog.ids == [
                "invalid-json", "schema", "non-finite", "invalid-tempo", "non-monotonic", "duplicate-beat",
                "out-of-duration", "off-grid", "gap", "hit-window-overlap", "audio-mismatch", "audio-misaligned",
                "audio-offbeat", "audio-metric-level", "bar-phase",
            ])
        #expect(Set(RuleCatalog.ids).count == RuleCatalog.ids.count)
    }

    @Test("a disabled rule reports nothing and a severity override is applied")
    func configuration() {
        let example = RuleExample.map(beats: "[0.5, 1.0, 2.0, 2.5]", tempo: "[{ \"time\": 0.5, \"bpm\": 120 }]")
        var configuration = ValidationConfiguration()
        configuration.severities["gap"] = .error
        var report = Validator(configuration: configuration).validate(bytes: Array(example.text.utf8), path: "m")
        #expect(report.findings.map(\.ruleID) == ["gap"])
        #expect(report.findings.first?.severity == .error)
        configuration.disabledRules = ["gap"]
        report = Validator(configuration: configuration).validate(bytes: Array(example.text.utf8), path: "m")
        #expect(report.findings.isEmpty)
    }
}

extension RuleDescription: CustomTestStringConvertible {
    public var testDescription: String { id }
}
