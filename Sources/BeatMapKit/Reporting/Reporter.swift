// SPDX-License-Identifier: GPL-3.0-or-later

/// Turns a validation report into text in one output format.
///
/// Adding an output format is one new file holding a type that conforms, plus its line in
/// ``Reporters/all``: everything else (the `beatmap validate --format` values, their help) is derived
/// from that list.
public protocol Reporter: Sendable {
    /// The format's name, as `beatmap validate --format` takes it.
    static var identifier: String { get }
    /// A reporter with `options` (each format uses those it needs).
    init(options: ReporterOptions)
    /// The whole output for `report` (ends with a newline when not empty).
    func generate(_ report: ValidationReport) -> String
}

/// Settings a reporter may use.
public struct ReporterOptions: Sendable {
    /// Whether warnings fail, in formats that carry pass/fail.
    public var strict: Bool
    /// The version reported as the tool's, in formats that name the tool.
    public var toolVersion: String
    /// A rule's one-line summary, in formats that list the rules: by default its
    /// ``RuleDescription/summary``; a front end may add how its user turns the rule on.
    public var ruleSummary: @Sendable (RuleDescription) -> String
    /// How a front end tells its user to act on a ``Remedy`` (appended to a reason that has one, such as
    /// why a rule was skipped); by default nothing.
    public var remedyHint: @Sendable (Remedy) -> String
    /// How a front end tells its user to make a finding's fix (``Finding/fix``) in the map at the path
    /// given, appended to the finding's message in the formats people read; by default nothing.
    public var fixHint: @Sendable (BeatMapEdit, String) -> String

    /// Options: warnings pass unless `strict`; this library's version as the tool's.
    public init(
        strict: Bool = false, toolVersion: String = BeatMapKitInfo.version,
        ruleSummary: @escaping @Sendable (RuleDescription) -> String = { $0.summary },
        remedyHint: @escaping @Sendable (Remedy) -> String = { _ in "" },
        fixHint: @escaping @Sendable (BeatMapEdit, String) -> String = { _, _ in "" }
    ) {
        self.strict = strict
        self.toolVersion = toolVersion
        self.ruleSummary = ruleSummary
        self.remedyHint = remedyHint
        self.fixHint = fixHint
    }

    /// The message of `finding` in the map at `path`, with the front end's hint for its fix when it has one.
    public func message(of finding: Finding, in path: String) -> String {
        finding.message + (finding.fix.map { fixHint($0, path) } ?? "")
    }

    /// Why a rule was skipped, with the front end's hint when there is something to do.
    public func describe(_ reason: SkipReason) -> String {
        reason.description + (reason.remedy.map(remedyHint) ?? "")
    }
}

/// The available reporters: the one list of them.
public enum Reporters {
    /// Every reporter type, in the order their names are listed.
    public static let all: [any Reporter.Type] = [
        TextReporter.self, JSONReporter.self, JUnitReporter.self, GitHubReporter.self, SARIFReporter.self,
    ]

    /// Every reporter's name, in ``all``'s order.
    public static var identifiers: [String] { all.map { $0.identifier } }

    /// The reporter named `identifier`, if any. `strict` makes warnings fail in formats that carry
    /// pass/fail.
    public static func reporter(
        named identifier: String, strict: Bool = false, toolVersion: String = BeatMapKitInfo.version
    ) -> (any Reporter)? {
        reporter(named: identifier, options: ReporterOptions(strict: strict, toolVersion: toolVersion))
    }

    /// The reporter named `identifier` with `options`, if any.
    public static func reporter(named identifier: String, options: ReporterOptions) -> (any Reporter)? {
        all.first { $0.identifier == identifier }.map { $0.init(options: options) }
    }
}
