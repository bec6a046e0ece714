// SPDX-License-Identifier: GPL-3.0-or-later

/// `non-monotonic`: a beat comes before the beat listed ahead of it (`beats[i] < beats[i−1]`). The game
/// walks the list in order, so every later beat would be judged against the wrong time.
public struct NonMonotonicRule: ValidationRule {
    public static let description = RuleDescription(
        id: "non-monotonic", defaultSeverity: .error,
        summary: "A beat is earlier than the beat before it; beats must be strictly increasing.",
        triggeringExamples: [
            .map(beats: "[0.5, 1.5, 1.0, 2.0]", beatIndices: [2]),
            .map(beats: "[2.0, 1.0, 0.5]", beatIndices: [1, 2]),
        ],
        nonTriggeringExamples: [
            .map(beats: "[0.5, 1.0, 1.5, 2.0]"),
            .map(beats: "[0.5, 0.5000005]"),
        ])

    public init() {}

    public func check(_ context: ValidationContext, into sink: inout ViolationSink) {
        let beats = context.map.beats
        context.forEachFiniteInterval { previous, index in
            guard beats[index] < beats[previous] - DuplicateBeatRule.epsilon else { return }
            sink.report(
                Violation(
                    Message.earlier(index: index, at: beats[index], previous: previous, previousTime: beats[previous]),
                    at: context.source.location(ofBeat: index), beatIndex: index, time: beats[index]))
        }
    }

    /// The rule's messages.
    enum Message {
        /// Beat `index` at `time` before beat `previous` at `previousTime`.
        static func earlier(index: Int, at time: Double, previous: Int, previousTime: Double) -> String {
            "\(Describe.beat(index)) at \(Describe.seconds(time)) comes before \(Describe.beat(previous)) at \(Describe.seconds(previousTime)); beats must be strictly increasing"
        }
    }
}
