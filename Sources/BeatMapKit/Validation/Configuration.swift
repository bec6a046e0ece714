// SPDX-License-Identifier: GPL-3.0-or-later

public import Foundation

/// Settings for a validation run: rule severities, tolerances and limits.
public struct ValidationConfiguration: Sendable, Equatable {
    /// The name of the configuration file looked up from the current folder upwards.
    public static let fileName = ".beatmaplint.json"

    /// Severities that replace rules' defaults, by rule id.
    public var severities: [String: Severity] = [:]
    /// Rules that do not run.
    public var disabledRules: Set<String> = []
    /// How far a beat may sit from its grid point (seconds). Default 5 ms.
    public var gridTolerance: TimeInterval = 0.005
    /// The beat subdivisions a beat may lie on (1 = beats only). Default `[1]`.
    public var subdivisions: [Int] = [1]
    /// The game's hit window, ± seconds. Default 150 ms (``HitWindow/standard``; assist mode:
    /// ``HitWindow/assist``, 300 ms).
    public var hitWindow: TimeInterval = HitWindow.standard.seconds
    /// The longest interval between beats, in beats, before `gap` reports it. Default 1.5.
    public var maximumGapBeats: Double = 1.5
    /// How far the audio's real duration may differ from `audio.duration` (seconds). Default 10 ms.
    public var audioDurationTolerance: TimeInterval = 0.010
    /// How far the beats may sit from the audio's onsets before `audio-misaligned` reports them
    /// (seconds). Default 15 ms.
    public var misalignmentTolerance: TimeInterval = 0.015
    /// Whether audio files are opened for `audio-mismatch`.
    public var checkAudio = true
    /// Whether every map's audio must be there when audio is checked: a missing audio file (or a map
    /// that names none) is then an `audio-mismatch` error instead of a note. Default `false`: audio is
    /// often kept out of repositories.
    public var requireAudio = false
    /// Findings listed per rule and file (`nil`: all). Beyond it one finding sums up the rest with
    /// their count, which the error and warning totals include. Default 100: a map whose every beat is
    /// off the grid says so without a million lines (or gigabytes of memory).
    public var maximumFindingsPerRule: Int? = 100
    /// How the finding that sums up those not listed names the setting that lists them all, to the
    /// user who reads it: by default the configuration file's member; a front end with a control of its
    /// own for it adds that control's name.
    public var findingsLimitName = "maxFindingsPerRule"

    /// Default settings.
    public init() {}

    /// The severity in force for rule `id` (its default unless configured), or `nil` when disabled.
    public func severity(for description: RuleDescription) -> Severity? {
        if disabledRules.contains(description.id) { return nil }
        return severities[description.id] ?? description.defaultSeverity
    }

    /// A copy of these settings with `change` applied: `ValidationConfiguration().with { $0.subdivisions = [1, 2] }`.
    public func with(_ change: (inout ValidationConfiguration) -> Void) -> ValidationConfiguration {
        var copy = self
        change(&copy)
        return copy
    }

    /// Whether the map is a full beat map (one beat per beat) rather than a note map on subdivisions.
    public var isFullBeatMap: Bool { subdivisions == [1] }

    /// The beat subdivisions a map may use: 1 (beats) to 64.
    public static let subdivisionRange = 1...64

    /// Whether `value` is a usable subdivision: a whole number in ``subdivisionRange``.
    public static func isValidSubdivision(_ value: Double) -> Bool {
        value == value.rounded() && value >= Double(subdivisionRange.lowerBound)
            && value <= Double(subdivisionRange.upperBound)
    }
}

/// Where a validation run's configuration file comes from.
public enum ConfigurationFileChoice: Sendable, Equatable {
    /// This file.
    case file(URL)
    /// The nearest ``ValidationConfiguration/fileName`` in this folder or one of its ancestors, if any.
    case nearest(from: URL)
    /// None: the defaults and the overrides only.
    case none
}

/// Settings given on top of the defaults and the configuration file (a front end's own controls, such
/// as a command's flags): each one given replaces the file's.
public struct ValidationOverrides: Sendable, Equatable {
    /// ``ValidationConfiguration/gridTolerance``.
    public var gridTolerance: TimeInterval?
    /// ``ValidationConfiguration/subdivisions``.
    public var subdivisions: [Int]?
    /// ``ValidationConfiguration/hitWindow``.
    public var hitWindow: TimeInterval?
    /// ``ValidationConfiguration/maximumGapBeats``.
    public var maximumGapBeats: Double?
    /// ``ValidationConfiguration/audioDurationTolerance``.
    public var audioDurationTolerance: TimeInterval?
    /// ``ValidationConfiguration/misalignmentTolerance``.
    public var misalignmentTolerance: TimeInterval?
    /// ``ValidationConfiguration/checkAudio``.
    public var checkAudio: Bool?
    /// ``ValidationConfiguration/requireAudio``.
    public var requireAudio: Bool?
    /// ``ValidationConfiguration/maximumFindingsPerRule``; 0 lists all.
    public var maximumFindingsPerRule: Int?
    /// ``ValidationConfiguration/findingsLimitName``.
    public var findingsLimitName: String?
    /// Rule settings, applied in order after the file's.
    public var rules: [RuleSetting] = []

    /// No overrides.
    public init() {}
}

/// One rule's setting: `error`, `warning` or `off`, and where it was given (for messages).
public struct RuleSetting: Sendable, Equatable {
    /// The rule id.
    public var id: String
    /// `error`, `warning` or `off`.
    public var setting: String
    /// Where it was given, as messages name it.
    public var origin: String

    /// Rule `id` set to `setting`, given at `origin`.
    public init(id: String, setting: String, origin: String) {
        self.id = id
        self.setting = setting
        self.origin = origin
    }
}

/// A configuration file or flag that cannot be used.
public struct ConfigurationError: Error, LocalizedError, Sendable, Equatable {
    /// What is wrong, naming the file or flag.
    public var message: String

    /// An error with `message`.
    public init(_ message: String) { self.message = message }

    public var errorDescription: String? { message }
}

extension ValidationConfiguration {
    /// Applies a rule setting: `error`, `warning` or `off`. Unknown rule ids are refused.
    public mutating func setRule(_ id: String, to setting: String, origin: String) throws(ConfigurationError) {
        guard RuleCatalog.ids.contains(id) else {
            throw ConfigurationError(
                "\(origin): unknown rule '\(id)' (known: \(RuleCatalog.ids.joined(separator: ", ")))")
        }
        switch setting {
        case "off":
            disabledRules.insert(id)
        case "error", "warning":
            disabledRules.remove(id)
            severities[id] = setting == "error" ? .error : .warning
        default:
            throw ConfigurationError("\(origin): rule '\(id)' must be set to error, warning or off, not '\(setting)'")
        }
    }

    /// Applies the settings of a configuration file on top of `self`.
    ///
    /// The file is a JSON object; every member is optional:
    /// `{"rules": {"gap": "error", "hit-window-overlap": "off"}, "toleranceMs": 5, "subdivisions": [1, 2],
    ///   "hitWindowMs": 150, "maxGapBeats": 1.5, "durationToleranceMs": 10, "misalignmentMs": 15,
    ///   "maxFindingsPerRule": 100, "checkAudio": true, "requireAudio": false}`.
    /// Unknown members are refused so that a misspelt setting is not silently ignored.
    public mutating func apply(configurationFileAt url: URL) throws(ConfigurationError) {
        let path = url.path
        let bytes: [UInt8]
        do {
            bytes = try BeatMapCodec.readBytes(of: url, limit: 1 << 20)
        } catch {
            throw ConfigurationError(error.localizedDescription)
        }
        let root: JSONNode
        do {
            root = try JSONParser.parse(bytes)
        } catch {
            let location = LineIndex(bytes).location(ofOffset: error.offset)
            throw ConfigurationError("\(path):\(location): invalid JSON: \(error.message)")
        }
        guard case .object(let members) = root.kind else {
            throw ConfigurationError("\(path): the configuration must be a JSON object")
        }
        let lines = LineIndex(bytes)
        for member in members {
            let origin = "\(path):\(lines.location(ofOffset: member.value.offset))"
            let value = member.value.value
            func number() throws(ConfigurationError) -> Double {
                guard let number = value.doubleValue, number.isFinite, number >= 0 else {
                    throw ConfigurationError("\(origin): \"\(member.key)\" must be a non-negative number")
                }
                return number
            }
            switch member.key {
            case "rules":
                guard let rules = value.objectValue else {
                    throw ConfigurationError("\(origin): \"rules\" must be an object of rule id → error|warning|off")
                }
                for rule in rules {
                    guard let setting = rule.value.stringValue else {
                        throw ConfigurationError(
                            "\(origin): rule '\(rule.key)' must be set to \"error\", \"warning\" or \"off\"")
                    }
                    try setRule(rule.key, to: setting, origin: origin)
                }
            case "toleranceMs": gridTolerance = try number() / 1000
            case "hitWindowMs": hitWindow = try number() / 1000
            case "maxGapBeats": maximumGapBeats = try number()
            case "durationToleranceMs": audioDurationTolerance = try number() / 1000
            case "misalignmentMs": misalignmentTolerance = try number() / 1000
            case "maxFindingsPerRule":
                let limit = try number()
                guard limit == limit.rounded(), limit <= Double(Int32.max) else {
                    throw ConfigurationError("\(origin): \"maxFindingsPerRule\" must be a whole number (0: no limit)")
                }
                maximumFindingsPerRule = limit == 0 ? nil : Int(limit)
            case "checkAudio", "requireAudio":
                guard case .bool(let flag) = value else {
                    throw ConfigurationError("\(origin): \"\(member.key)\" must be true or false")
                }
                if member.key == "checkAudio" { checkAudio = flag } else { requireAudio = flag }
            case "subdivisions":
                guard let list = value.arrayValue,
                    let values = Optional(list.compactMap { $0.doubleValue }), values.count == list.count,
                    !values.isEmpty, values.allSatisfy(Self.isValidSubdivision)
                else {
                    throw ConfigurationError("\(origin): \"subdivisions\" must be a list of whole numbers from 1 to 64")
                }
                subdivisions = values.map { Int($0) }
            default:
                throw ConfigurationError(
                    "\(origin): unknown setting \"\(member.key)\" (known: rules, toleranceMs, subdivisions, hitWindowMs, maxGapBeats, durationToleranceMs, misalignmentMs, maxFindingsPerRule, checkAudio, requireAudio)"
                )
            }
        }
    }

    /// The configuration of a run: the defaults, then the configuration file `file` chooses, then
    /// `overrides`.
    public static func resolved(file: ConfigurationFileChoice, overrides: ValidationOverrides)
        throws(ConfigurationError) -> ValidationConfiguration
    {
        var configuration = ValidationConfiguration()
        switch file {
        case .file(let url): try configuration.apply(configurationFileAt: url)
        case .nearest(let folder):
            if let found = findConfigurationFile(from: folder) { try configuration.apply(configurationFileAt: found) }
        case .none: break
        }
        try configuration.apply(overrides)
        return configuration
    }

    /// Applies `overrides` on top of `self`.
    public mutating func apply(_ overrides: ValidationOverrides) throws(ConfigurationError) {
        if let value = overrides.gridTolerance { gridTolerance = value }
        if let value = overrides.subdivisions { subdivisions = value }
        if let value = overrides.hitWindow { hitWindow = value }
        if let value = overrides.maximumGapBeats { maximumGapBeats = value }
        if let value = overrides.audioDurationTolerance { audioDurationTolerance = value }
        if let value = overrides.misalignmentTolerance { misalignmentTolerance = value }
        if let value = overrides.checkAudio { checkAudio = value }
        if let value = overrides.requireAudio { requireAudio = value }
        if let value = overrides.maximumFindingsPerRule { maximumFindingsPerRule = value == 0 ? nil : value }
        if let value = overrides.findingsLimitName { findingsLimitName = value }
        for rule in overrides.rules { try setRule(rule.id, to: rule.setting, origin: rule.origin) }
    }

    /// The nearest ``fileName`` in `folder` or one of its ancestors, if any.
    public static func findConfigurationFile(from folder: URL) -> URL? {
        var current = folder.standardizedFileURL
        while true {
            let candidate = current.appendingPathComponent(fileName)
            if FileManager.default.fileExists(atPath: candidate.path) { return candidate }
            let parent = current.deletingLastPathComponent()
            if parent.path == current.path { return nil }
            current = parent
        }
    }
}
