// SPDX-License-Identifier: GPL-3.0-or-later

/// `off-grid`: a beat is not on its tempo segment's grid `time + k·60/bpm/d` for an allowed subdivision
/// `d`, within the tolerance. Without a tempo map the grid is one tempo inferred from the intervals.
public struct OffGridRule: ValidationRule {
    public static let description = RuleDescription(
        id: "off-grid", defaultSeverity: .error,
        summary: "A beat is further than the tolerance (5 ms) from its tempo segment's grid.",
        triggeringExamples: [
            .map(beats: "[0.5, 1.0, 1.52, 2.0]", tempo: "[{ \"time\": 0.5, \"bpm\": 120 }]", beatIndices: [2]),
            .map(beats: "[0.5, 1.0, 1.25, 1.5]", tempo: "[{ \"time\": 0.5, \"bpm\": 120 }]", beatIndices: [2]),
            .map(beats: "[0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 3.5, 4.03, 4.5, 5.0]", beatIndices: [7]),
            .map(
                beats: "[0.5, 1.0, 1.25, 1.4]", tempo: "[{ \"time\": 0.5, \"bpm\": 120 }]",
                configuration: ValidationConfiguration().with { $0.subdivisions = [1, 2] }, beatIndices: [3]),
        ],
        nonTriggeringExamples: [
            .map(beats: "[0.5, 1.0, 1.503, 2.0]", tempo: "[{ \"time\": 0.5, \"bpm\": 120 }]"),
            .map(
                beats: "[0.5, 1.0, 1.5, 1.9, 2.3]",
                tempo: "[{ \"time\": 0.5, \"bpm\": 120 }, { \"time\": 1.5, \"bpm\": 150 }]"),
            .map(
                beats: "[0.5, 1.0, 1.25, 1.5]", tempo: "[{ \"time\": 0.5, \"bpm\": 120 }]",
                configuration: ValidationConfiguration().with { $0.subdivisions = [1, 2] }),
            // A beat past the end is out-of-duration's alone.
            .map(beats: "[0.5, 1.0, 1.5, 2.0, 3.27]", tempo: "[{ \"time\": 0.5, \"bpm\": 120 }]", duration: "3.0"),
        ])

    public init() {}

    public func skipReason(in context: ValidationContext) -> SkipReason? { context.grid == nil ? .noTempoGrid : nil }

    public func check(_ context: ValidationContext, into sink: inout ViolationSink) {
        guard let grid = context.grid else { return }
        let tolerance = context.configuration.gridTolerance
        let subdivisions = context.configuration.subdivisions.isEmpty ? [1] : context.configuration.subdivisions
        // A beat outside the audio is out-of-duration's alone.
        for (index, beat) in context.map.beats.enumerated() where beat.isFinite && context.isInsideAudio(beat) {
            let point = grid.nearestPoint(to: beat, subdivisions: subdivisions, boundaryTolerance: tolerance)
            guard abs(point.error) > tolerance + 1e-9 else { continue }
            let bpm = grid.segments[point.segment].bpm
            sink.report(
                Violation(
                    Message.offGrid(
                        index: index, beat: beat, point: point, bpm: bpm, inferred: context.gridIsInferred),
                    at: context.source.location(ofBeat: index), beatIndex: index, time: beat))
        }
    }

    /// The rule's messages.
    enum Message {
        /// Beat `index` at `beat`, `point.error` off the grid of `bpm` (one the validator inferred, if
        /// `inferred`).
        static func offGrid(index: Int, beat: Double, point: GridPoint, bpm: Double, inferred: Bool) -> String {
            let step = point.subdivision == 1 ? "" : " (1/\(point.subdivision) beat)"
            return
                "\(Describe.beat(index)) at \(Describe.seconds(beat)) is \(Describe.milliseconds(point.error, signed: true)) off the \(Describe.bpm(bpm))\(inferred ? " (inferred)" : "") grid; nearest grid point\(step) is \(Describe.seconds(point.time))"
        }
    }
}
