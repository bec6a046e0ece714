// SPDX-License-Identifier: GPL-3.0-or-later

import BeatMapKit
import Foundation

/// The meter and bar phase of a run of beats, with how sure the estimate is.
public struct BarEstimate: Sendable, Equatable {
    /// Beats in a bar: 4, 3 or 6 (6: a 6/8 bar counted in eighth notes, two groups of three).
    public var beatsPerBar: Int
    /// Index (into the beats the estimate was made for) of the first downbeat: `0..<beatsPerBar`.
    public var firstDownbeat: Int
    /// The probability of this bar phase given the meter (0…1).
    public var phaseConfidence: Double
    /// The probability of this meter, over all its phases (0…1).
    public var meterConfidence: Double
    /// The most probable other meter and its probability, if any other was considered.
    public var runnerUp: (beatsPerBar: Int, probability: Double)?
    /// Where the bar phase changes along the beats, in order (``BarSection``); empty when one phase,
    /// ``firstDownbeat``'s, holds for all of them. Followed beats get sections where a tracker that
    /// dropped or doubled a beat moves every later bar line by a beat
    /// (``MeterEstimator/sections(_:estimate:)``); grid tempo segments where a segment starts a bar of
    /// its own (``MeterEstimator/segmentSections(_:features:estimate:)``).
    public var sections: [BarSection] = []

    /// An estimate of one bar phase throughout.
    public init(
        beatsPerBar: Int, firstDownbeat: Int, phaseConfidence: Double, meterConfidence: Double,
        runnerUp: (beatsPerBar: Int, probability: Double)? = nil
    ) {
        self.beatsPerBar = beatsPerBar
        self.firstDownbeat = firstDownbeat
        self.phaseConfidence = phaseConfidence
        self.meterConfidence = meterConfidence
        self.runnerUp = runnerUp
    }

    /// Whether beat `index` is a downbeat.
    public func isDownbeat(_ index: Int) -> Bool {
        if let section = sections.last(where: { $0.start <= index }) {
            return (section.position + index - section.start) % beatsPerBar == 0
        }
        return index >= firstDownbeat && (index - firstDownbeat) % beatsPerBar == 0
    }

    /// The estimate for the same beats with `count` beats put before them: every index moves on by
    /// `count`, and the bar phase runs on backwards over the beats put there.
    public func withBeatsBefore(_ count: Int) -> BarEstimate {
        guard count > 0 else { return self }
        var moved = self
        moved.firstDownbeat = (firstDownbeat + count) % beatsPerBar
        moved.sections = sections.map { section in
            // A section from the first beat takes the beats put before it in.
            guard section.start > 0 else {
                let position = (section.position - count % beatsPerBar + beatsPerBar) % beatsPerBar
                return BarSection(start: 0, position: position)
            }
            return BarSection(start: section.start + count, position: section.position)
        }
        return moved
    }

    public static func == (lhs: BarEstimate, rhs: BarEstimate) -> Bool {
        lhs.beatsPerBar == rhs.beatsPerBar && lhs.firstDownbeat == rhs.firstDownbeat
            && lhs.phaseConfidence == rhs.phaseConfidence && lhs.meterConfidence == rhs.meterConfidence
            && lhs.runnerUp?.beatsPerBar == rhs.runnerUp?.beatsPerBar
            && lhs.runnerUp?.probability == rhs.runnerUp?.probability && lhs.sections == rhs.sections
    }
}

/// A run of beats with one bar phase: from beat `start` on (to the next section), beat `start` is at
/// `position` in its bar (0 the downbeat, up to the meter less one) and each later beat one further.
public struct BarSection: Sendable, Equatable {
    /// Index of the section's first beat.
    public var start: Int
    /// Where in its bar that beat falls: 0 for a downbeat.
    public var position: Int

    /// A section from beat `start`, at `position` in its bar.
    public init(start: Int, position: Int) {
        self.start = start
        self.position = position
    }
}

/// Chooses the meter and bar phase of a run of beats by likelihood over every candidate: meters 4, 3
/// and 6 (a 6/8 bar at the eighth-note level, the level the corpus counts 6/8 beats at), each at every
/// phase.
///
/// A candidate splits the beats into its downbeats and the rest. For each feature of ``BarFeatures``
/// the two groups get a mean each and share one variance (a Gaussian model), and the candidate's
/// log-likelihood is how much that split lowers the feature's variance: `−n/2 · log(within / total)`
/// — counted only when the downbeats lean the musically expected way (more kick, fewer non-kick
/// accents, a rise in level), and 0 otherwise. Every candidate has the same number of parameters, so
/// the likelihoods compare directly; a meter that is a multiple of the true one (6 for 3) puts half
/// the accented beats among "the rest" and loses, one that divides it cannot separate them. The
/// beats of a song are not independent draws, so the log-likelihoods are tempered by
/// ``temperature`` (the confidences would otherwise all read 1.000), and a prior over meters (4/4
/// being by far the commonest in the music maps are made for) is shared evenly over its phases.
/// In 4/4 the phase is then chosen by ``BarTemplate``, weights learned from songs with bar truth for
/// each feature at each position of the bar, which tell beat 1 from beat 3 where the kick and the bass
/// alone cannot; the confidences stay the likelihoods'. Bars whose downbeats the learned detector's
/// snare marks as the back-beat then move a beat (``BackBeat``), and a one-drop's bars start two beats
/// before the beat its kick and snare play together (``OneDrop``).
public struct MeterEstimator: Sendable {
    /// Prior probability of each meter considered.
    public static let prior: [(beatsPerBar: Int, probability: Double)] = [(4, 0.70), (3, 0.20), (6, 0.10)]

    /// The log-likelihoods are divided by this: about the number of beats whose accents move together.
    public static let temperature = 4.0

    /// Variance per beat, in standardised units, added to both sides of the likelihood ratio: what
    /// is left of a feature that only varies by its noise floor (``BarFeatures/standardised(_:floor:)``).
    static let noiseVariance = 0.05

    /// The meters considered (all of ``prior`` unless forced to one).
    public var meters: [Int]

    /// An estimator over `meters` (default: every meter of ``prior``).
    public init(meters: [Int] = MeterEstimator.prior.map(\.beatsPerBar)) {
        self.meters = meters
    }

    /// Fewest beats estimated from: two bars of the longest meter considered.
    var minimumBeats: Int { 2 * (meters.max() ?? 4) }

    /// The estimate for beats with `features`, or `nil` when there are too few beats.
    func estimate(_ features: BarFeatures) -> BarEstimate? {
        guard let count = features.features.first?.values.count, count >= minimumBeats, !meters.isEmpty else {
            return nil
        }
        var candidates: [(meter: Int, phase: Int, logPosterior: Double)] = []
        for meter in meters {
            let prior =
                Self.prior.first { $0.beatsPerBar == meter }?.probability ?? Self.prior.map(\.probability).min() ?? 0.1
            for phase in 0..<meter {
                var logLikelihood = 0.0
                for feature in features.features {
                    logLikelihood += Self.logLikelihood(feature, meter: meter, phase: phase)
                }
                candidates.append((meter, phase, logLikelihood / Self.temperature + log(prior / Double(meter))))
            }
        }
        // Posterior probabilities (log-sum-exp); ties keep the earlier candidate (4 before 3, phase 0 first).
        let top = candidates.map(\.logPosterior).max() ?? 0
        let weights = candidates.map { exp($0.logPosterior - top) }
        let total = weights.reduce(0, +)
        var best = 0
        for index in candidates.indices where weights[index] > weights[best] { best = index }
        // In 4/4 the phase is the learned template's (BarTemplate): the kick and the bass often fall on
        // beats 1 and 3 alike, or land harder on 3, and each feature's split into downbeats and the rest
        // cannot weigh where in the bar the other beats' accents fall (docs/bars.md, session 34).
        if candidates[best].meter == 4 {
            var phase = BarTemplate.phase(features, preferred: candidates[best].phase)
            // A downbeat is not the back-beat: bars whose downbeats and third beats the snare clearly
            // marks are a beat out (BackBeat), and move by one beat, to whichever neighbour the
            // template scores higher (the later on a tie).
            if BackBeat.onTheDownbeats(features.snares, phase: phase) {
                let scores = BarTemplate.scores(features)
                let later = (phase + 1) % 4
                let earlier = (phase + 3) % 4
                phase = scores[earlier] > scores[later] ? earlier : later
            }
            // A one-drop's kick and snare play together on its beat 3, alone in the bar (OneDrop).
            if let drop = OneDrop.drop(kicks: features.kicks, snares: features.snares) {
                phase = OneDrop.phase(drop: drop)
            }
            if let index = candidates.firstIndex(where: { $0.meter == 4 && $0.phase == phase }) { best = index }
        }
        let meter = candidates[best].meter
        var perMeter: [Int: Double] = [:]
        for (index, candidate) in candidates.enumerated() { perMeter[candidate.meter, default: 0] += weights[index] }
        let meterWeight = perMeter[meter] ?? weights[best]
        var runnerUp: (Int, Double)?
        for other in meters where other != meter {
            let probability = (perMeter[other] ?? 0) / total
            if runnerUp.map({ probability > $0.1 }) ?? true { runnerUp = (other, probability) }
        }
        return BarEstimate(
            beatsPerBar: meter, firstDownbeat: candidates[best].phase, phaseConfidence: weights[best] / meterWeight,
            meterConfidence: meterWeight / total, runnerUp: runnerUp)
    }

    /// How much splitting `feature` into the downbeats of (`meter`, `phase`) and the rest lowers its
    /// variance, as a Gaussian log-likelihood ratio; 0 when the downbeats lean the wrong way.
    static func logLikelihood(_ feature: BarFeatures.Feature, meter: Int, phase: Int) -> Double {
        let values = feature.values
        var sumA = 0.0
        var sumB = 0.0
        var countA = 0.0
        var countB = 0.0
        var squares = 0.0
        for (index, value) in values.enumerated() {
            if index >= phase, (index - phase) % meter == 0 {
                sumA += value
                countA += 1
            } else {
                sumB += value
                countB += 1
            }
            squares += value * value
        }
        guard countA > 0, countB > 0 else { return 0 }
        let n = countA + countB
        let meanA = sumA / countA
        let meanB = sumB / countB
        guard feature.sign * (meanA - meanB) > 0 else { return 0 }
        let mean = (sumA + sumB) / n
        let total = squares - n * mean * mean
        let within = squares - countA * meanA * meanA - countB * meanB * meanB
        // Variation below the features' noise floor (standardised: a variance of about 0.05 per beat
        // where the feature barely varies) explains nothing.
        let noise = n * Self.noiseVariance
        return -n / 2 * log((within + noise) / (total + noise))
    }
}
