// SPDX-License-Identifier: GPL-3.0-or-later

/// SARIF 2.1.0, for code-scanning dashboards. A map whose audio file is not there gets a result of
/// level `note` (rule `audio-mismatch`) at its `audio.path`, so a dashboard shows that its audio was not
/// checked; when the audio is required, the `audio-mismatch` error stands instead.
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
            if let missing = file.missingAudio, !missing.required {
                results.append(
                    Self.result(
                        rule: AudioMismatchRule.description.id, level: "note", message: missing.message,
                        path: file.path, at: missing.location))
            }
            for finding in file.findings {
                results.append(
                    Self.result(
                        rule: finding.ruleID, level: finding.severity.rawValue, message: finding.message,
                        path: file.path, at: finding.location))
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

    /// One result: `rule` at `location` in `path`.
    private static func result(rule: String, level: String, message: String, path: String, at location: SourceLocation)
        -> JSONValue
    {
        let region = JSONObject([("startLine", .int(location.line)), ("startColumn", .int(location.column))])
        let physical = JSONObject([
            ("artifactLocation", .object(JSONObject([("uri", .string(path))]))), ("region", .object(region)),
        ])
        return .object(
            JSONObject([
                ("ruleId", .string(rule)), ("ruleIndex", .int(RuleCatalog.ids.firstIndex(of: rule) ?? 0)),
                ("level", .string(level)), ("message", .object(JSONObject([("text", .string(message))]))),
                ("locations", .array([.object(JSONObject([("physicalLocation", .object(physical))]))])),
            ]))
    }
}
