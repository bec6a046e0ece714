// SPDX-License-Identifier: GPL-3.0-or-later

/// Machine-readable JSON:
/// `{"summary":{"files":N,"errors":E,"warnings":W},"files":[{"path":…,"findings":[{"rule":…,"severity":…,"index":…,"time":…,"line":…,"column":…,"message":…}],"notes":[…]}]}`.
/// A finding that sums up a rule's findings beyond the per-rule limit also has `"count"`, and one a
/// rule knows the edit for has `"fix"` (`{"edit":"shiftBeats","fraction":-0.5,"summary":…}`, as
/// `BeatMapEdit` describes it: what `beatmap edit` and the studio make). Each file
/// lists the rules that did not check it (`"skipped":[{"rule":…,"reason":…}]`), and a map whose audio
/// file is not there has `"missingAudio":{"path":…,"line":…,"column":…,"required":…}`; the summary
/// counts those maps (`"missingAudio":N`). A file fixed before it was checked has `"fixed"`, the fixes
/// made (`[{"rule":…,"edit":…,…,"changes":[…]}]`), and `"backup"`, where its previous content was kept;
/// one whose fixes could not be written has `"fixFailure"`; the summary then counts the fixes
/// (`"fixed":N`).
public struct JSONReporter: Reporter {
    public static let identifier = "json"
    /// Words skip reasons.
    public var options: ReporterOptions

    /// A JSON reporter.
    public init() { options = ReporterOptions() }

    /// A JSON reporter wording skip reasons with `options`.
    public init(options: ReporterOptions) { self.options = options }

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
                if let fix = finding.fix { object["fix"] = fix.jsonValue }
                return .object(object)
            }
            var object = JSONObject([
                ("path", .string(file.path)), ("findings", .array(findings)),
                ("notes", .array(file.notes.map(JSONValue.string))),
                (
                    "skipped",
                    .array(
                        file.skipped.map { skip in
                            .object(
                                JSONObject([
                                    ("rule", .string(skip.ruleID)), ("reason", .string(options.describe(skip.reason))),
                                ]))
                        })
                ),
            ])
            if !file.fixes.isEmpty {
                object["fixed"] = .array(
                    file.fixes.map { fix in
                        var made = JSONObject([("rule", .string(fix.ruleID))])
                        if case .object(let edit) = fix.edit.jsonValue {
                            for (key, value) in edit.members { made[key] = value }
                        }
                        made["changes"] = .array(fix.changes.map(JSONValue.string))
                        return .object(made)
                    })
            }
            if let backup = file.backupPath { object["backup"] = .string(backup) }
            if let failure = file.fixFailure { object["fixFailure"] = .string(failure) }
            if let missing = file.missingAudio {
                object["missingAudio"] = .object(
                    JSONObject([
                        ("path", .string(missing.path)), ("line", .int(missing.location.line)),
                        ("column", .int(missing.location.column)), ("required", .bool(missing.required)),
                    ]))
            }
            return .object(object)
        }
        var summary = JSONObject([
            ("files", .int(report.files.count)), ("errors", .int(report.errorCount)),
            ("warnings", .int(report.warningCount)), ("missingAudio", .int(report.missingAudioCount)),
        ])
        if report.files.contains(where: { !$0.fixes.isEmpty || $0.fixFailure != nil }) {
            summary["fixed"] = .int(report.fixCount)
        }
        let root = JSONObject([("summary", .object(summary)), ("files", .array(files))])
        return JSONWriter.string(.object(root)) + "\n"
    }
}
