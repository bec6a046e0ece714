// SPDX-License-Identifier: GPL-3.0-or-later

import Foundation

/// Turns a validation report into text in one output format.
public protocol Reporter: Sendable {
    /// The `--format` name of this reporter.
    static var identifier: String { get }
    /// The whole output for `report` (ends with a newline when not empty).
    func generate(_ report: ValidationReport) -> String
}

/// The available reporters.
public enum Reporters {
    /// Every reporter type, by `--format` name order.
    public static let all: [any Reporter.Type] = [
        TextReporter.self, JSONReporter.self, JUnitReporter.self, GitHubReporter.self, SARIFReporter.self,
    ]

    /// The reporter for `identifier`, if any. `strict` makes warnings fail in formats that carry pass/fail.
    public static func reporter(
        named identifier: String, strict: Bool = false, toolVersion: String = BeatMapKitInfo.version
    )
        -> (any Reporter)?
    {
        switch identifier {
        case TextReporter.identifier: return TextReporter()
        case JSONReporter.identifier: return JSONReporter()
        case JUnitReporter.identifier: return JUnitReporter(strict: strict)
        case GitHubReporter.identifier: return GitHubReporter()
        case SARIFReporter.identifier: return SARIFReporter(toolVersion: toolVersion)
        default: return nil
        }
    }
}

/// Facts about this library.
public enum BeatMapKitInfo {
    /// The toolkit's version.
    public static let version = "0.1.0"
}

/// The one-line summary shared by the text-like formats.
enum Summary {
    static func line(_ report: ValidationReport) -> String {
        let files = report.files.count
        let errors = report.errorCount
        let warnings = report.warningCount
        return
            "Validated \(files) file\(files == 1 ? "" : "s"): \(errors) error\(errors == 1 ? "" : "s"), \(warnings) warning\(warnings == 1 ? "" : "s")."
    }
}

/// `path:line:col: error: [rule] message`, one line per finding, notes, then a summary line.
public struct TextReporter: Reporter {
    public static let identifier = "text"

    /// A text reporter.
    public init() {}

    public func generate(_ report: ValidationReport) -> String {
        var out = ""
        for file in report.files {
            for note in file.notes { out += "\(file.path):1:1: note: \(note)\n" }
            for finding in file.findings {
                out +=
                    "\(file.path):\(finding.location.line):\(finding.location.column): \(finding.severity.rawValue): [\(finding.ruleID)] \(finding.message)\n"
            }
        }
        return out + Summary.line(report) + "\n"
    }
}

/// Machine-readable JSON:
/// `{"summary":{"files":N,"errors":E,"warnings":W},"files":[{"path":…,"findings":[{"rule":…,"severity":…,"index":…,"time":…,"line":…,"column":…,"message":…}],"notes":[…]}]}`.
/// A finding that sums up a rule's findings beyond the per-rule limit also has `"count"`.
public struct JSONReporter: Reporter {
    public static let identifier = "json"

    /// A JSON reporter.
    public init() {}

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

/// JUnit XML for CI test dashboards: a test suite per file and a test case per rule that ran.
/// A rule with error findings (or warnings, with `strict`) is a failure; other warnings are reported
/// in the case's `system-out`.
public struct JUnitReporter: Reporter {
    public static let identifier = "junit"
    /// Whether warnings count as failures.
    public var strict: Bool

    /// A JUnit reporter.
    public init(strict: Bool = false) { self.strict = strict }

    public func generate(_ report: ValidationReport) -> String {
        var suites = ""
        var totalTests = 0
        var totalFailures = 0
        for file in report.files {
            var byRule: [String: [Finding]] = [:]
            for finding in file.findings { byRule[finding.ruleID, default: []].append(finding) }
            var cases = ""
            var failures = 0
            for rule in RuleCatalog.ids {
                let findings = byRule[rule] ?? []
                let failing = findings.filter { $0.severity == .error || strict }
                cases += "    <testcase name=\"\(rule)\" classname=\"\(XML.escape(file.path))\""
                if findings.isEmpty {
                    cases += "/>\n"
                    continue
                }
                cases += ">\n"
                if !failing.isEmpty {
                    failures += 1
                    let first = failing[0]
                    cases +=
                        "      <failure type=\"\(first.severity.rawValue)\" message=\"\(XML.escape(first.message))\">"
                    cases += XML.escape(failing.map(Self.line(file.path)).joined(separator: "\n"))
                    cases += "</failure>\n"
                }
                let other = findings.filter { !($0.severity == .error || strict) }
                if !other.isEmpty {
                    cases +=
                        "      <system-out>" + XML.escape(other.map(Self.line(file.path)).joined(separator: "\n"))
                        + "</system-out>\n"
                }
                cases += "    </testcase>\n"
            }
            let tests = RuleCatalog.ids.count
            totalTests += tests
            totalFailures += failures
            suites +=
                "  <testsuite name=\"\(XML.escape(file.path))\" tests=\"\(tests)\" failures=\"\(failures)\" errors=\"0\">\n"
            suites += cases
            suites += "  </testsuite>\n"
        }
        return """
            <?xml version="1.0" encoding="UTF-8"?>
            <testsuites name="beatmap validate" tests="\(totalTests)" failures="\(totalFailures)" errors="0">

            """ + suites + "</testsuites>\n"
    }

    private static func line(_ path: String) -> (Finding) -> String {
        { "\(path):\($0.location.line):\($0.location.column): \($0.severity.rawValue): [\($0.ruleID)] \($0.message)" }
    }
}

/// GitHub Actions workflow commands (`::error file=…,line=…,col=…,title=…::message`), which annotate
/// the pull request's diff, then the summary line.
public struct GitHubReporter: Reporter {
    public static let identifier = "github"

    /// A GitHub Actions reporter.
    public init() {}

    public func generate(_ report: ValidationReport) -> String {
        var out = ""
        for file in report.files {
            for finding in file.findings {
                out +=
                    "::\(finding.severity.rawValue) file=\(Self.property(file.path)),line=\(finding.location.line),col=\(finding.location.column),title=\(Self.property("beatmap [\(finding.ruleID)]"))::\(Self.data(finding.message))\n"
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

/// SARIF 2.1.0, for code-scanning dashboards.
public struct SARIFReporter: Reporter {
    public static let identifier = "sarif"
    /// The version reported as the tool's.
    public var toolVersion: String

    /// A SARIF reporter.
    public init(toolVersion: String = BeatMapKitInfo.version) { self.toolVersion = toolVersion }

    public func generate(_ report: ValidationReport) -> String {
        let rules: [JSONValue] = RuleCatalog.descriptions.map { rule in
            .object(
                JSONObject([
                    ("id", .string(rule.id)),
                    ("shortDescription", .object(JSONObject([("text", .string(rule.summary))]))),
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

/// XML text escaping.
enum XML {
    static func escape(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            default:
                // XML 1.0 cannot carry most control characters even escaped.
                if scalar.value < 0x20 && scalar != "\n" && scalar != "\t" && scalar != "\r" {
                    out += "\u{FFFD}"
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out
    }
}
