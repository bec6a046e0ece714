// SPDX-License-Identifier: GPL-3.0-or-later

import ArgumentParser
import BeatAnalysis
import BeatAudio
import BeatMapKit
import Foundation

/// Output formats of `validate`.
enum ReportFormat: String, ExpressibleByArgument, CaseIterable {
    case text, json, junit, github, sarif
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

    @Option(name: .customLong("tolerance-ms"), help: "How far a beat may sit from its grid point (default 5).")
    var toleranceMs: Double?

    @Option(help: "Allowed beat subdivisions, e.g. 1,2,4 for a note map (default 1).")
    var subdivisions: String?

    @Option(name: .customLong("hit-window-ms"), help: "The game's hit window in ± ms (default 150).")
    var hitWindowMs: Double?

    @Flag(help: "Use the assist-mode hit window (±300 ms).")
    var assist = false

    @Option(
        name: .customLong("max-gap-beats"), help: "Longest interval, in beats, before `gap` reports it (default 1.5).")
    var maxGapBeats: Double?

    @Option(
        name: .customLong("duration-tolerance-ms"),
        help: "Allowed difference between the audio's real duration and audio.duration (default 10).")
    var durationToleranceMs: Double?

    @Option(
        name: .customLong("max-findings"),
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
        if assist && hitWindowMs != nil {
            throw ValidationError("--assist and --hit-window-ms cannot be used together")
        }
        _ = try parsedSubdivisions()
    }

    func parsedSubdivisions() throws -> [Int]? {
        guard let subdivisions else { return nil }
        let values = subdivisions.split(separator: ",").map { Int($0.trimmingCharacters(in: .whitespaces)) }
        guard !values.isEmpty, values.allSatisfy({ ($0 ?? 0) >= 1 && ($0 ?? 0) <= 64 }) else {
            throw ValidationError("--subdivisions takes whole numbers from 1 to 64, e.g. 1,2,4")
        }
        return values.compactMap { $0 }
    }

    /// The configuration: defaults, then the configuration file, then these flags.
    func configuration() throws -> ValidationConfiguration {
        var configuration = ValidationConfiguration()
        if let configFile {
            try configuration.apply(configurationFileAt: URL(fileURLWithPath: configFile))
        } else if !noConfig,
            let found = ValidationConfiguration.findConfigurationFile(
                from: URL(fileURLWithPath: FileManager.default.currentDirectoryPath))
        {
            try configuration.apply(configurationFileAt: found)
        }
        if let toleranceMs { configuration.gridTolerance = toleranceMs / 1000 }
        if let subdivisions = try parsedSubdivisions() { configuration.subdivisions = subdivisions }
        if let hitWindowMs { configuration.hitWindow = hitWindowMs / 1000 }
        if assist { configuration.hitWindow = 0.300 }
        if let maxGapBeats { configuration.maximumGapBeats = maxGapBeats }
        if let durationToleranceMs { configuration.audioDurationTolerance = durationToleranceMs / 1000 }
        if noAudio { configuration.checkAudio = false }
        if let maxFindings { configuration.maximumFindingsPerRule = maxFindings == 0 ? nil : maxFindings }
        for setting in ruleSettings {
            let parts = setting.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2 else { throw ConfigurationError("--rule \(setting): expected ID=error|warning|off") }
            try configuration.setRule(parts[0], to: parts[1], origin: "--rule")
        }
        for id in disabled { try configuration.setRule(id, to: "off", origin: "--disable") }
        return configuration
    }
}

/// `beatmap validate PATH…`.
struct Validate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Check beat maps: structure, order, duration, tempo grid, hit windows and audio.",
        discussion: """
            PATHs are map files or folders (searched recursively for *.beatmap.json).
            Exit status: 0 no errors, 1 errors (or warnings with --strict), 2 could not run.
            Run `beatmap rules` for the list of rules.
            """
    )

    @Argument(help: "Map files or folders.")
    var paths: [String]

    @Option(help: "Output format: text, json, junit, github or sarif.")
    var format: ReportFormat = .text

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
        name: .customLong("misalignment-ms"),
        help: "Offset between beats and onsets that audio-misaligned reports (default 15).")
    var misalignmentMs: Double?

    func validate() throws {
        if alignment && rules.noAudio { throw ValidationError("--audio and --no-audio cannot be used together") }
        if let misalignmentMs, !(misalignmentMs.isFinite && misalignmentMs >= 0) {
            throw ValidationError("--misalignment-ms must be a non-negative number")
        }
    }

    func run() async throws {
        do {
            var configuration = try rules.configuration()
            if let misalignmentMs { configuration.misalignmentTolerance = misalignmentMs / 1000 }
            let inspector: any AudioInspector = alignment ? OnsetAudioInspector() : SndfileAudioInspector()
            let validator = Validator(configuration: configuration, audioInspector: inspector)
            let report = try await validator.validate(paths: paths)
            guard let reporter = Reporters.reporter(named: format.rawValue, strict: strict) else {
                throw ConfigurationError("unknown format \(format.rawValue)")
            }
            Console.out(reporter.generate(report))
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
                out += "| `\(rule.id)` | \(rule.defaultSeverity.rawValue) | \(rule.summary) |\n"
            } else {
                out +=
                    rule.id.padding(toLength: 20, withPad: " ", startingAt: 0)
                    + rule.defaultSeverity.rawValue.padding(toLength: 9, withPad: " ", startingAt: 0) + rule.summary
                    + "\n"
            }
        }
        Console.out(out)
    }
}
