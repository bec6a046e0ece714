// SPDX-License-Identifier: GPL-3.0-or-later

/// `non-finite`: a beat or tempo value is NaN or infinite (written as `NaN`/`Infinity` by some tools,
/// or a number too large for a double, such as `1e999`).
public struct NonFiniteRule: ValidationRule {
    public static let description = RuleDescription(
        id: "non-finite", defaultSeverity: .error,
        summary: "A beat or tempo value is NaN or infinite.",
        triggeringExamples: [
            .map(beats: "[0.5, NaN, 1.5]", beatIndices: [1]),
            .map(beats: "[0.5, 1.0, 1e999]", beatIndices: [2]),
            .map(beats: "[-Infinity, 0.5]", beatIndices: [0]),
            .map(beats: "[0.5]", tempo: "[{ \"time\": NaN, \"bpm\": 120 }]"),
        ],
        nonTriggeringExamples: [
            .map(beats: "[0.5, 1.0, 1.5]")
        ])

    public init() {}

    public func check(_ context: ValidationContext, into sink: inout ViolationSink) {
        for (index, segment) in (context.map.tempo ?? []).enumerated()
        where !segment.time.isFinite || !segment.bpm.isFinite {
            sink.report(
                Violation(
                    Message.tempo(index: index, field: segment.time.isFinite ? "bpm" : "time"),
                    at: context.source.location(ofTempoSegment: index)))
        }
        for (index, beat) in context.map.beats.enumerated() where !beat.isFinite {
            sink.report(
                Violation(
                    Message.beat(index: index, beat),
                    at: context.source.location(ofBeat: index), beatIndex: index, time: beat))
        }
    }

    /// The rule's messages.
    enum Message {
        /// Tempo segment `index` whose `field` (`time` or `bpm`) is not finite.
        static func tempo(index: Int, field: String) -> String {
            "\(Describe.segment(index)) has a non-finite \(field)"
        }

        /// Beat `index`, `value` being NaN or infinite.
        static func beat(index: Int, _ value: Double) -> String {
            "\(Describe.beat(index)) is \(value.isNaN ? "NaN" : "infinite"); a beat time must be a finite number of seconds"
        }
    }
}
