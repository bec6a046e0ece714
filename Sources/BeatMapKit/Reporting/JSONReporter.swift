// SPDX-License-Identifier: GPL-3.0-or-later

/// Machine-readable JSON:
/// `{"summary":{"files":N,"errors":E,"warnings":W},"files":[{"path":…,"findings":[{"rule":…,"severity":…,"index":…,"time":…,"line":…,"column":…,"message":…}],"notes":[…]}]}`.
/// A finding that sums up a rule's findings beyond the per-rule limit also has `"count"`.
public struct JSONReporter: Reporter {
    public static let identifier = "json"

    /// A JSON reporter.
    public init() {}

    /// A JSON reporter (it has no options).
    public init(options: ReporterOptions) {}

    public func generate(_ report: ValidationReport) -> String {
        let files: [JSONValue] = report.files.map { file in
            let findings: [JSONValue] = file.findings.map { finding in
                var object = JSONObject([
                    ("rule", .string(finding.ruleID)), ("severity", .string(finding.severity.rawValue)),
                ])
                if let index = finding.beatIndex { object["index"] = .int(index) }
                if let time = finding.time { object["time"] = time.isFinite ? .double(time) : .null }
                object["line"] = .int(finding.location.line)
                object["column"] = .int(finding.location.column)
                object["message"] = .string(finding.message)
                if finding.count != 1 { object["count"] = .int(finding.count) }
                return .object(object)
            }
            return .object(
                JSONObject([
                    ("path", .string(file.path)), ("findings", .array(findings)),
                    ("notes", .array(file.notes.map(JSONValue.string))),
                ]))
        }
        let root = JSONObject([
            (
                "summary",
                .object(
                    JSONObject([
                        ("files", .int(report.files.count)), ("errors", .int(report.errorCount)),
                        ("warnings", .int(report.warningCount)),
                    ]))
            ),
            ("files", .array(files)),
        ])
        return JSONWriter.string(.object(root)) + "\n"
    }
}
