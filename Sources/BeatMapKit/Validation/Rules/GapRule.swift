// SPDX-License-Identifier: GPL-3.0-or-later

import Foundation

/// `gap`: in a full beat map (subdivisions `[1]`), an interval longer than 1.5 beats — a missing beat.
public struct GapRule: ValidationRule {
    public static let description = RuleDescription(
        id: "gap", defaultSeverity: .warning,
        summary: "In a full beat map, two consecutive beats are more than 1.5 beats apart (a missing beat).",
        triggeringExamples: [
            .map(beats: "[0.5, 1.0, 2.0, 2.5]", tempo: "[{ \"time\": 0.5, \"bpm\": 120 }]", beatIndices: [2])
        ],
        nonTriggeringExamples: [
            .map(beats: "[0.5, 1.0, 1.5, 2.0]", tempo: "[{ \"time\": 0.5, \"bpm\": 120 }]"),
            .map(
                beats: "[0.5, 1.0, 2.0, 2.5]", tempo: "[{ \"time\": 0.5, \"bpm\": 120 }]",
                configuration: ValidationConfiguration().with { $0.subdivisions = [1, 2] }),
        ])

    public init() {}

    public func check(_ context: ValidationContext, into sink: inout ViolationSink) {
        guard context.configuration.isFullBeatMap, let grid = context.grid else { return }
        let beats = context.map.beats
        let limit = context.configuration.maximumGapBeats
        context.forEachStepForward { previous, index in
            let interval = beats[index] - beats[previous]
            let inBeats = interval / grid.beatLength(at: beats[previous])
            guard inBeats > limit + 1e-9 else { return }
            sink.report(
                Violation(
                    Message.gap(
                        beats: inBeats, seconds: interval, previous: previous, at: beats[previous], index: index),
                    at: context.source.location(ofBeat: index), beatIndex: index, time: beats[index]))
        }
    }

    /// The rule's messages.
    enum Message {
        /// `beats` (`seconds`) between beat `previous` at `time` and beat `index`.
        static func gap(beats: Double, seconds: Double, previous: Int, at time: Double, index: Int) -> String {
            "gap of \(String(format: "%.2f", beats)) beats (\(Describe.seconds(seconds))) between \(Describe.beat(previous)) at \(Describe.seconds(time)) and \(Describe.beat(index)); a beat may be missing"
        }
    }
}
