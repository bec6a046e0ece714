// SPDX-License-Identifier: GPL-3.0-or-later

/// SARIF 2.1.0, for code-scanning dashboards.
public struct SARIFReporter: Reporter {
    public static let identifier = "sarif"
    /// The version reported as the tool's.
    public var toolVersion: String
    /// Each rule's summary in the rule list.
    public var ruleSummary: @Sendable (RuleDescription) -> String = { $0.summary }

    /// A SARIF reporter.
    public init(toolVersion: String = BeatMapKitInfo.version) { self.toolVersion = toolVersion }

    /// A SARIF reporter naming `options.toolVersion` and summing rules up with `options.ruleSummary`.
    public init(options: ReporterOptions) {
        toolVersion = options.toolVersion
        ruleSummary = options.ruleSummary
    }

    public func generate(_ report: ValidationReport) -> String {
        let rules: [JSONValue] = RuleCatalog.descriptions.map { rule in
            .object(
                JSONObject([
                    ("id", .string(rule.id)),
                    ("shortDescription", .object(JSONObject([("text", .string(ruleSummary(rule)))]))),
                    ("defaultConfiguration", .object(JSONObject([("level", .string(rule.defaultSeverity.rawValue))]))),
                ]))
        }
        var results: [JSONValue] = []
        for file in report.files {
            for finding in file.findings {
                let region = JSONObject([
                    ("startLine", .int(finding.location.line)), ("startColumn", .int(finding.location.column)),
                ])
                let physical = JSONObject([
                    ("artifactLocation", .object(JSONObject([("uri", .string(file.path))]))),
                    ("region", .object(region)),
                ])
                results.append(
                    .object(
                        JSONObject([
                            ("ruleId", .string(finding.ruleID)),
                            ("ruleIndex", .int(RuleCatalog.ids.firstIndex(of: finding.ruleID) ?? 0)),
                            ("level", .string(finding.severity.rawValue)),
                            ("message", .object(JSONObject([("text", .string(finding.message))]))),
                            ("locations", .array([.object(JSONObject([("physicalLocation", .object(physical))]))])),
                        ])))
            }
        }
        let driver = JSONObject([
            ("name", .string("beatmap")), ("version", .string(toolVersion)), ("rules", .array(rules)),
        ])
        let run = JSONObject([
            ("tool", .object(JSONObject([("driver", .object(driver))]))), ("results", .array(results)),
        ])
        let root = JSONObject([
            ("$schema", .string("https://json.schemastore.org/sarif-2.1.0.json")), ("version", .string("2.1.0")),
            ("runs", .array([.object(run)])),
        ])
        return JSONWriter.string(.object(root)) + "\n"
    }
}
