// SPDX-License-Identifier: GPL-3.0-or-later

/// `duplicate-beat`: two consecutive beats at the same time (within 1 µs).
public struct DuplicateBeatRule: ValidationRule {
    /// Beats closer than this are the same beat.
    public static let epsilon = 1e-6

    public static let description = RuleDescription(
        id: "duplicate-beat", defaultSeverity: .error,
        summary: "Two consecutive beats are at the same time (within 1 µs).",
        triggeringExamples: [
            .map(beats: "[0.5, 1.0, 1.0, 1.5]", beatIndices: [2]),
            .map(beats: "[0.5, 0.5000005, 1.0]", beatIndices: [1]),
        ],
        nonTriggeringExamples: [
            .map(beats: "[0.5, 1.0, 1.5]"),
            .map(beats: "[0.5, 0.500002]"),
        ])

    public init() {}

    public func check(_ context: ValidationContext, into sink: inout ViolationSink) {
        let beats = context.map.beats
        context.forEachFiniteInterval { previous, index in
            guard abs(beats[index] - beats[previous]) <= Self.epsilon else { return }
            sink.report(
                Violation(
                    Message.duplicate(index: index, at: beats[index], previous: previous),
                    at: context.source.location(ofBeat: index), beatIndex: index, time: beats[index]))
        }
    }

    /// The rule's messages.
    enum Message {
        /// Beat `index` at `time`, the same as beat `previous`.
        static func duplicate(index: Int, at time: Double, previous: Int) -> String {
            "\(Describe.beat(index)) at \(Describe.seconds(time)) duplicates \(Describe.beat(previous))"
        }
    }
}
