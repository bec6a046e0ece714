// SPDX-License-Identifier: GPL-3.0-or-later

public import BeatMapKit
import Foundation

/// Bars for a fitted map: the meter and bar phase estimated over all its beats (one meter for the
/// song), written into its tempo segments. The bars run on through a tempo change unless the
/// segment after it starts a bar of its own (``MeterEstimator/segmentSections(_:features:estimate:)``).
///
/// In the map, a segment with `beatsPerBar` N has a downbeat at its `time` and at every N-th beat of
/// its grid from there. So:
/// - the first segment gets N and its `time` moves to its first downbeat (the beats before it, a
///   pickup, follow its grid as before: the grid is unchanged, only the point named as its anchor);
/// - a later segment that starts on a downbeat gets N;
/// - a later segment that starts inside a bar (or a one-beat segment of a followed map between two
///   downbeats) gets none: its beats count on from the last downbeat before it.
public enum BarLayout {
    /// The estimate for the beats of `fit`, from the curves of `analysis`; `nil` when there are too
    /// few beats. It is given however unsure its phase (the confidence goes in `analysis.bars`): a
    /// mapper's editor puts bar lines somewhere, and the likeliest phase is right far more often than
    /// the first beat (docs/bars.md). `meters` limits the meters considered (e.g. to one the user gave).
    public static func estimate(
        _ fit: GridFit, analysis: AudioAnalysis, meters: [Int] = MeterEstimator.prior.map(\.beatsPerBar)
    ) -> BarEstimate? {
        estimate(fit, analysis: analysis, meters: meters, drums: nil)
    }

    /// ``estimate(_:analysis:meters:)`` reading the drum detector's frames from `drums` where the caller
    /// shares them (``BarFeatures/reader(_:drums:)``).
    static func estimate(
        _ fit: GridFit, analysis: AudioAnalysis, meters: [Int], drums: SharedDrumFrames?
    ) -> BarEstimate? {
        let estimator = MeterEstimator(meters: meters)
        guard fit.beats.count >= estimator.minimumBeats else { return nil }
        let read = BarFeatures.reader(analysis, drums: drums)
        let features = read(fit.beats)
        guard var estimate = estimator.estimate(features) else { return nil }
        // Followed beats can lose or gain a beat, and each of their beats starts a segment of its own,
        // so the map can say where the bar phase changes; a grid's beats cannot drift off their bars,
        // but where its tempo changes a new piece of music may start its own bars.
        switch fit.method {
        case .follow: estimate.sections = estimator.sections(features, estimate: estimate)
        case .gridSegments:
            estimate.sections = estimator.segmentSections(fit.segments, features: read, estimate: estimate)
        default: break
        }
        return estimate
    }

    /// The tempo map of `segments` (in time order, their beats together the map's beats) with the bars
    /// of `estimate` (made for those beats).
    public static func tempo(_ segments: [FittedSegment], bars estimate: BarEstimate) -> [TempoSegment] {
        var result: [TempoSegment] = []
        var first = 0
        for (index, segment) in segments.enumerated() {
            defer { first += segment.beats.count }
            var tempo = TempoSegment(time: segment.firstBeat, bpm: segment.bpm)
            if estimate.isDownbeat(first) {
                tempo.beatsPerBar = estimate.beatsPerBar
            } else if index == 0,
                let offset = segment.beats.indices.first(where: { estimate.isDownbeat(first + $0) })
            {
                tempo.time = segment.beats[offset]
                tempo.beatsPerBar = estimate.beatsPerBar
            }
            result.append(tempo)
        }
        return result
    }

    /// The `analysis.bars` member of a map: the meter, the bar phase's confidence, the meter's, and the
    /// runner-up meter.
    public static func provenance(_ estimate: BarEstimate) -> JSONValue {
        func rounded(_ value: Double) -> JSONValue { .double((value * 1000).rounded() / 1000) }
        var object = JSONObject()
        object["beatsPerBar"] = .int(estimate.beatsPerBar)
        object["phaseConfidence"] = rounded(estimate.phaseConfidence)
        object["meterConfidence"] = rounded(estimate.meterConfidence)
        if let runnerUp = estimate.runnerUp {
            object["runnerUp"] = .object(
                JSONObject([
                    ("beatsPerBar", .int(runnerUp.beatsPerBar)), ("probability", rounded(runnerUp.probability)),
                ]))
        }
        return .object(object)
    }
}
