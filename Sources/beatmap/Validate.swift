// SPDX-License-Identifier: GPL-3.0-or-later

import ArgumentParser
import BeatAnalysis
import BeatAudio
import BeatMapKit
import Foundation

/// An output format of `validate`: the name of one of ``Reporters/all``.
struct ReportFormat: ExpressibleByArgument, CustomStringConvertible {
    /// The reporter's name.
    var identifier: String

    init(identifier: String) { self.identifier = identifier }

    init?(argument: String) {
        guard Reporters.identifiers.contains(argument) else { return nil }
        identifier = argument
    }

    static var allValueStrings: [String] { Reporters.identifiers }

    var description: String { identifier }

    /// `text, json, junit, github or sarif`.
    static var list: String {
        let names = Reporters.identifiers
        return names.count < 2
            ? names.joined() : names.dropLast().joined(separator: ", ") + " or " + names[names.count - 1]
    }

    /// The reporter, failing warnings when `strict`.
    func reporter(strict: Bool) throws -> any Reporter {
        let options = ReporterOptions(
            strict: strict, ruleSummary: Rules.summary, remedyHint: { FlagHints.hint($0) },
            fixHint: { FlagHints.fixHint($0, map: $1) })
        guard let reporter = Reporters.reporter(named: identifier, options: options) else {
            throw ConfigurationError("unknown format \(identifier)")
        }
        return reporter
    }
}

/// The rule settings shared by commands that validate maps.
struct RuleOptions: ParsableArguments {
    @Option(
        name: .customLong("config"),
        help:
            "Configuration file (default: the nearest \(ValidationConfiguration.fileName) from the current folder upwards)."
    )
    var configFile: String?

    @Flag(name: .customLong("no-config"), help: "Ignore configuration files.")
    var noConfig = false

    @Option(
        name: .customLong("tolerance-ms"), parsing: .unconditional,
        help: "How far a beat may sit from its grid point (default 5).")
    var toleranceMs: Double?

    @Option(help: "Allowed beat subdivisions, e.g. 1,2,4 for a note map (default 1).")
    var subdivisions: String?

    @Option(
        name: .customLong("hit-window-ms"), parsing: .unconditional,
        help: "The game's hit window in ± ms (default 150).")
    var hitWindowMs: Double?

    @Flag(help: "Use the assist-mode hit window (±300 ms).")
    var assist = false

    @Option(
        name: .customLong("max-gap-beats"), parsing: .unconditional,
        help: "Longest interval, in beats, before `gap` reports it (default 1.5).")
    var maxGapBeats: Double?

    @Option(
        name: .customLong("duration-tolerance-ms"), parsing: .unconditional,
        help: "Allowed difference between the audio's real duration and audio.duration (default 10).")
    var durationToleranceMs: Double?

    @Option(
        name: .customLong("max-findings"), parsing: .unconditional,
        help: "Findings listed per rule and file; the rest are summed up in one (default 100, 0: all).")
    var maxFindings: Int?

    @Option(
        name: .customLong("rule"),
        help: ArgumentHelp("Set a rule's severity: ID=error|warning|off (repeatable).", valueName: "id=setting"))
    var ruleSettings: [String] = []

    @Option(name: .customLong("disable"), help: ArgumentHelp("Turn a rule off (repeatable).", valueName: "id"))
    var disabled: [String] = []

    @Flag(name: .customLong("no-audio"), help: "Do not open audio files (skips audio-mismatch).")
    var noAudio = false

    @Flag(
        name: .customLong("require-audio"),
        help: "A map whose audio file is not there (or that names none) is an audio-mismatch error, not a note.")
    var requireAudio = false

    func validate() throws {
        for (name, value) in [
            ("--tolerance-ms", toleranceMs), ("--hit-window-ms", hitWindowMs), ("--max-gap-beats", maxGapBeats),
            ("--duration-tolerance-ms", durationToleranceMs),
        ] {
            if let value, !(value.isFinite && value >= 0) {
                throw ValidationError("\(name) must be a non-negative number")
            }
        }
        if let maxFindings, maxFindings < 0 { throw ValidationError("--max-findings must be 0 (all) or more") }
        if requireAudio && noAudio { throw ValidationError("--require-audio and --no-audio cannot be used together") }
        if assist && hitWindowMs != nil {
            throw ValidationError("--assist and --hit-window-ms cannot be used together")
        }
        _ = try parsedSubdivisions()
    }

    func parsedSubdivisions() throws -> [Int]? {
        guard let subdivisions else { return nil }
        let values = subdivisions.split(separator: ",").map { Int($0.trimmingCharacters(in: .whitespaces)) }
        guard !values.isEmpty, values.allSatisfy({ ValidationConfiguration.isValidSubdivision(Double($0 ?? 0)) }) else {
            let range = ValidationConfiguration.subdivisionRange
            throw ValidationError(
                "--subdivisions takes whole numbers from \(range.lowerBound) to \(range.upperBound), e.g. 1,2,4")
        }
        return values.compactMap { $0 }
    }

    /// The configuration: defaults, then the configuration file, then these flags (and `misalignmentMs`).
    func configuration(misalignmentMs: Double? = nil) throws -> ValidationConfiguration {
        let file: ConfigurationFileChoice =
            if let configFile { .file(URL(fileURLWithPath: configFile)) } else if noConfig { .none } else {
                .nearest(from: URL(fileURLWithPath: FileManager.default.currentDirectoryPath))
            }
        var overrides = ValidationOverrides()
        overrides.gridTolerance = toleranceMs.map { $0 / 1000 }
        overrides.subdivisions = try parsedSubdivisions()
        overrides.hitWindow = assist ? HitWindow.assist.seconds : hitWindowMs.map { $0 / 1000 }
        overrides.maximumGapBeats = maxGapBeats
        overrides.audioDurationTolerance = durationToleranceMs.map { $0 / 1000 }
        overrides.misalignmentTolerance = misalignmentMs.map { $0 / 1000 }
        overrides.checkAudio = noAudio ? false : nil
        overrides.requireAudio = requireAudio ? true : nil
        overrides.maximumFindingsPerRule = maxFindings
        overrides.findingsLimitName = "maxFindingsPerRule or --max-findings"
        for setting in ruleSettings {
            let parts = setting.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2 else { throw ConfigurationError("--rule \(setting): expected ID=error|warning|off") }
            overrides.rules.append(RuleSetting(id: parts[0], setting: parts[1], origin: "--rule"))
        }
        overrides.rules += disabled.map { RuleSetting(id: $0, setting: "off", origin: "--disable") }
        return try ValidationConfiguration.resolved(file: file, overrides: overrides)
    }
}

/// `beatmap validate PATH…`.
struct Validate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Check beat maps: structure, order, duration, tempo grid, hit windows and audio.",
        discussion: """
            PATHs are map files or folders (searched recursively for *.beatmap.json); - reads one map from \
            standard input (a relative audio path in it is taken from the current folder). Messages count \
            beats from 1 (beat 21 is beats[20]); JSON output keeps the 0-based index. Run `beatmap rules` \
            for the list of rules.

            \(Exit.summary) 1 means errors (or warnings with --strict).
            """
    )

    @Argument(help: "Map files or folders (- for standard input).")
    var paths: [String]

    @Option(help: ArgumentHelp("Output format: \(ReportFormat.list)."))
    var format = ReportFormat(identifier: "text")

    @Flag(help: "Fail on warnings too.")
    var strict = false

    @OptionGroup var rules: RuleOptions

    @Flag(
        name: .customLong("audio"),
        help:
            "Detect the audio's onsets and check the beats against them (audio-misaligned, audio-offbeat, audio-metric-level)."
    )
    var alignment = false

    @Option(
        name: .customLong("misalignment-ms"), parsing: .unconditional,
        help: "Offset between beats and onsets that audio-misaligned reports (default 15).")
    var misalignmentMs: Double?

    @Flag(
        help: """
            Make the fixes the findings name (audio-metric-level, audio-offbeat, audio-misaligned, bar-phase; \
            needs --audio), each kept only if the map then passes that rule, write each fixed map (validated, \
            atomically, the previous version kept as MAP.bak), then report the maps as they are left.
            """)
    var fix = false

    @Flag(name: .customLong("no-backup"), help: "With --fix, do not keep the previous version as MAP.bak.")
    var noBackup = false

    func validate() throws {
        if fix && !alignment {
            throw ValidationError(
                "--fix makes the fixes of the rules that check the beats against the audio: add --audio")
        }
        if noBackup && !fix { throw ValidationError("--no-backup goes with --fix") }
        if fix && paths.contains(where: StandardStreams.isDash) {
            throw ValidationError("--fix writes the fixed map to its file: give the map's path, not -")
        }
        if alignment && rules.noAudio { throw ValidationError("--audio and --no-audio cannot be used together") }
        if let misalignmentMs, !(misalignmentMs.isFinite && misalignmentMs >= 0) {
            throw ValidationError("--misalignment-ms must be a non-negative number")
        }
        if paths.filter(StandardStreams.isDash).count > 1 {
            throw ValidationError("standard input (-) can be named once")
        }
    }

    func run() async throws {
        do {
            let configuration = try rules.configuration(misalignmentMs: misalignmentMs)
            let inspector: any AudioInspector = alignment ? OnsetAudioInspector() : SndfileAudioInspector()
            let validator = Validator(configuration: configuration, audioInspector: inspector)
            let report =
                fix
                ? try await validator.fix(paths: paths, keepsBackup: !noBackup)
                : try await validator.validate(paths: paths, standardInput: StandardStreams.readInput)
            Console.out(try format.reporter(strict: strict).generate(report))
            if report.fails(strict: strict) { throw Exit.failure }
        } catch let error as BeatMapKit.ValidationError {
            Console.error(error.localizedDescription)
            throw Exit.couldNotRun
        } catch let error as ConfigurationError {
            Console.error(error.localizedDescription)
            throw Exit.couldNotRun
        }
    }
}

/// `beatmap rules`: the rule table.
struct Rules: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List the validation rules, their default severity and what they find.")

    @Flag(help: "Print a Markdown table (as in the README).")
    var markdown = false

    func run() {
        var out = markdown ? "| rule | default | finds |\n|---|---|---|\n" : ""
        for rule in RuleCatalog.descriptions {
            if markdown {
                out += "| `\(rule.id)` | \(rule.defaultSeverity.rawValue) | \(Self.summary(rule)) |\n"
            } else {
                out +=
                    rule.id.padding(toLength: 20, withPad: " ", startingAt: 0)
                    + rule.defaultSeverity.rawValue.padding(toLength: 9, withPad: " ", startingAt: 0)
                    + Self.summary(rule)
                    + "\n"
            }
        }
        Console.out(out)
    }

    /// The rule's summary, saying which rules need `validate --audio`.
    @Sendable static func summary(_ rule: RuleDescription) -> String {
        guard rule.needsOnsets, rule.summary.hasSuffix(".") else { return rule.summary }
        return rule.summary.dropLast() + " (with --audio)."
    }
}
