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
