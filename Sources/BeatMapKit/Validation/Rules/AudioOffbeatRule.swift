// SPDX-License-Identifier: GPL-3.0-or-later

import Foundation

/// `audio-offbeat`: the map's beats sit half a beat out — on the off-beats — against its audio: the
/// points halfway between consecutive beats carry clearly more onset strength than the beats do
/// (≥ ``BeatStrengthProfile/offbeatRatio``×, the stronger in most intervals, over at least 16
/// intervals), the points between those carry under half the midpoints' strength (at most the music's
/// sixteenth notes), and the midpoints alternate like a bar's
/// beats. Where the onsets say nothing clearly and the audio's drums are known, the drums may: the
/// kick and snare sit clearly halfway between the beats (``DrumEvidence/drumShift(of:)``, the
/// analyzer's drum check), and the quarter points carry under half the midpoints' onset strength, as
/// above (a half-tempo map has the music's off-beats there). The fix is a shift of half a beat. Runs
/// only when the audio's onsets and their strengths are known (`beatmap validate --audio`); see
/// ``BeatStrengthProfile/verdict``.
public struct AudioOffbeatRule: ValidationRule {
    static let period = 0.5
    static let start = 0.5
    static let count = 24
    static let duration = "13.0"
    static let rock = OnsetPattern.onsets(OnsetPattern.rock, start: start, period: period, count: count)
    /// Kick on 1 and on the "and" of 2 and 3, snare on 2 and 4, eighth-note hi-hats: its beats and
    /// off-beats are close enough in strength that the onsets alone say nothing about a map half a
    /// beat out.
    static let syncopated = OnsetPattern.onsets(
        [[(0, 0.8), (0.5, 0.45)], [(0, 1.0), (0.5, 0.8)], [(0, 0.45), (0.5, 0.8)], [(0, 1.0), (0.5, 0.45)]],
        start: start, period: period, count: count)
    /// ``syncopated`` with its drums known: the detector's kick and snare on the beats.
    static var syncopatedWithDrums: AudioFacts {
        var facts = syncopated
        facts.drumEvidence = KickTimesEvidence(kicks: (0..<count).map { start + Double($0) * period })
        return facts
    }

    public static let description = RuleDescription(
        id: "audio-offbeat", defaultSeverity: .warning,
        summary: "The beats sit half a beat out: the audio's onsets are clearly stronger between them.",
        needsOnsets: true,
        triggeringExamples: [
            .map(
                beats: OnsetPattern.beats(start: start + period / 2, period: period, count: count - 1),
                duration: duration, audio: rock),
            .map(
                beats: OnsetPattern.beats(start: start + period / 2, period: period, count: count - 1),
                duration: duration,
                audio: OnsetPattern.onsets(OnsetPattern.quarters, start: start, period: period, count: count)),
            // The onsets say nothing clearly; the drums sit halfway between the beats.
            .map(
                beats: OnsetPattern.beats(start: start + period / 2, period: period, count: count - 1),
                duration: duration, audio: syncopatedWithDrums),
        ],
        nonTriggeringExamples: [
            .map(
                beats: OnsetPattern.beats(start: start, period: period, count: count), duration: duration, audio: rock),
            // Syncopated: kick on 1 and on the "and" of 2 and 3, snare on 2 and 4, eighth-note hi-hats.
            .map(
                beats: OnsetPattern.beats(start: start, period: period, count: count), duration: duration,
                audio: syncopated),
            // The same, drums known: they are on the beats.
            .map(
                beats: OnsetPattern.beats(start: start, period: period, count: count), duration: duration,
                audio: syncopatedWithDrums),
            // Half a beat out, the drums not known: the onsets alone say nothing clearly.
            .map(
                beats: OnsetPattern.beats(start: start + period / 2, period: period, count: count - 1),
                duration: duration, audio: syncopated),
            // Off-beats louder than the beats but all alike (a reggae skank): not a bar's beats.
            .map(
                beats: OnsetPattern.beats(start: start, period: period, count: count), duration: duration,
                audio: OnsetPattern.onsets(
                    [
                        [(0, 0.3), (0.5, 0.9)], [(0, 0.3), (0.5, 0.9)], [(0, 0.8), (0.5, 0.9)], [(0, 0.3), (0.5, 0.9)],
                    ],
                    start: start, period: period, count: count)),
            // Onsets without strengths (an inspector that does not measure them): not judged.
            .map(
                beats: OnsetPattern.beats(start: start + period / 2, period: period, count: count - 1),
                duration: duration,
                audio: AudioFacts(duration: 13, sampleRate: 44100, onsets: rock.onsets)),
        ])

    public init() {}

    /// Without the audio's onsets there is nothing to compare the beats with.
    public func skipReason(in context: ValidationContext) -> SkipReason? {
        if let reason = context.audioSkipReason { return reason }
        guard case .facts(let facts) = context.audio, facts.onsets != nil else { return .onsetsNotDetected }
        return nil
    }

    public func check(_ context: ValidationContext, into sink: inout ViolationSink) {
        guard let profile = BeatStrengthProfile(context) else { return }
        switch profile.verdict {
        case .offbeat(let ratio, let shift):
            sink.report(
                Violation(
                    Message.offbeat(ratio: ratio, strongerMidpoints: profile.strongerMidpoints, shift: shift),
                    at: context.source.location(ofMember: "beats"),
                    fix: .shiftBeats(fraction: shift < 0 ? -0.5 : 0.5)))
        case nil:
            // The onsets say nothing clearly; the drums may (see the rule's description).
            guard case .facts(let facts) = context.audio, let drums = facts.drumEvidence,
                profile.quarterPoints.strength < BeatStrengthProfile.subBeats * profile.midpoints.strength,
                drums.drumShift(of: context.map.beats) == 0.5
            else { return }
            let shift = profile.halfBeatShift
            sink.report(
                Violation(
                    Message.drumsOffbeat(shift: shift), at: context.source.location(ofMember: "beats"),
                    fix: .shiftBeats(fraction: shift < 0 ? -0.5 : 0.5)))
        case .level:
            return
        }
    }

    /// The rule's messages.
    enum Message {
        /// The midpoints are `ratio`× stronger than the beats (infinite: the beats have none), in a
        /// `strongerMidpoints` share of the intervals; `shift` moves the beats onto them.
        static func offbeat(ratio: Double, strongerMidpoints: Double, shift: Double) -> String {
            let strength =
                ratio.isFinite
                ? "the onsets halfway between the beats are \(String(format: "%.2f", ratio))× stronger than on them"
                : "the beats carry no onsets but the points halfway between them do"
            let share = Int((strongerMidpoints * 100).rounded())
            return
                "beats look half a beat out: \(strength) (the stronger in \(share) % of the intervals); shift every beat by \(String(format: "%+.3f", shift)) s (half a beat)"
        }

        /// The drums sit halfway between the beats; `shift` moves the beats onto them.
        static func drumsOffbeat(shift: Double) -> String {
            "beats look half a beat out: the drums (kick and snare) sit clearly halfway between the beats; shift every beat by \(String(format: "%+.3f", shift)) s (half a beat)"
        }
    }
}
