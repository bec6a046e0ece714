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
        var features = read(fit.beats)
        // A followed map's beats at another level than the map's say nothing of its bars.
        if fit.method == .follow { features = features.silenced(offLevelBeats(fit.beats)) }
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

    /// For each of `beats` (followed beats, seconds, increasing), whether it lies at another level than
    /// the map's: the median of the intervals within ``GridFitter/slipMaximumBeats`` beats of it lies
    /// further than √2 from the median of all of them — halfway in log tempo to twice or half the
    /// tempo, so that a drift, a ramp or a step stays inside and a stretch the tracker followed at
    /// twice or half the music's tempo does not. The bar positions of such a stretch are not the
    /// map's (four of its beats are not a bar), so its accents would blur the bar estimate's means by
    /// position (docs/bars-log.md, session 86: a ritardando's warped copies, followed at twice their
    /// tempo over the slowed end).
    static func offLevelBeats(_ beats: [Double]) -> [Bool] {
        let intervals = zip(beats.dropFirst(), beats).map { $0 - $1 }
        guard !intervals.isEmpty else { return beats.map { _ in false } }
        let median = intervals.sorted()[intervals.count / 2]
        guard median > 0 else { return beats.map { _ in false } }
        let local = GridFitter.localMedians(intervals, radius: GridFitter.slipMaximumBeats)
        let bound = 2.0.squareRoot()
        return beats.indices.map { index in
            // A beat's interval is the one after it; the last beat takes the one before it.
            let ratio = local[min(index, local.count - 1)] / median
            return ratio > bound || ratio < 1 / bound
        }
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
