// SPDX-License-Identifier: GPL-3.0-or-later

/// JUnit XML for CI test dashboards: a test suite per file and a test case per rule.
/// A rule with error findings (or warnings, with `strict`) is a failure; other warnings are reported
/// in the case's `system-out`. A rule that did not check the file (turned off, the map unreadable, its
/// audio not opened or not there, the onsets not detected) is `<skipped>` with the reason, never passed.
public struct JUnitReporter: Reporter {
    public static let identifier = "junit"
    /// Whether warnings count as failures.
    public var strict: Bool
    /// Words skip reasons.
    public var options: ReporterOptions

    /// A JUnit reporter.
    public init(strict: Bool = false) { self.init(options: ReporterOptions(strict: strict)) }

    /// A JUnit reporter failing warnings when `options.strict`, wording skip reasons with `options`.
    public init(options: ReporterOptions) {
        self.strict = options.strict
        self.options = options
    }

    public func generate(_ report: ValidationReport) -> String {
        var suites = ""
        var totalTests = 0
        var totalFailures = 0
        var totalSkipped = 0
        for file in report.files {
            var byRule: [String: [Finding]] = [:]
            for finding in file.findings { byRule[finding.ruleID, default: []].append(finding) }
            var cases = ""
            var failures = 0
            var skipped = 0
            for rule in RuleCatalog.ids {
                let findings = byRule[rule] ?? []
                let failing = findings.filter { $0.severity == .error || strict }
                cases += "    <testcase name=\"\(rule)\" classname=\"\(XML.escape(file.path))\""
                if findings.isEmpty, let reason = file.skipReason(of: rule) {
                    skipped += 1
                    cases +=
                        ">\n      <skipped message=\"\(XML.escape(options.describe(reason)))\"/>\n    </testcase>\n"
                    continue
                }
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
                    cases += XML.escape(failing.map(line(file.path)).joined(separator: "\n"))
                    cases += "</failure>\n"
                }
                let other = findings.filter { !($0.severity == .error || strict) }
                if !other.isEmpty {
                    cases +=
                        "      <system-out>" + XML.escape(other.map(line(file.path)).joined(separator: "\n"))
                        + "</system-out>\n"
                }
                cases += "    </testcase>\n"
            }
            let tests = RuleCatalog.ids.count
            totalTests += tests
            totalFailures += failures
            totalSkipped += skipped
            suites +=
                "  <testsuite name=\"\(XML.escape(file.path))\" tests=\"\(tests)\" failures=\"\(failures)\" errors=\"0\" skipped=\"\(skipped)\">\n"
            suites += cases
            suites += "  </testsuite>\n"
        }
        return """
            <?xml version="1.0" encoding="UTF-8"?>
            <testsuites name="beatmap validate" tests="\(totalTests)" failures="\(totalFailures)" errors="0" skipped="\(totalSkipped)">

            """ + suites + "</testsuites>\n"
    }

    private func line(_ path: String) -> (Finding) -> String {
        {
            "\(path):\($0.location.line):\($0.location.column): \($0.severity.rawValue): [\($0.ruleID)] \(options.message(of: $0, in: path))"
        }
    }
}
