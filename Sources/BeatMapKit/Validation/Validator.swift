// SPDX-License-Identifier: GPL-3.0-or-later

public import Foundation

/// Every rule, in the order findings of one location are listed.
public enum RuleCatalog {
    /// The rules that check a decoded map.
    public static let contentRules: [any ValidationRule.Type] = [
        NonFiniteRule.self, InvalidTempoRule.self, NonMonotonicRule.self, DuplicateBeatRule.self,
        OutOfDurationRule.self, OffGridRule.self, GapRule.self, HitWindowOverlapRule.self, AudioMismatchRule.self,
        AudioMisalignedRule.self, AudioOffbeatRule.self, AudioMetricLevelRule.self, BarPhaseRule.self,
    ]

    /// All rule descriptions: the reader's two (`invalid-json`, `schema`) and the content rules.
    public static let descriptions: [RuleDescription] =
        [InvalidJSONRule.description, SchemaRule.description] + contentRules.map { $0.description }

    /// All rule ids.
    public static let ids: [String] = descriptions.map(\.id)

    /// The description of rule `id`.
    public static func description(of id: String) -> RuleDescription? { descriptions.first { $0.id == id } }
}

/// A validation run that could not start: a path that does not exist, a folder with no maps.
public enum ValidationError: Error, LocalizedError, Sendable, Equatable {
    /// The path does not exist.
    case noSuchPath(String)
    /// A folder holds no `*.beatmap.json` files.
    case noMaps(String)
    /// Fixes were asked for a map read from standard input, which has no file to write them to.
    case cannotFixStandardInput

    public var errorDescription: String? {
        switch self {
        case .noSuchPath(let path): return "\(path): no such file or directory"
        case .noMaps(let path): return "\(path): no *\(BeatMap.fileExtension) files found"
        case .cannotFixStandardInput:
            return
                "\(MapFileFinder.standardInputName): a map read from standard input has no file to fix: give its path"
        }
    }
}

/// Checks beat-map files against the rules.
public struct Validator: Sendable {
    /// The settings in force.
    public var configuration: ValidationConfiguration
    /// Reads audio files for `audio-mismatch` (and, when it detects onsets, `audio-misaligned`,
    /// `audio-offbeat` and `audio-metric-level`); without one, audio is not checked.
    public var audioInspector: (any AudioInspector)?

    /// A validator with `configuration`, reading audio with `audioInspector`.
    public init(
        configuration: ValidationConfiguration = ValidationConfiguration(), audioInspector: (any AudioInspector)? = nil
    ) {
        self.configuration = configuration
        self.audioInspector = audioInspector
    }

    /// Validates map text. `mapURL` locates `audio.path`; `audio` overrides what the audio file is
    /// (used by rule examples, which have no audio file).
    public func validate(bytes: [UInt8], path: String, mapURL: URL? = nil, audio: AudioFacts? = nil) -> FileReport {
        var report = FileReport(path: path)
        var skipped: [String: SkipReason] = [:]
        switch BeatMapCodec.decode(bytes) {
        case .invalidJSON(let message, let location):
            add(InvalidJSONRule.description, Violation(message, at: location), to: &report)
            skipped[SchemaRule.description.id] = .unreadableMap
            for rule in RuleCatalog.contentRules { skipped[rule.description.id] = .unreadableMap }
        case .schemaViolations(let issues):
            var sink = ViolationSink(limit: configuration.maximumFindingsPerRule)
            for issue in issues { sink.report(Violation(issue.message, at: issue.location), count: issue.count) }
            add(SchemaRule.description, sink, to: &report)
            for rule in RuleCatalog.contentRules { skipped[rule.description.id] = .unreadableMap }
        case .map(let map, let source):
            let audioCheck = audio.map(AudioCheck.facts) ?? inspectAudio(of: map, mapURL: mapURL)
            let context = ValidationContext(map: map, source: source, configuration: configuration, audio: audioCheck)
            if context.gridIsInferred, let segment = context.grid?.segments.first {
                report.notes.append(
                    "no tempo map; checked against \(Describe.bpm(segment.bpm)) anchored at \(Describe.seconds(NumberFormatting.roundedToMicroseconds(segment.time))), inferred from the beat intervals"
                )
            }
            if case .skipped(let reason) = audioCheck, !reason.isEmpty { report.notes.append(reason) }
            if case .missing(let audioPath) = audioCheck {
                let missing = MissingAudio(
                    path: audioPath, location: source.location(ofAudioMember: "path"),
                    required: configuration.requireAudio)
                report.missingAudio = missing
                if !missing.required { report.notes.append(missing.message) }
            }
            for rule in RuleCatalog.contentRules {
                let description = rule.description
                guard configuration.severity(for: description) != nil else { continue }
                let checker = rule.init()
                var sink = ViolationSink(limit: configuration.maximumFindingsPerRule)
                checker.check(context, into: &sink)
                add(description, sink, to: &report)
                if sink.violations.isEmpty, let reason = checker.skipReason(in: context) {
                    skipped[description.id] = reason
                }
            }
        }
        for description in RuleCatalog.descriptions where configuration.severity(for: description) == nil {
            skipped[description.id] = .disabled
        }
        report.skipped = RuleCatalog.ids.compactMap { id in skipped[id].map { SkippedCheck(ruleID: id, reason: $0) } }
        report.findings.sort { ($0.location, $0.beatIndex ?? -1) < ($1.location, $1.beatIndex ?? -1) }
        return report
    }

    private func add(_ description: RuleDescription, _ violation: Violation, to report: inout FileReport) {
        guard let severity = configuration.severity(for: description) else { return }
        report.findings.append(
            Finding(
                ruleID: description.id, severity: severity, message: violation.message, location: violation.location,
                beatIndex: violation.beatIndex, time: violation.time, count: violation.count, fix: violation.fix))
    }

    /// Adds the violations `sink` kept, and one finding that sums up those it only counted.
    private func add(_ description: RuleDescription, _ sink: ViolationSink, to report: inout FileReport) {
        for violation in sink.violations { add(description, violation, to: &report) }
        guard let first = sink.firstOmitted, let limit = sink.limit else { return }
        let more = sink.omitted
        let summary = Violation(
            "\(more) more \(description.id) finding\(more == 1 ? "" : "s") in this file not listed, from here on (the first \(limit) are; \(configuration.findingsLimitName) 0 lists all)",
            at: first.location, beatIndex: first.beatIndex, time: first.time, count: more)
        add(description, summary, to: &report)
    }

    private func inspectAudio(of map: BeatMap, mapURL: URL?) -> AudioCheck {
        let audioRules = [
            AudioMismatchRule.description, AudioMisalignedRule.description, AudioOffbeatRule.description,
            AudioMetricLevelRule.description,
        ]
        guard configuration.checkAudio, audioRules.contains(where: { configuration.severity(for: $0) != nil }) else {
            return .skipped("")
        }
        guard let inspector = audioInspector else { return .skipped("") }
        guard let mapURL else { return .skipped("") }
        guard let url = map.audio.resolvedURL(relativeTo: mapURL) else { return .unnamed }
        guard FileManager.default.fileExists(atPath: url.path) else { return .missing(map.audio.path ?? url.path) }
        do {
            return .facts(try inspector.inspect(url, computeHash: map.audio.sha256 != nil))
        } catch {
            return .unreadable(error.localizedDescription)
        }
    }

    /// Validates the map file at `url`, shown as `path`. Unreadable and oversized files are reported as
    /// `invalid-json` findings.
    public func validateFile(at url: URL, path: String) -> FileReport {
        do {
            let bytes = try BeatMapCodec.readBytes(of: url)
            return validate(bytes: bytes, path: path, mapURL: url)
        } catch {
            var report = FileReport(path: path)
            add(InvalidJSONRule.description, Violation(Self.readProblem(error), at: .start), to: &report)
            return report
        }
    }

    private static func readProblem(_ error: BeatMapError) -> String {
        switch error {
        case .tooLarge(_, let bytes, let limit): return "file is \(bytes) bytes, over the \(limit)-byte limit; not read"
        case .unreadable(_, let reason): return "cannot read the file: \(reason)"
        default: return error.localizedDescription
        }
    }

    /// Validates files and folders (folders: every `*.beatmap.json` below them, sorted), several files
    /// at a time. Reports come back in input order. The path ``MapFileFinder/standardInputPath`` (`-`)
    /// stands for the map `standardInput` returns (read once), shown as `<stdin>`; its relative audio
    /// path is taken from the current folder.
    public func validate(paths: [String], standardInput: () -> [UInt8] = { [] }) async throws(ValidationError)
        -> ValidationReport
    {
        let files = try MapFileFinder.find(paths)
        let piped = files.contains(where: \.isStandardInput) ? standardInput() : []
        let width = Concurrently.availableCores
        let reports = await Concurrently.map(count: files.count, width: width) { index in
            let file = files[index]
            guard file.isStandardInput else { return self.validateFile(at: file.url, path: file.path) }
            return self.validate(bytes: piped, path: file.path, mapURL: file.url)
        }
        return ValidationReport(files: reports)
    }
}

/// Expands paths to map files.
public enum MapFileFinder {
    /// A map file: its URL and the path to show for it.
    public struct File: Sendable, Equatable {
        /// Where it is.
        public var url: URL
        /// How to show it: as given, or the folder as given joined with the path below it.
        public var path: String
        /// Whether it is standard input (``MapFileFinder/standardInputPath``) rather than a file at `url`.
        public var isStandardInput = false
    }

    /// The path that stands for standard input: `-`.
    public static let standardInputPath = "-"

    /// How standard input is shown in reports: `<stdin>`.
    public static let standardInputName = "<stdin>"

    /// Files as given, and every `*.beatmap.json` under folders (hidden entries skipped, sorted).
    public static func find(_ paths: [String]) throws(ValidationError) -> [File] {
        var files: [File] = []
        for path in paths {
            if path == standardInputPath {
                // Taken as a file in the current folder, so a relative audio path resolves from there.
                let url = URL(fileURLWithPath: FileManager.default.currentDirectoryPath, isDirectory: true)
                    .appendingPathComponent(standardInputName)
                files.append(File(url: url, path: standardInputName, isStandardInput: true))
                continue
            }
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
                throw .noSuchPath(path)
            }
            if !isDirectory.boolValue {
                files.append(File(url: URL(fileURLWithPath: path), path: path))
                continue
            }
            let root = URL(fileURLWithPath: path, isDirectory: true)
            let found = FileTree.relativePaths(under: root) { $0.hasSuffix(BeatMap.fileExtension) }
            guard !found.isEmpty else { throw .noMaps(path) }
            let prefix = path.hasSuffix("/") ? path : path + "/"
            for relative in found {
                files.append(File(url: root.appendingPathComponent(relative), path: prefix + relative))
            }
        }
        return files
    }
}
