// SPDX-License-Identifier: GPL-3.0-or-later

import Foundation

/// `invalid-tempo`: the tempo map cannot be used: segments out of order, outside the track, a BPM
/// outside 20…400, or a non-positive `beatsPerBar`.
public struct InvalidTempoRule: ValidationRule {
    public static let description = RuleDescription(
        id: "invalid-tempo", defaultSeverity: .error,
        summary: "Tempo segments are unsorted or outside the track, a BPM is outside 20…400, or beatsPerBar < 1.",
        triggeringExamples: [
            .map(beats: "[0.5, 1.0]", tempo: "[{ \"time\": 2.0, \"bpm\": 120 }, { \"time\": 0.5, \"bpm\": 120 }]"),
            .map(beats: "[0.5, 1.0]", tempo: "[{ \"time\": 0.5, \"bpm\": 600 }]"),
            .map(beats: "[0.5, 1.0]", tempo: "[{ \"time\": 9.5, \"bpm\": 120 }]", duration: "8.0"),
            .map(beats: "[0.5, 1.0]", tempo: "[{ \"time\": 0.5, \"bpm\": 120, \"beatsPerBar\": 0 }]"),
        ],
        nonTriggeringExamples: [
            .map(beats: "[0.5, 1.0]", tempo: "[{ \"time\": 0.5, \"bpm\": 120, \"beatsPerBar\": 4 }]"),
            .map(beats: "[0.5, 1.0]", tempo: "[{ \"time\": 0.5, \"bpm\": 120 }, { \"time\": 4.5, \"bpm\": 140 }]"),
        ])

    public init() {}

    public func check(_ context: ValidationContext, into sink: inout ViolationSink) {
        guard let tempo = context.map.tempo else { return }
        let duration = context.map.audio.duration
        for (index, segment) in tempo.enumerated() {
            let location = context.source.location(ofTempoSegment: index)
            if index > 0, segment.time.isFinite, tempo[index - 1].time.isFinite, segment.time <= tempo[index - 1].time {
                sink.report(
                    Violation(
                        "tempo segment \(index) at \(Describe.seconds(segment.time)) does not come after segment \(index - 1) at \(Describe.seconds(tempo[index - 1].time)); segments must be in time order",
                        at: location))
            }
            if segment.time.isFinite, segment.time < 0 || segment.time > duration {
                sink.report(
                    Violation(
                        "tempo segment \(index) starts at \(Describe.seconds(segment.time)), outside the track (0…\(Describe.seconds(duration)))",
                        at: location))
            }
            if segment.bpm.isFinite, segment.bpm < TempoLimits.minimumBPM || segment.bpm > TempoLimits.maximumBPM {
                sink.report(
                    Violation(
                        "tempo segment \(index) has \(Describe.bpm(segment.bpm)), outside \(Int(TempoLimits.minimumBPM))…\(Int(TempoLimits.maximumBPM)) BPM",
                        at: location))
            }
            if let perBar = segment.beatsPerBar, perBar < 1 {
                sink.report(
                    Violation("tempo segment \(index) has beatsPerBar \(perBar); it must be at least 1", at: location))
            }
        }
    }
}

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
        ])

    public init() {}

    public func check(_ context: ValidationContext, into sink: inout ViolationSink) {
        guard let grid = context.grid else { return }
        let tolerance = context.configuration.gridTolerance
        let subdivisions = context.configuration.subdivisions.isEmpty ? [1] : context.configuration.subdivisions
        let inferred = context.gridIsInferred ? " (inferred)" : ""
        for (index, beat) in context.map.beats.enumerated() where beat.isFinite {
            let point = grid.nearestPoint(to: beat, subdivisions: subdivisions, boundaryTolerance: tolerance)
            guard abs(point.error) > tolerance + 1e-9 else { continue }
            let bpm = grid.segments[point.segment].bpm
            let step = point.subdivision == 1 ? "" : " (1/\(point.subdivision) beat)"
            sink.report(
                Violation(
                    "beat \(index) at \(Describe.seconds(beat)) is \(Describe.milliseconds(point.error, signed: true)) off the \(Describe.bpm(bpm))\(inferred) grid; nearest grid point\(step) is \(Describe.seconds(point.time))",
                    at: context.source.location(ofBeat: index), beatIndex: index, time: beat))
        }
    }
}

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
                    "gap of \(String(format: "%.2f", inBeats)) beats (\(Describe.seconds(interval))) between beat \(previous) at \(Describe.seconds(beats[previous])) and beat \(index); a beat may be missing",
                    at: context.source.location(ofBeat: index), beatIndex: index, time: beats[index]))
        }
    }
}

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
                configuration: ValidationConfiguration().with { $0.hitWindow = 0.300 }, beatIndices: [1]),
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
            let span = runBeats == 2 ? "beats \(start) and \(runEnd)" : "\(runBeats) beats from \(start) to \(runEnd)"
            sink.report(
                Violation(
                    "\(span) are closer than 2× the ±\(Describe.milliseconds(context.configuration.hitWindow)) hit window (closest \(Describe.milliseconds(closest)) apart); a tap there is ambiguous",
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
}
