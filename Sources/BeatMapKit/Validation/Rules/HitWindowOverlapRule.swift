// SPDX-License-Identifier: GPL-3.0-or-later

/// `hit-window-overlap`: beats closer than twice the hit window, so one tap falls in two windows and
/// the judgement is ambiguous. A run of such beats is reported once, at its first beat.
public struct HitWindowOverlapRule: ValidationRule {
    public static let description = RuleDescription(
        id: "hit-window-overlap", defaultSeverity: .warning,
        summary: "Consecutive beats are closer than 2× the hit window (±150 ms), so a tap is ambiguous.",
        triggeringExamples: [
            .map(beats: "[0.5, 1.0, 1.2, 1.5]", beatIndices: [2]),
            .map(beats: "[0.5, 0.75, 1.0, 1.25, 2.0]", beatIndices: [1]),
            // The out-of-order beat 1 is skipped (non-monotonic reports it): the run is beats 0, 2, 3.
            .map(beats: "[1.0, 0.2, 1.25, 1.5, 2.5]", beatIndices: [2]),
            .map(
                beats: "[0.5, 1.0, 1.5]",
                configuration: ValidationConfiguration().with { $0.hitWindow = HitWindow.assist.seconds },
                beatIndices: [1]),
        ],
        nonTriggeringExamples: [
            .map(beats: "[0.5, 1.0, 1.5, 2.0]"),
            .map(beats: "[0.5, 0.8, 1.1]"),
        ])

    public init() {}

    public func check(_ context: ValidationContext, into sink: inout ViolationSink) {
        let beats = context.map.beats
        let minimum = 2 * context.configuration.hitWindow
        // A run of close beats: its first beat, the beat after it (the finding's beat), its last beat,
        // and how many beats it holds — counted by steps, since beats out of order are skipped.
        var runStart: Int?
        var runSecond = 0
        var runEnd = 0
        var runBeats = 0
        var closest = Double.infinity
        func flush() {
            guard let start = runStart else { return }
            sink.report(
                Violation(
                    Message.overlap(
                        beats: runBeats, from: start, to: runEnd, window: context.configuration.hitWindow,
                        closest: closest),
                    at: context.source.location(ofBeat: runSecond), beatIndex: runSecond, time: beats[runSecond]))
            runStart = nil
            closest = .infinity
        }
        context.forEachStepForward { previous, index in
            let interval = beats[index] - beats[previous]
            if interval > DuplicateBeatRule.epsilon, interval < minimum - 1e-9 {
                if runStart == nil || runEnd != previous {
                    flush()
                    runStart = previous
                    runSecond = index
                    runBeats = 1
                }
                runEnd = index
                runBeats += 1
                closest = min(closest, interval)
            } else {
                flush()
            }
        }
        flush()
    }

    /// The rule's messages.
    enum Message {
        /// A run of `beats` close beats from beat `start` to beat `end`, `closest` apart at the closest.
        static func overlap(beats: Int, from start: Int, to end: Int, window: Double, closest: Double) -> String {
            let span =
                beats == 2 ? "beats \(start + 1) and \(end + 1)" : "\(beats) beats from \(start + 1) to \(end + 1)"
            return
                "\(span) are closer than 2× the ±\(Describe.milliseconds(window)) hit window (closest \(Describe.milliseconds(closest)) apart); a tap there is ambiguous"
        }
    }
}
