// SPDX-License-Identifier: GPL-3.0-or-later

/// `audio-mismatch`: the audio file named by `audio.path` is not the audio the map was made for: its
/// real duration differs from `audio.duration` by more than 10 ms, its sample rate differs from
/// `audio.sampleRate`, its SHA-256 differs from `audio.sha256`, or it cannot be decoded.
public struct AudioMismatchRule: ValidationRule {
    public static let description = RuleDescription(
        id: "audio-mismatch", defaultSeverity: .error,
        summary: "The audio file's real duration, sample rate or SHA-256 differs from the map's audio block.",
        triggeringExamples: [
            .map(
                beats: "[0.5]", duration: "8.0", extraAudio: ", \"path\": \"a.ogg\"",
                audio: AudioFacts(duration: 8.5, sampleRate: 44100)),
            .map(
                beats: "[0.5]", duration: "8.0",
                extraAudio: ", \"path\": \"a.ogg\", \"sha256\": \"\(String(repeating: "ab", count: 32))\"",
                audio: AudioFacts(duration: 8.0, sampleRate: 44100, sha256: String(repeating: "cd", count: 32))),
            .map(
                beats: "[0.5]", duration: "8.0", extraAudio: ", \"path\": \"a.ogg\", \"sampleRate\": 48000",
                audio: AudioFacts(duration: 8.0, sampleRate: 44100)),
        ],
        nonTriggeringExamples: [
            .map(
                beats: "[0.5]", duration: "8.0", extraAudio: ", \"path\": \"a.ogg\"",
                audio: AudioFacts(duration: 8.004, sampleRate: 44100)),
            .map(beats: "[0.5]", duration: "8.0"),
        ])

    public init() {}

    public func check(_ context: ValidationContext, into sink: inout ViolationSink) {
        let audio = context.map.audio
        switch context.audio {
        case .skipped:
            return
        case .unnamed:
            guard context.configuration.requireAudio else { return }
            sink.report(Violation(Message.unnamed, at: context.source.location(ofMember: "audio")))
        case .missing(let path):
            guard context.configuration.requireAudio else { return }
            sink.report(Violation(Message.missing(path: path), at: context.source.location(ofAudioMember: "path")))
        case .unreadable(let reason):
            sink.report(
                Violation(
                    Message.unreadable(path: audio.path ?? "", reason: reason),
                    at: context.source.location(ofAudioMember: "path")))
        case .facts(let facts):
            let difference = facts.duration - audio.duration
            if abs(difference) > context.configuration.audioDurationTolerance {
                sink.report(
                    Violation(
                        Message.duration(actual: facts.duration, stated: audio.duration, difference: difference),
                        at: context.source.location(ofAudioMember: "duration")))
            }
            if let rate = audio.sampleRate, rate != facts.sampleRate {
                sink.report(
                    Violation(
                        Message.sampleRate(actual: facts.sampleRate, stated: rate),
                        at: context.source.location(ofAudioMember: "sampleRate")))
            }
            if let expected = audio.sha256, let actual = facts.sha256, expected != actual {
                sink.report(
                    Violation(
                        Message.hash(actual: actual, stated: expected),
                        at: context.source.location(ofAudioMember: "sha256")))
            }
        }
    }

    /// The audio could not be compared: not opened, not named, not there or not readable (the last is a
    /// finding, not a skip).
    public func skipReason(in context: ValidationContext) -> SkipReason? {
        switch context.audio {
        case .facts, .unreadable: return nil
        case .unnamed, .missing: return context.configuration.requireAudio ? nil : context.audioSkipReason
        case .skipped: return context.audioSkipReason
        }
    }

    /// The rule's messages.
    enum Message {
        /// The map names no audio file although audio is required.
        static let unnamed = "the map names no audio file (audio.path), but its audio is required"

        /// The audio file at `path` does not exist although audio is required.
        static func missing(path: String) -> String {
            "audio file \(path) not found, but the audio is required"
        }

        /// The audio file at `path` exists but cannot be decoded.
        static func unreadable(path: String, reason: String) -> String {
            "audio file \(path) cannot be read: \(reason)"
        }

        /// The audio lasts `actual` seconds, not the `stated` ones.
        static func duration(actual: Double, stated: Double, difference: Double) -> String {
            "audio file lasts \(Describe.seconds(actual)) but audio.duration says \(Describe.seconds(stated)) (\(Describe.milliseconds(difference, signed: true))); the map may no longer match its audio"
        }

        /// The audio is at `actual` Hz, not the `stated` rate.
        static func sampleRate(actual: Int, stated: Int) -> String {
            "audio file is at \(actual) Hz but audio.sampleRate says \(stated) Hz"
        }

        /// The audio's hash is `actual`, not the `stated` one.
        static func hash(actual: String, stated: String) -> String {
            "audio file's SHA-256 is \(actual), not \(stated) as audio.sha256 says; the audio has changed since the map was made"
        }
    }
}
