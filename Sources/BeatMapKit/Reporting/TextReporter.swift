// SPDX-License-Identifier: GPL-3.0-or-later

/// `path:line:col: error: [rule] message`, one line per finding, after the fixes made and the notes, then a
/// summary line.
public struct TextReporter: Reporter {
    public static let identifier = "text"

    /// Adds the front end's hint to a finding with a fix.
    public var options: ReporterOptions

    /// A text reporter.
    public init() { options = ReporterOptions() }

    /// A text reporter adding `options.fixHint` to a finding with a fix.
    public init(options: ReporterOptions) { self.options = options }

    public func generate(_ report: ValidationReport) -> String {
        var out = ""
        for file in report.files {
            for fix in file.fixes {
                out += "\(file.path):1:1: note: fixed [\(fix.ruleID)] \(fix.changes.first ?? fix.edit.summary)\n"
            }
            if let backup = file.backupPath { out += "\(file.path):1:1: note: previous version kept as \(backup)\n" }
            if let failure = file.fixFailure { out += "\(file.path):1:1: error: fixes not written: \(failure)\n" }
            for note in file.notes { out += "\(file.path):1:1: note: \(note)\n" }
            for finding in file.findings {
                out +=
                    "\(file.path):\(finding.location.line):\(finding.location.column): \(finding.severity.rawValue): [\(finding.ruleID)] \(options.message(of: finding, in: file.path))\n"
            }
        }
        return out + Summary.line(report) + "\n"
    }
}
