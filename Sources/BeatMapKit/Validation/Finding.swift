// SPDX-License-Identifier: GPL-3.0-or-later

import Foundation

/// How serious a finding is.
public enum Severity: String, Sendable, Codable, CaseIterable, Comparable {
    /// Fails validation only when warnings are made to fail (``ValidationReport/fails(strict:)``).
    case warning
    /// Fails validation.
    case error

    public static func < (lhs: Severity, rhs: Severity) -> Bool { lhs == .warning && rhs == .error }
}

/// One problem found in one map file.
public struct Finding: Sendable, Equatable {
    /// The rule's stable id, e.g. `off-grid`.
    public var ruleID: String
    /// The severity in force for the rule.
    public var severity: Severity
    /// What is wrong, for a person.
    public var message: String
    /// Where in the file (line 1, column 1 for findings about the whole file).
    public var location: SourceLocation
    /// The 0-based index of the beat concerned (`beats[i]`), if the finding concerns a beat. Messages
    /// count beats from 1 for people: index 20 is "beat 21".
    public var beatIndex: Int?
    /// The time of the beat concerned, if any (may be non-finite for `non-finite`).
    public var time: Double?
    /// How many findings this one stands for: 1, or, for the finding that sums up those of a rule
    /// beyond ``ValidationConfiguration/maximumFindingsPerRule``, how many were not listed.
    public var count: Int
    /// The edit that fixes it, when the rule knows one (``BeatMapEditor`` makes it; `beatmap edit` and
    /// the studio offer it).
    public var fix: BeatMapEdit?

    /// A finding.
    public init(
        ruleID: String, severity: Severity, message: String, location: SourceLocation = .start,
        beatIndex: Int? = nil, time: Double? = nil, count: Int = 1, fix: BeatMapEdit? = nil
    ) {
        self.ruleID = ruleID
        self.severity = severity
        self.message = message
        self.location = location
        self.beatIndex = beatIndex
        self.time = time
        self.count = count
        self.fix = fix
    }
}

/// The validation result for one file.
public struct FileReport: Sendable, Equatable {
    /// The path as the user gave it (or as found under a folder they gave).
    public var path: String
    /// The findings, in file order.
    public var findings: [Finding]
    /// Informational remarks that are not findings (e.g. the tempo the validator inferred).
    public var notes: [String]
    /// The rules that did not check this file, and why, in ``RuleCatalog/ids`` order: they have not
    /// passed.
    public var skipped: [SkippedCheck]
    /// The audio file the map names, when it is not there.
    public var missingAudio: MissingAudio?
    /// The fixes made to the file before these findings were found (``Validator/fix(paths:keepsBackup:)``),
    /// in the order they were made; empty when the file was only checked.
    public var fixes: [MadeFix] = []
    /// Where the file's content before the fixes was kept, if a backup was made.
    public var backupPath: String?
    /// Why fixes that were found could not be written, if they could not: the file is unchanged and
    /// the run fails.
    public var fixFailure: String?

    /// A report for `path`.
    public init(
        path: String, findings: [Finding] = [], notes: [String] = [], skipped: [SkippedCheck] = [],
        missingAudio: MissingAudio? = nil
    ) {
        self.path = path
        self.findings = findings
        self.notes = notes
        self.skipped = skipped
        self.missingAudio = missingAudio
    }

    /// Why rule `id` did not check this file, or `nil` if it did.
    public func skipReason(of id: String) -> SkipReason? { skipped.first { $0.ruleID == id }?.reason }

    /// Number of error findings (including those summed up, not listed).
    public var errorCount: Int { findings.reduce(0) { $0 + ($1.severity == .error ? $1.count : 0) } }
    /// The error findings of rules that found no error in `original`: what an edit of the map
    /// `original` reports broke. More errors of a rule the original already failed are not counted: a
    /// beat list whose tempo drifts fails `off-grid` against its inferred grid before and after its
    /// metric level is doubled, with twice the beats.
    public func errors(ofRulesPassedBy original: FileReport) -> [Finding] {
        let failed = Set(original.findings.filter { $0.severity == .error }.map(\.ruleID))
        return findings.filter { $0.severity == .error && !failed.contains($0.ruleID) }
    }

    /// Number of warning findings (including those summed up, not listed).
    public var warningCount: Int { findings.reduce(0) { $0 + ($1.severity == .warning ? $1.count : 0) } }
}

/// The result of validating a set of files.
public struct ValidationReport: Sendable, Equatable {
    /// One report per file, in the order the files were given (folders' contents sorted by path).
    public var files: [FileReport]

    /// A report over `files`.
    public init(files: [FileReport]) { self.files = files }

    /// Total errors.
    public var errorCount: Int { files.reduce(0) { $0 + $1.errorCount } }
    /// Total warnings.
    public var warningCount: Int { files.reduce(0) { $0 + $1.warningCount } }
    /// How many maps name an audio file that is not there.
    public var missingAudioCount: Int { files.reduce(0) { $0 + ($1.missingAudio == nil ? 0 : 1) } }

    /// Number of fixes made, over all files.
    public var fixCount: Int { files.reduce(0) { $0 + $1.fixes.count } }

    /// Whether the run fails: any error, any warning when `strict`, or a file whose fixes could not be
    /// written.
    public func fails(strict: Bool) -> Bool {
        errorCount > 0 || (strict && warningCount > 0) || files.contains { $0.fixFailure != nil }
    }
}

/// A fix made to a map file: the edit a finding named, made before the file was checked again.
public struct MadeFix: Sendable, Equatable {
    /// The rule whose finding the edit fixed.
    public var ruleID: String
    /// The edit.
    public var edit: BeatMapEdit
    /// What it changed, as ``BeatMapEditor`` says it (the first line is the headline).
    public var changes: [String]

    /// The fix of `ruleID`'s finding by `edit`, which changed `changes`.
    public init(ruleID: String, edit: BeatMapEdit, changes: [String]) {
        self.ruleID = ruleID
        self.edit = edit
        self.changes = changes
    }
}
