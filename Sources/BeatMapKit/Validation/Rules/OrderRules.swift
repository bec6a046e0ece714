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
                    "beat \(index) at \(Describe.seconds(beats[index])) comes before beat \(previous) at \(Describe.seconds(beats[previous])); beats must be strictly increasing",
                    at: context.source.location(ofBeat: index), beatIndex: index, time: beats[index]))
        }
    }
}

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
                    "beat \(index) at \(Describe.seconds(beats[index])) duplicates beat \(previous)",
                    at: context.source.location(ofBeat: index), beatIndex: index, time: beats[index]))
        }
    }
}

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
            let why =
                beat < 0
                ? "before the start of the audio" : "after the end of the audio (\(Describe.seconds(duration)))"
            sink.report(
                Violation(
                    "beat \(index) at \(Describe.seconds(beat)) is \(why)",
                    at: context.source.location(ofBeat: index), beatIndex: index, time: beat))
        }
    }
}
