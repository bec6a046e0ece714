// SPDX-License-Identifier: GPL-3.0-or-later

import Foundation

/// `gap`: in a full beat map (subdivisions `[1]`), an interval longer than 1.5 beats — a missing beat.
/// Gaps in a row are one finding (a half-time section is one problem); beats outside the audio are
/// left to `out-of-duration`.
public struct GapRule: ValidationRule {
    public static let description = RuleDescription(
        id: "gap", defaultSeverity: .warning,
        summary: "In a full beat map, two consecutive beats are more than 1.5 beats apart (a missing beat).",
        triggeringExamples: [
            .map(beats: "[0.5, 1.0, 2.0, 2.5]", tempo: "[{ \"time\": 0.5, \"bpm\": 120 }]", beatIndices: [2]),
            // A half-time section: one finding for the run, at its first gap.
            .map(
                beats: "[0.5, 1.0, 2.0, 3.0, 4.0, 5.0, 5.5, 6.5, 7.0]", tempo: "[{ \"time\": 0.5, \"bpm\": 120 }]",
                beatIndices: [2, 7]),
        ],
        nonTriggeringExamples: [
            .map(beats: "[0.5, 1.0, 1.5, 2.0]", tempo: "[{ \"time\": 0.5, \"bpm\": 120 }]"),
            .map(
                beats: "[0.5, 1.0, 2.0, 2.5]", tempo: "[{ \"time\": 0.5, \"bpm\": 120 }]",
                configuration: ValidationConfiguration().with { $0.subdivisions = [1, 2] }),
            // A beat past the end is out-of-duration's alone.
            .map(beats: "[0.5, 1.0, 1.5, 2.0, 3.5]", tempo: "[{ \"time\": 0.5, \"bpm\": 120 }]", duration: "3.0"),
        ])

    public init() {}

    public func skipReason(in context: ValidationContext) -> SkipReason? {
        if !context.configuration.isFullBeatMap { return .noteMap }
        return context.grid == nil ? .noTempoGrid : nil
    }

    /// Consecutive gaps, reported as one finding: a half-time section is one problem, not one per
    /// interval.
    struct Run {
        /// The beat before the first gap.
        var first: Int
        /// The beat after the first gap (where the finding points).
        var firstEnd: Int
        /// The beat after the last gap.
        var last: Int
        /// How many gaps.
        var count = 1
        /// The shortest and longest gap, in beats.
        var shortest: Double
        var longest: Double
    }

    public func check(_ context: ValidationContext, into sink: inout ViolationSink) {
        guard context.configuration.isFullBeatMap, let grid = context.grid else { return }
        let beats = context.map.beats
        let limit = context.configuration.maximumGapBeats
        var run: Run?
        func flush(_ run: Run) {
            sink.report(
                Violation(
                    Message.gap(run, beats: beats), at: context.source.location(ofBeat: run.firstEnd),
                    beatIndex: run.firstEnd, time: beats[run.firstEnd]))
        }
        // Beats outside the audio are out-of-duration's alone: a beat past the end is not also a gap.
        context.forEachStepForward(insideAudioOnly: true) { previous, index in
            let inBeats = (beats[index] - beats[previous]) / grid.beatLength(at: beats[previous])
            guard inBeats > limit + 1e-9 else {
                if let ended = run { flush(ended) }
                run = nil
                return
            }
            if var current = run, current.last == previous {
                current.last = index
                current.count += 1
                current.shortest = min(current.shortest, inBeats)
                current.longest = max(current.longest, inBeats)
                run = current
            } else {
                if let ended = run { flush(ended) }
                run = Run(first: previous, firstEnd: index, last: index, shortest: inBeats, longest: inBeats)
            }
        }
        if let ended = run { flush(ended) }
    }

    /// The rule's messages.
    enum Message {
        /// `run`'s gaps in `beats`: one gap, or several in a row.
        static func gap(_ run: Run, beats: [Double]) -> String {
            let seconds = beats[run.last] - beats[run.first]
            let between =
                "between \(Describe.beat(run.first)) at \(Describe.seconds(beats[run.first])) and \(Describe.beat(run.last))"
            guard run.count > 1 else {
                return
                    "gap of \(String(format: "%.2f", run.longest)) beats (\(Describe.seconds(seconds))) \(between); a beat may be missing"
            }
            let size =
                String(format: "%.2f", run.shortest) == String(format: "%.2f", run.longest)
                ? String(format: "%.2f", run.longest) : String(format: "%.2f–%.2f", run.shortest, run.longest)
            return
                "\(run.count) gaps in a row of \(size) beats each (\(Describe.seconds(seconds)) in all) \(between) at \(Describe.seconds(beats[run.last])); beats may be missing, or the section is at another tempo"
        }
    }
}
