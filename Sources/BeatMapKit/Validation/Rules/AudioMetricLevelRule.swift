// SPDX-License-Identifier: GPL-3.0-or-later

import Foundation

/// `audio-metric-level`: another metric level — twice, half, ⅔ or 3⁄2 the map's tempo — fits the
/// audio's onsets clearly better than the map's own: a map at half the music's tempo (its midpoints
/// are the music's other beats), at double it (every other beat lands on a nearly silent off-beat), or
/// a ternary mix-up (only every second or third beat on the music's). The message names the level and
/// its tempo. Runs only when the audio's onsets and their strengths are known (`beatmap validate
/// --audio`); the thresholds and their reasons are those of ``BeatStrengthProfile/verdict``.
public struct AudioMetricLevelRule: ValidationRule {
    static let period = 0.5
    static let start = 0.5
    static let count = 48
    static let duration = "25.0"

    /// `pattern` on the music's beats, and a map with a beat every `step` of them; with
    /// `snareOnOneInFour`, the drums known too: a snare on the second of every four of the music's beats.
    static func example(_ pattern: [[OnsetPattern.Hit]], step: Double, snareOnOneInFour: Bool = false)
        -> RuleExample
    {
        var audio = OnsetPattern.onsets(pattern, start: start, period: period, count: count)
        if snareOnOneInFour {
            audio.drumEvidence = KickTimesEvidence(
                kicks: [], snares: stride(from: 1, to: count, by: 4).map { start + Double($0) * period })
        }
        let beats = Int((Double(count - 1) / step).rounded(.down))
        return .map(
            beats: OnsetPattern.beats(start: start, period: period * step, count: beats), duration: duration,
            audio: audio)
    }

    public static let description = RuleDescription(
        id: "audio-metric-level", defaultSeverity: .warning,
        summary:
            "Another metric level (×2, ½, ⅔, 3⁄2 the map's tempo) clearly fits the audio's onsets better.",
        needsOnsets: true,
        triggeringExamples: [
            // Half the tempo: a beat on every kick, the snares between.
            example(OnsetPattern.rock, step: 2),
            // Double the tempo: every other beat between the music's kick and snare, where nothing sounds.
            example(OnsetPattern.quarters, step: 0.5),
            // 3⁄2 the tempo: only every third beat on the music's.
            example(OnsetPattern.rock, step: 2.0 / 3.0),
            // ⅔ the tempo: every other beat on an off-beat.
            example(OnsetPattern.rock, step: 1.5),
        ],
        nonTriggeringExamples: [
            example(OnsetPattern.rock, step: 1),
            example(OnsetPattern.quarters, step: 1),
            // A shuffle: kick and snare on the beats, the hi-hat on the swung (⅔) eighth.
            example([[(0, 0.8), (2.0 / 3.0, 0.45)], [(0, 1.0), (2.0 / 3.0, 0.45)]], step: 1),
            // Double tempo over loud off-beats: the off-beats might be beats; not clear.
            example(OnsetPattern.rock, step: 0.5),
            // The first triggering example with the drums known: twice the map's tempo would put the
            // snare on one beat in four, so the map may be a back-beat's (hip-hop at 81 BPM, its
            // eighths between the beats) as well as half a half-time feel's; not clear.
            example(OnsetPattern.rock, step: 2, snareOnOneInFour: true),
        ])

    public init() {}

    /// Without the audio's onsets there is nothing to compare the beats with.
    public func skipReason(in context: ValidationContext) -> SkipReason? {
        if let reason = context.audioSkipReason { return reason }
        guard case .facts(let facts) = context.audio, facts.onsets != nil else { return .onsetsNotDetected }
        return nil
    }

    public func check(_ context: ValidationContext, into sink: inout ViolationSink) {
        guard let profile = BeatStrengthProfile(context), case .level(let level, let ratio) = profile.verdict else {
            return
        }
        // Where twice the map's tempo would put the snare on one beat in four, the map's beats are a
        // back-beat's and twice them a half-time feel's: the onsets between the beats do not settle
        // which (the analyzer takes the level its tempo prior prefers), so the level is not clearly
        // wrong.
        if level == .double, case .facts(let facts) = context.audio, let drums = facts.drumEvidence {
            let beats = context.map.beats
            let doubled = zip(beats, beats.dropFirst()).flatMap { [$0, ($0 + $1) / 2] } + beats.suffix(1)
            if drums.snareOnOneInFour(of: doubled) { return }
        }
        sink.report(
            Violation(
                Message.betterLevel(level, ratio: ratio, profile: profile),
                at: context.source.location(ofMember: "beats"), fix: .metricLevel(level)))
    }

    /// The rule's messages.
    enum Message {
        /// `level` explains the onsets better than the map's own tempo: its points carry `ratio` the
        /// strength the map's beats do.
        static func betterLevel(_ level: MetricLevel, ratio: Double, profile: BeatStrengthProfile) -> String {
            func tempo(_ bpm: Double) -> String { String(format: "%.1f BPM", bpm) }
            func times(_ value: Double) -> String { String(format: "%.2f×", value) }
            func list(_ beats: [Int]) -> String { beats.map { String($0 + 1) }.joined(separator: ", ") + ", …" }
            let mapTempo = tempo(profile.bpm)
            let better = "the \(level.label) level (\(tempo(profile.bpm * level.factor))"
            let message: String
            switch level {
            case .double:
                message =
                    "the map looks like half the music's tempo (\(mapTempo)): the points halfway between its beats carry \(times(ratio)) the beats' onset strength; \(better)) fits better"
            case .half:
                let (strong, weak) =
                    profile.evenBeats.strength >= profile.oddBeats.strength
                    ? (profile.evenBeats, profile.oddBeats) : (profile.oddBeats, profile.evenBeats)
                let weakness =
                    ratio > 0 ? "carries only \(times(ratio)) the onset strength of the others" : "has no onsets"
                message =
                    "the map looks like double the music's tempo (\(mapTempo)): every other beat (beats \(list(weak.beats))) \(weakness), with nothing between the beats; \(better), beats \(list(strong.beats))) fits better"
            case .twoThirds:
                message =
                    "the map looks like 3⁄2 of the music's tempo (\(mapTempo)): points every 1½ beats (through beats \(list(profile.everyThreeHalves.beats))) carry \(times(ratio)) the beats' onset strength; \(better)) fits better"
            case .threeHalves:
                message =
                    "the map looks like ⅔ of the music's tempo (\(mapTempo)): points every ⅔ of a beat (through beats \(list(profile.everyTwoThirds.beats))) carry \(times(ratio)) the beats' onset strength; \(better)) fits better"
            }
            return message
        }
    }
}
