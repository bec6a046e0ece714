// SPDX-License-Identifier: GPL-3.0-or-later

import Foundation

/// `bar-phase`: the map's downbeats disagree with the audio's clearest bar phase — its bar lines look
/// one or more beats early or late against the audio (a kick, a bass note or a chord change falls on
/// another beat of the bar far more often). Runs only when the audio's bar evidence is known
/// (`beatmap validate --audio`) and the map gives one meter; the evidence is asked for the phase of the
/// map's own meter over the map's own beats, and only a phase it is sure of
/// (``minimumConfidence``) is reported.
public struct BarPhaseRule: ValidationRule {
    /// The least probability of the audio's phase (over all phases of the map's meter) for a finding.
    public static let minimumConfidence = 0.9

    static let period = 0.5
    static let start = 0.5
    static let count = 48

    /// A map of `count` beats in bars of four, its first downbeat at beat `downbeat`, over audio whose
    /// downbeats (the loud kick) are at beat `audioDownbeat`.
    static func example(downbeat: Int, audioDownbeat: Int, meter: Int = 4) -> RuleExample {
        let pattern: [[OnsetPattern.Hit]] =
            (0..<meter).map { ($0 - audioDownbeat % meter + meter) % meter == 0 ? [(0, 1.0)] : [(0, 0.4)] }
        let onsets = OnsetPattern.onsets(pattern, start: start, period: period, count: count)
        var audio = onsets
        audio.barEvidence = OnsetAccentEvidence(onsets: onsets.onsets ?? [], strengths: onsets.onsetStrengths ?? [])
        let anchor = start + Double(downbeat) * period
        return .map(
            beats: OnsetPattern.beats(start: start, period: period, count: count),
            tempo: "[{ \"time\": \(anchor), \"bpm\": 120, \"beatsPerBar\": \(meter) }]", duration: "25.0",
            audio: audio)
    }

    public static let description = RuleDescription(
        id: "bar-phase", defaultSeverity: .warning,
        summary: "The map's downbeats disagree with the audio's clearest bar phase (bar lines a beat early or late).",
        needsOnsets: true,
        triggeringExamples: [
            // Bar lines one beat early: the loud beat is the map's second beat of each bar.
            example(downbeat: 0, audioDownbeat: 1),
            // Bar lines one beat late.
            example(downbeat: 1, audioDownbeat: 0),
            // A waltz counted from its third beat.
            example(downbeat: 2, audioDownbeat: 0, meter: 3),
        ],
        nonTriggeringExamples: [
            example(downbeat: 0, audioDownbeat: 0),
            example(downbeat: 1, audioDownbeat: 1, meter: 3),
            // No meter in the map: nothing to compare.
            .map(
                beats: OnsetPattern.beats(start: start, period: period, count: count),
                tempo: "[{ \"time\": 0.5, \"bpm\": 120 }]", duration: "25.0",
                audio: example(downbeat: 0, audioDownbeat: 1).audio),
        ])

    public init() {}

    /// Without the audio's bar evidence (computed with its onsets) there is nothing to compare the bars
    /// with.
    public func skipReason(in context: ValidationContext) -> SkipReason? {
        if let reason = context.audioSkipReason { return reason }
        guard case .facts(let facts) = context.audio, facts.barEvidence != nil else { return .onsetsNotDetected }
        return nil
    }

    public func check(_ context: ValidationContext, into sink: inout ViolationSink) {
        guard case .facts(let facts) = context.audio, let evidence = facts.barEvidence else { return }
        let map = context.map
        guard let meters = map.tempo.map({ Set($0.compactMap(\.beatsPerBar)) }), meters.count == 1,
            let perBar = meters.first, perBar >= 2,
            map.beats.allSatisfy(\.isFinite), zip(map.beats.dropFirst(), map.beats).allSatisfy({ $0 > $1 })
        else { return }
        let positions = BarPositions.positions(of: map)
        guard let firstDownbeat = positions.firstIndex(where: { $0 == 1 }) else { return }
        // The map's bars must run one beat per map beat (no gaps), as the evidence counts them.
        let consistent = positions.indices.filter { index in
            positions[index] == ((index - firstDownbeat) % perBar + perBar) % perBar + 1
        }
        guard consistent.count * 10 >= positions.count * 9 else { return }
        guard let reading = evidence.barPhase(of: map.beats, beatsPerBar: perBar),
            reading.confidence >= Self.minimumConfidence
        else { return }
        let mapPhase = firstDownbeat % perBar
        let shift = ((reading.firstDownbeat - mapPhase) % perBar + perBar) % perBar
        guard shift != 0 else { return }
        let audioDownbeat = reading.firstDownbeat
        sink.report(
            Violation(
                Message.disagree(
                    shift: shift, perBar: perBar, confidence: reading.confidence,
                    audioDownbeat: map.beats[audioDownbeat], mapDownbeat: map.beats[firstDownbeat]),
                at: context.source.location(ofMember: "tempo"),
                fix: .shiftBars(beats: shift <= perBar / 2 ? shift : shift - perBar, segment: .all)))
    }

    /// The rule's messages.
    enum Message {
        /// The audio's downbeats fall `shift` beats after the map's (modulo a bar of `perBar`).
        static func disagree(
            shift: Int, perBar: Int, confidence: Double, audioDownbeat: Double, mapDownbeat: Double
        ) -> String {
            let early = shift * 2 <= perBar
            let beats = early ? shift : perBar - shift
            let direction = early ? "early" : "late"
            let fix = early ? "later" : "earlier"
            return String(
                format:
                    "bar lines look %d beat%@ %@ against the audio: its clearest downbeats (probability %.2f) fall on the beat at %.3f s, not %.3f s; moving the bars %d beat%@ %@ puts them there",
                beats, beats == 1 ? "" : "s", direction, confidence, audioDownbeat, mapDownbeat, beats,
                beats == 1 ? "" : "s", fix)
        }
    }
}
