// SPDX-License-Identifier: GPL-3.0-or-later

import Foundation

/// `audio-misaligned`: the map's beats sit consistently early or late against the onsets of its audio
/// (a track re-exported with encoder padding, or an intro shifted after the map was made). The offset
/// is the median, over the beats that have an onset near them, of `onset − beat`, after aligning the
/// two at the shift (±100 ms) where most beats meet an onset. Where the audio's drums are known, an
/// offset that would put the beats on a pickup a sixteenth before the drums' beat is not reported: the
/// onsets there outnumber the beat's own when a bass drum plays each beat and the sixteenth before it
/// (samba, bossa nova), and the map is on the beat (``DrumEvidence/pickupShift(of:)``). Runs only when
/// the audio's onsets are known (`beatmap validate --audio`).
public struct AudioMisalignedRule: ValidationRule {
    /// The largest offset searched for, in seconds.
    public static let searchRange = 0.100
    /// How near an onset must be to the shifted beat to count, in seconds.
    public static let matchWindow = 0.010
    /// Fewest matched beats (and at least a quarter of the beats) for an offset to be reported.
    public static let minimumMatches = 8

    /// A `beats` array text of `count` beats `interval` apart from `start`.
    static func beats(from start: Double, count: Int, interval: Double) -> String {
        var items: [String] = []
        for index in 0..<count { items.append(NumberFormatting.decimal(start + Double(index) * interval)) }
        return "[" + items.joined(separator: ", ") + "]"
    }

    /// Onsets on every beat and every half beat, `shift` seconds after the beats.
    static func onsets(from start: Double, count: Int, interval: Double, shift: Double) -> [Double] {
        var result: [Double] = []
        for index in 0..<count {
            let beat = start + Double(index) * interval + shift
            result.append(beat)
            result.append(beat + interval / 2 + 0.003)
        }
        return result
    }

    /// A bass drum on every beat and the sixteenth before it, at 166⅔ BPM (0.36 s a beat) from 0.5 s,
    /// whose onsets are found at every pickup and only at every fourth beat (the pickup's ring masks
    /// the rest): 24 beats.
    static let pickupKicks: [Double] = (0..<24).flatMap { index -> [Double] in
        let beat = 0.5 + Double(index) * 0.36
        return [beat - 0.09, beat]
    }
    static let pickupOnsets: [Double] = (0..<24).flatMap { index -> [Double] in
        let beat = 0.5 + Double(index) * 0.36
        return index.isMultiple(of: 4) ? [beat - 0.09, beat] : [beat - 0.09]
    }

    public static let description = RuleDescription(
        id: "audio-misaligned", defaultSeverity: .warning,
        summary: "The beats sit consistently early or late (> 15 ms) against the audio's onsets.", needsOnsets: true,
        triggeringExamples: [
            .map(
                beats: beats(from: 0.5, count: 16, interval: 0.5), duration: "9.0",
                audio: AudioFacts(
                    duration: 9, sampleRate: 44100, onsets: onsets(from: 0.5, count: 16, interval: 0.5, shift: 0.032))),
            // The pickup audio of the non-triggering example below, its drums not known: the onsets
            // point onto the pickups.
            .map(
                beats: beats(from: 0.5, count: 24, interval: 0.36), duration: "9.5",
                audio: AudioFacts(duration: 9.5, sampleRate: 44100, onsets: pickupOnsets)),
            // Drums known, kicks on the onsets 32 ms after the beats: an offset, not a pickup.
            .map(
                beats: beats(from: 0.5, count: 16, interval: 0.5), duration: "9.0",
                audio: AudioFacts(
                    duration: 9, sampleRate: 44100, onsets: onsets(from: 0.5, count: 16, interval: 0.5, shift: 0.032),
                    drumEvidence: KickTimesEvidence(kicks: (0..<16).map { 0.5 + Double($0) * 0.5 + 0.032 }))),
            .map(
                beats: beats(from: 1.0, count: 20, interval: 0.4), duration: "9.5",
                audio: AudioFacts(
                    duration: 9.5, sampleRate: 44100, onsets: onsets(from: 1.0, count: 20, interval: 0.4, shift: -0.047)
                )),
        ],
        nonTriggeringExamples: [
            .map(
                beats: beats(from: 0.5, count: 16, interval: 0.5), duration: "9.0",
                audio: AudioFacts(
                    duration: 9, sampleRate: 44100, onsets: onsets(from: 0.5, count: 16, interval: 0.5, shift: 0.006))),
            // On the beat of a bass drum with a pickup: the onsets alone point 90 ms earlier, onto the
            // pickups; the drums say those would be the pickups.
            .map(
                beats: beats(from: 0.5, count: 24, interval: 0.36), duration: "9.5",
                audio: AudioFacts(
                    duration: 9.5, sampleRate: 44100, onsets: pickupOnsets,
                    drumEvidence: KickTimesEvidence(kicks: pickupKicks))),
            .map(
                beats: beats(from: 0.5, count: 16, interval: 0.5), duration: "9.0",
                audio: AudioFacts(duration: 9, sampleRate: 44100)),
            .map(
                beats: beats(from: 0.5, count: 16, interval: 0.5), duration: "9.0",
                audio: AudioFacts(duration: 9, sampleRate: 44100, onsets: [0.9, 3.3, 7.1])),
        ])

    public init() {}

    /// The signed offset `onset − beat` (positive: the audio is later than the beats) and how many
    /// beats it rests on, or `nil` when too few beats meet an onset.
    public static func offset(beats: [Double], onsets: [Double]) -> (seconds: Double, matched: Int)? {
        let sorted = onsets.filter(\.isFinite).sorted()
        let finite = beats.filter(\.isFinite)
        guard !sorted.isEmpty, !finite.isEmpty else { return nil }
        func nearest(_ t: Double) -> Double { sorted[SortedSearch.nearest(sorted, t).index] - t }
        // The shift (in 1 ms steps) at which most beats meet an onset; ties go to the smallest shift.
        let steps = Int((searchRange * 1000).rounded())
        let counts = Self.matchCounts(beats: finite, sortedOnsets: sorted, steps: steps)
        var bestShift = 0.0
        var bestCount = -1
        for step in 0...(2 * steps) {
            let shift = Double(step - steps) / 1000
            let count = counts[step]
            if count > bestCount || (count == bestCount && abs(shift) < abs(bestShift)) {
                bestCount = count
                bestShift = shift
            }
        }
        var offsets: [Double] = []
        for beat in finite {
            let distance = nearest(beat + bestShift)
            if abs(distance) <= 2 * matchWindow { offsets.append(bestShift + distance) }
        }
        guard offsets.count >= max(minimumMatches, finite.count / 4) else { return nil }
        offsets.sort()
        let middle = offsets.count / 2
        let median = offsets.count % 2 == 1 ? offsets[middle] : (offsets[middle - 1] + offsets[middle]) / 2
        return (median, offsets.count)
    }

    /// For each shift `step − steps` ms (`step` in `0...2 × steps`), how many of `beats` lie within
    /// ``matchWindow`` of an onset once shifted: `abs(onset − (beat + shift)) <= matchWindow` for some
    /// onset of `sortedOnsets` (sorted, finite), computed as that expression.
    ///
    /// Each beat reads only the onsets it can reach (within the search range and the window of it),
    /// and for each of those only the shifts around the one that takes the beat onto it, where the
    /// same comparison is made; a beat counts once at a shift however many onsets it meets there.
    /// So the counts are those of asking every beat at every shift for its nearest onset, which this
    /// replaced (session 91): 201 binary searches a beat became a few comparisons.
    static func matchCounts(beats: [Double], sortedOnsets sorted: [Double], steps: Int) -> [Int] {
        guard steps >= 0 else { return [] }
        let width = 2 * steps + 1
        var counts = [Int](repeating: 0, count: width)
        // The beat last counted at each shift, so that a beat counts there once.
        var counted = [Int](repeating: -1, count: width)
        // Farther than any shift takes a beat plus the window, with a margin for rounding.
        let reach = Double(steps) / 1000 + matchWindow + 0.002
        let window = matchWindow * 1000
        for (number, beat) in beats.enumerated() {
            var index = SortedSearch.lowerBound(sorted, beat - reach)
            while index < sorted.count, sorted[index] <= beat + reach {
                let onset = sorted[index]
                index += 1
                // The step that takes the beat onto the onset, and the window's steps around it, one
                // more each way for rounding; the comparison itself decides.
                let centre = (onset - beat) * 1000 + Double(steps)
                let lower = max(0, Int((centre - window).rounded(.down)) - 1)
                let upper = min(width - 1, Int((centre + window).rounded(.up)) + 1)
                guard lower <= upper else { continue }
                for step in lower...upper where counted[step] != number {
                    let shift = Double(step - steps) / 1000
                    if abs(onset - (beat + shift)) <= matchWindow {
                        counted[step] = number
                        counts[step] += 1
                    }
                }
            }
        }
        return counts
    }

    /// Without the audio's onsets there is nothing to compare the beats with.
    public func skipReason(in context: ValidationContext) -> SkipReason? {
        if let reason = context.audioSkipReason { return reason }
        guard case .facts(let facts) = context.audio, facts.onsets != nil else { return .onsetsNotDetected }
        return nil
    }

    public func check(_ context: ValidationContext, into sink: inout ViolationSink) {
        guard case .facts(let facts) = context.audio, let onsets = facts.onsets,
            let (offset, matched) = Self.offset(beats: context.map.beats, onsets: onsets),
            abs(offset) > context.configuration.misalignmentTolerance + 1e-9
        else { return }
        if let drums = facts.drumEvidence, drums.pickupShift(of: context.map.beats.map { $0 + offset }) != nil {
            return
        }
        sink.report(
            Violation(
                Message.misaligned(offset: offset, matched: matched, of: context.map.beats.count),
                at: context.source.location(ofMember: "beats"),
                fix: .nudge(seconds: NumberFormatting.roundedToMicroseconds(offset))))
    }

    /// The rule's messages.
    enum Message {
        /// The beats sit `offset` seconds early (positive) or late against the onsets, measured over
        /// `matched` of `count` beats.
        static func misaligned(offset: Double, matched: Int, of count: Int) -> String {
            let direction = offset > 0 ? "early" : "late"
            return
                "beats are \(Describe.milliseconds(abs(offset))) \(direction) against the audio's onsets (median over \(matched) of \(count) beats); nudge every beat by \(Describe.milliseconds(offset, signed: true))"
        }
    }
}
