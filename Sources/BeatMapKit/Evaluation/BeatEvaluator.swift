// SPDX-License-Identifier: GPL-3.0-or-later

public import Foundation

/// The standard beat-tracking scores of an estimated beat sequence against a reference, as mir_eval's
/// `beat.evaluate` reports them.
public struct BeatScores: Sendable, Equatable {
    /// F-measure of beats matched within ±70 ms (0…1).
    public var fMeasure: Double
    /// Cemgil's accuracy at the annotated metric level (σ = 40 ms).
    public var cemgil: Double
    /// Cemgil's accuracy at the best of the metric variations (off-beat, double, half tempo).
    public var cemgilBestMetricLevel: Double
    /// Goto's binary score (0 or 1).
    public var goto: Double
    /// McKinney's P-score.
    public var pScore: Double
    /// Correct metric level, longest continuous run.
    public var cmlc: Double
    /// Correct metric level, total.
    public var cmlt: Double
    /// Any metric level, longest continuous run.
    public var amlc: Double
    /// Any metric level, total.
    public var amlt: Double
    /// Information gain, normalised to 0…1 (1 − entropy / log2(bins)), as mir_eval reports it.
    public var informationGain: Double

    /// Scores with the given values.
    public init(
        fMeasure: Double, cemgil: Double, cemgilBestMetricLevel: Double, goto: Double, pScore: Double,
        cmlc: Double, cmlt: Double, amlc: Double, amlt: Double, informationGain: Double
    ) {
        self.fMeasure = fMeasure
        self.cemgil = cemgil
        self.cemgilBestMetricLevel = cemgilBestMetricLevel
        self.goto = goto
        self.pScore = pScore
        self.cmlc = cmlc
        self.cmlt = cmlt
        self.amlc = amlc
        self.amlt = amlt
        self.informationGain = informationGain
    }

    /// The scores by their stable names (the keys of `beatmap evaluate --format json`), in report
    /// order. `cemgilBestMetricLevel` is not among them.
    public var named: [(name: String, value: Double)] {
        [
            ("fMeasure", fMeasure), ("cemgil", cemgil), ("goto", goto), ("pScore", pScore), ("cmlc", cmlc),
            ("cmlt", cmlt), ("amlc", amlc), ("amlt", amlt), ("informationGain", informationGain),
        ]
    }
}

/// Which of the two sequences a problem is in.
public enum BeatSequenceRole: String, Sendable, Equatable {
    /// The ground truth.
    case reference
    /// The sequence being scored.
    case estimate
}

/// Why two sequences cannot be evaluated.
public enum BeatEvaluationError: Error, LocalizedError, Sendable, Equatable {
    /// A time is NaN or infinite.
    case nonFinite(BeatSequenceRole, index: Int)
    /// A time is earlier than the one before it.
    case notIncreasing(BeatSequenceRole, index: Int, time: Double, previous: Double)
    /// A time is beyond ±``BeatEvaluator/maximumBeatTime``.
    case outOfRange(BeatSequenceRole, index: Int, time: Double)
    /// A setting is unusable.
    case invalidSetting(String)

    public var errorDescription: String? {
        switch self {
        case .nonFinite(let role, let index):
            return "\(role.rawValue) beat \(index + 1) is not a finite number of seconds"
        case .notIncreasing(let role, let index, let time, let previous):
            return "\(role.rawValue) beat \(index + 1) (\(time) s) comes before the beat before it (\(previous) s);"
                + " beats must be in increasing order"
        case .outOfRange(let role, let index, let time):
            return
                "\(role.rawValue) beat \(index + 1) is at \(time) s, beyond the ±\(Int(BeatEvaluator.maximumBeatTime)) s"
                + " mir_eval accepts (are the times in seconds?)"
        case .invalidSetting(let message): return message
        }
    }
}

/// The parameters of the metrics; the defaults are mir_eval's.
public struct BeatEvaluationSettings: Sendable, Equatable {
    /// Beats before this time (seconds) are ignored in both sequences (mir_eval's `trim_beats`).
    public var minimumBeatTime: Double = 5
    /// F-measure tolerance window, ± seconds.
    public var fMeasureWindow: Double = 0.07
    /// Standard deviation of Cemgil's Gaussian, seconds.
    public var cemgilSigma: Double = 0.04
    /// Goto: the largest error, relative to half the beat interval, of a correct beat.
    public var gotoThreshold: Double = 0.35
    /// Goto: the largest mean error magnitude over the correct stretch.
    public var gotoMu: Double = 0.2
    /// Goto: the largest error standard deviation over the correct stretch.
    public var gotoSigma: Double = 0.2
    /// P-score window as a fraction of the median reference interval.
    public var pScoreThreshold: Double = 0.2
    /// Continuity: the largest phase error, relative to the reference interval.
    public var continuityPhaseThreshold: Double = 0.175
    /// Continuity: the largest relative difference between estimate and reference intervals.
    public var continuityPeriodThreshold: Double = 0.175
    /// Information gain: number of histogram bins (odd, so one is centred on zero).
    public var informationGainBins: Int = 41

    /// mir_eval's settings.
    public init() {}
}

/// Scores an estimated beat sequence against a reference the way mir_eval does: both are trimmed of
/// beats before ``BeatEvaluationSettings/minimumBeatTime``, checked, then measured.
///
/// ```swift
/// let scores = try BeatEvaluator().evaluate(reference: annotated, estimate: map.beats)
/// print(scores.fMeasure)
/// ```
public struct BeatEvaluator: Sendable {
    /// The largest time magnitude accepted, in seconds (mir_eval's `MAX_TIME`).
    public static let maximumBeatTime = 30_000.0

    /// The metric parameters.
    public var settings: BeatEvaluationSettings

    /// An evaluator with `settings` (mir_eval's by default).
    public init(settings: BeatEvaluationSettings = BeatEvaluationSettings()) {
        self.settings = settings
    }

    /// The beats at or after `minimumTime`, in their order (NaN is dropped, as a comparison drops it).
    public static func trim(_ beats: [Double], minimumTime: Double) -> [Double] {
        beats.filter { $0 >= minimumTime }
    }

    /// Checks a whole sequence: finite, within range, non-decreasing (equal times are allowed).
    /// mir_eval checks only what is left after trimming; checking everything is stricter only for
    /// malformed input (NaN, or disorder, before the trim time).
    public static func check(_ beats: [Double], role: BeatSequenceRole) throws(BeatEvaluationError) {
        var previous = -Double.infinity
        for (index, time) in beats.enumerated() {
            guard time.isFinite else { throw .nonFinite(role, index: index) }
            guard abs(time) <= maximumBeatTime else { throw .outOfRange(role, index: index, time: time) }
            guard time >= previous else {
                throw .notIncreasing(role, index: index, time: time, previous: previous)
            }
            previous = time
        }
    }

    /// All scores of `estimate` against `reference` (times in seconds, in increasing order): both are
    /// checked with ``check(_:role:)``, trimmed with ``trim(_:minimumTime:)``, then measured. Empty or
    /// very short sequences score 0 where a metric cannot be computed, as in mir_eval.
    public func evaluate(reference: [Double], estimate: [Double]) throws(BeatEvaluationError) -> BeatScores {
        let s = settings
        guard s.minimumBeatTime.isFinite else { throw .invalidSetting("the minimum beat time must be finite") }
        guard s.informationGainBins > 0 else { throw .invalidSetting("information gain needs at least one bin") }
        for value in [
            s.fMeasureWindow, s.cemgilSigma, s.gotoThreshold, s.gotoMu, s.gotoSigma, s.pScoreThreshold,
            s.continuityPhaseThreshold, s.continuityPeriodThreshold,
        ] where !(value.isFinite && value > 0) {
            throw .invalidSetting("metric parameters must be finite and greater than 0")
        }
        try Self.check(reference, role: .reference)
        try Self.check(estimate, role: .estimate)
        let reference = Self.trim(reference, minimumTime: s.minimumBeatTime)
        let estimate = Self.trim(estimate, minimumTime: s.minimumBeatTime)
        let cemgil = BeatMetrics.cemgil(reference: reference, estimate: estimate, sigma: s.cemgilSigma)
        let continuity = BeatMetrics.continuity(
            reference: reference, estimate: estimate, phaseThreshold: s.continuityPhaseThreshold,
            periodThreshold: s.continuityPeriodThreshold)
        return BeatScores(
            fMeasure: BeatMetrics.fMeasure(reference: reference, estimate: estimate, window: s.fMeasureWindow),
            cemgil: cemgil.score,
            cemgilBestMetricLevel: cemgil.best,
            goto: BeatMetrics.goto(
                reference: reference, estimate: estimate, threshold: s.gotoThreshold, mu: s.gotoMu,
                sigma: s.gotoSigma),
            pScore: BeatMetrics.pScore(reference: reference, estimate: estimate, threshold: s.pScoreThreshold),
            cmlc: continuity.cmlc,
            cmlt: continuity.cmlt,
            amlc: continuity.amlc,
            amlt: continuity.amlt,
            informationGain: BeatMetrics.informationGain(
                reference: reference, estimate: estimate, bins: s.informationGainBins))
    }
}
