// SPDX-License-Identifier: GPL-3.0-or-later

/// `out-of-duration`: a beat before 0 s or after the end of the audio.
public struct OutOfDurationRule: ValidationRule {
    public static let description = RuleDescription(
        id: "out-of-duration", defaultSeverity: .error,
        summary: "A beat is before 0 s or after the end of the audio (audio.duration).",
        triggeringExamples: [
            .map(beats: "[-0.25, 0.5, 1.0]", duration: "4.0", beatIndices: [0]),
            .map(beats: "[3.0, 3.5, 4.0, 4.5]", duration: "4.0", beatIndices: [3]),
        ],
        nonTriggeringExamples: [
            .map(beats: "[0.0, 2.0, 4.0]", duration: "4.0")
        ])

    public init() {}

    public func check(_ context: ValidationContext, into sink: inout ViolationSink) {
        let duration = context.map.audio.duration
        for (index, beat) in context.map.beats.enumerated() where beat.isFinite && (beat < 0 || beat > duration) {
            sink.report(
                Violation(
                    Message.outside(index: index, at: beat, duration: duration),
                    at: context.source.location(ofBeat: index), beatIndex: index, time: beat))
        }
    }

    /// The rule's messages.
    enum Message {
        /// Beat `index` at `time`, before 0 s or after `duration`.
        static func outside(index: Int, at time: Double, duration: Double) -> String {
            let why =
                time < 0
                ? "before the start of the audio" : "after the end of the audio (\(Describe.seconds(duration)))"
            return "\(Describe.beat(index)) at \(Describe.seconds(time)) is \(why)"
        }
    }
}
