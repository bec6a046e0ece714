// SPDX-License-Identifier: GPL-3.0-or-later

/// Why a rule did not check a map. A rule that did not run has not passed: reporters that list rules
/// (JUnit's test cases) show it as skipped, with this reason.
public enum SkipReason: Sendable, Equatable, CustomStringConvertible {
    /// The rule is turned off.
    case disabled
    /// The map could not be read (it is not JSON, or not a beat map), so no content rule ran.
    case unreadableMap
    /// Audio files are not opened in this run.
    case audioNotChecked
    /// The map names no audio file (`audio.path`).
    case noAudioPath
    /// The audio file the map names does not exist (the path as the map writes it).
    case audioMissing(path: String)
    /// The audio file exists but could not be decoded (`audio-mismatch` reports it).
    case audioUnreadable
    /// The audio was read but its onsets were not detected (a slower inspection does that).
    case onsetsNotDetected
    /// The map is a note map on subdivisions; the rule checks full beat maps only.
    case noteMap
    /// The map has no usable tempo grid (`invalid-tempo` says why) and none could be inferred.
    case noTempoGrid

    /// The reason, for a person.
    public var description: String {
        switch self {
        case .disabled: return "the rule is turned off"
        case .unreadableMap: return "the map could not be read"
        case .audioNotChecked: return "audio files are not opened in this run"
        case .noAudioPath: return "the map names no audio file (audio.path)"
        case .audioMissing(let path): return "audio file \(path) not found"
        case .audioUnreadable: return "the audio file could not be read"
        case .onsetsNotDetected: return "the audio's onsets were not detected"
        case .noteMap: return "it checks full beat maps only, not note maps on subdivisions"
        case .noTempoGrid: return "the map has no usable tempo grid"
        }
    }

    /// What the user can do to have the rule run, if anything.
    public var remedy: Remedy? {
        switch self {
        case .onsetsNotDetected: return .detectOnsets
        default: return nil
        }
    }
}

/// A rule that did not check one map, and why.
public struct SkippedCheck: Sendable, Equatable {
    /// The rule's id.
    public var ruleID: String
    /// Why it did not run.
    public var reason: SkipReason

    /// Rule `ruleID` skipped for `reason`.
    public init(ruleID: String, reason: SkipReason) {
        self.ruleID = ruleID
        self.reason = reason
    }
}

/// The audio file a map names, when it is not there: CI without the audio (Git LFS not pulled, audio
/// kept out of the repository). Every reporter shows it; when the audio is required it is also an
/// `audio-mismatch` error.
public struct MissingAudio: Sendable, Equatable {
    /// The path as the map writes it (`audio.path`).
    public var path: String
    /// Where `audio.path` is written in the map.
    public var location: SourceLocation
    /// Whether the run required the audio (then the file's absence is an error finding too).
    public var required: Bool

    /// The missing file `path`, named at `location`.
    public init(path: String, location: SourceLocation, required: Bool) {
        self.path = path
        self.location = location
        self.required = required
    }

    /// `audio file Audio/a.ogg not found; audio checks skipped`.
    public var message: String { "audio file \(path) not found; audio checks skipped" }
}
