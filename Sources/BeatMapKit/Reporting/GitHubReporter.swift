// SPDX-License-Identifier: GPL-3.0-or-later

import Foundation

/// GitHub Actions workflow commands (`::error file=…,line=…,col=…,title=…::message`), which annotate
/// the pull request's diff, then the summary line. A map whose audio file is not there gets a
/// `::notice` at its `audio.path` (an error finding instead when the audio is required).
public struct GitHubReporter: Reporter {
    public static let identifier = "github"

    /// Adds the front end's hint to a finding with a fix.
    public var options: ReporterOptions

    /// A GitHub Actions reporter.
    public init() { options = ReporterOptions() }

    /// A GitHub Actions reporter adding `options.fixHint` to a finding with a fix.
    public init(options: ReporterOptions) { self.options = options }

    public func generate(_ report: ValidationReport) -> String {
        var out = ""
        for file in report.files {
            if let missing = file.missingAudio, !missing.required {
                out +=
                    "::notice file=\(Self.property(file.path)),line=\(missing.location.line),col=\(missing.location.column),title=\(Self.property("beatmap [audio]"))::\(Self.data(missing.message))\n"
            }
            for finding in file.findings {
                out +=
                    "::\(finding.severity.rawValue) file=\(Self.property(file.path)),line=\(finding.location.line),col=\(finding.location.column),title=\(Self.property("beatmap [\(finding.ruleID)]"))::\(Self.data(options.message(of: finding, in: file.path)))\n"
            }
        }
        return out + Summary.line(report) + "\n"
    }

    /// Escapes a workflow-command message.
    static func data(_ text: String) -> String {
        text.replacingOccurrences(of: "%", with: "%25").replacingOccurrences(of: "\r", with: "%0D")
            .replacingOccurrences(of: "\n", with: "%0A")
    }

    /// Escapes a workflow-command property value.
    static func property(_ text: String) -> String {
        data(text).replacingOccurrences(of: ":", with: "%3A").replacingOccurrences(of: ",", with: "%2C")
    }
}
