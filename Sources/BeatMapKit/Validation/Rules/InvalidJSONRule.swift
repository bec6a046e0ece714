// SPDX-License-Identifier: GPL-3.0-or-later

/// `invalid-json`: the file is not JSON (with the line and column of the first problem), is empty,
/// binary, unreadable, or over the size limit.
public enum InvalidJSONRule: DescribedRule {
    public static let description = RuleDescription(
        id: "invalid-json", defaultSeverity: .error,
        summary: "The file is not JSON (syntax error, empty, binary, unreadable or over the size limit).",
        triggeringExamples: [
            RuleExample(""),
            RuleExample("{ \"version\": 1, \"beats\": [0.5, 1.0,] }"),
            RuleExample("{ \"version\": 1 \n \"beats\": [] }"),
            RuleExample("\u{0}\u{1}binary"),
        ],
        nonTriggeringExamples: [
            RuleExample.map(beats: "[0.5, 1.0, 1.5]")
        ])
}
