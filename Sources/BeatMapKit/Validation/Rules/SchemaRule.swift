// SPDX-License-Identifier: GPL-3.0-or-later

/// `schema`: the JSON is not a version-1 beat map: a missing or mistyped member, a duplicate member,
/// an unknown version.
public enum SchemaRule: DescribedRule {
    public static let description = RuleDescription(
        id: "schema", defaultSeverity: .error,
        summary: "A required member is missing or has the wrong type, or the format version is unknown.",
        triggeringExamples: [
            RuleExample("[0.5, 1.0]"),
            RuleExample("{ \"version\": 1, \"audio\": { \"duration\": 8 } }"),
            RuleExample("{ \"version\": 2, \"audio\": { \"duration\": 8 }, \"beats\": [] }"),
            RuleExample("{ \"version\": 1, \"audio\": { \"duration\": 0 }, \"beats\": [] }"),
            RuleExample("{ \"version\": 1, \"audio\": { \"duration\": 8 }, \"beats\": [0.5, \"1.0\"] }"),
            RuleExample("{ \"version\": 1, \"audio\": { \"duration\": 8 }, \"beats\": [], \"beats\": [] }"),
        ],
        nonTriggeringExamples: [
            RuleExample.map(beats: "[]"),
            RuleExample(
                "{ \"version\": 1, \"audio\": { \"duration\": 8 }, \"beats\": [1.0], \"x-editor\": { \"zoom\": 3 } }"),
        ])
}
