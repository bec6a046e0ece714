// SPDX-License-Identifier: GPL-3.0-or-later

import Foundation

/// What the audio says at each beat about where a bar starts, read from curves the streaming pass
/// already made (no extra pass over the audio): the kick drum (the low band's onset strength), the
/// snare and other accents that are not kicks (the broadband onset strength minus the kick's), and how
/// much louder the audio gets from the beat before (a section, a new chord or a crash starting).
///
/// Each feature is standardised over the song (zero mean, unit variance), so the meter estimate does
/// not depend on the mix's level.
struct BarFeatures: Sendable, Equatable {
    /// One feature: its values per beat, and the sign of its difference at downbeats (+1: larger at
    /// downbeats, −1: smaller).
    struct Feature: Sendable, Equatable {
        /// A short name, for diagnostics.
        var name: String
        /// The standardised value at each beat.
        var values: [Double]
        /// +1 when downbeats have the larger values, −1 when the smaller.
        var sign: Double
    }

    /// The features, each with one value per beat.
    var features: [Feature]

    /// Features of `beats` (seconds, increasing) from the broadband onset strength `novelty`, the low
    /// band's `lowNovelty` (``LowBand/novelty(levels:like:)``) and the mean square per hop of the whole
    /// signal (`levels`) and of its low band (`lowLevels`), `hopDuration` seconds apart from 0.
    init(
        beats: [Double], novelty: Novelty, lowNovelty: Novelty?, levels: [Float], lowLevels: [Float],
        hopDuration: Double
    ) {
        let count = beats.count
        var intervals = zip(beats.dropFirst(), beats).map { $0 - $1 }
        intervals.sort()
        let period = intervals.isEmpty ? 0.5 : intervals[intervals.count / 2]
        let window = min(0.035, 0.2 * period)

        func strongest(_ curve: Novelty, at t: Double) -> Double {
            var best = 0.0
            var x = t - window
            while x <= t + window {
                best = max(best, curve.value(at: x))
                x += curve.hop / 2
            }
            return best
        }
        // Mean log level over each beat's span (to the next beat).
        func spanLevels(_ values: [Float]) -> [Double] {
            guard !values.isEmpty, hopDuration > 0 else { return [Double](repeating: 0, count: count) }
            let loud = Double(values.max() ?? 0)
            let floor = max(loud * 1e-7, 1e-20)
            return beats.indices.map { index in
                let start = beats[index]
                let end = index + 1 < count ? beats[index + 1] : start + period
                let low = max(0, min(values.count - 1, Int((start / hopDuration).rounded(.down))))
                let high = max(low + 1, min(values.count, Int((end / hopDuration).rounded(.down))))
                var sum = 0.0
                for hop in low..<high { sum += Double(values[hop]) }
                return log(max(sum / Double(high - low), floor))
            }
        }
        func rises(_ values: [Double]) -> [Double] {
            values.indices.map { $0 == 0 ? 0 : values[$0] - values[$0 - 1] }
        }

        let kick = lowNovelty.map { curve in beats.map { strongest(curve, at: $0) } } ?? []
        let onset = beats.map { strongest(novelty, at: $0) }
        var features: [Feature] = []
        let kickZ = Self.standardised(kick)
        let onsetZ = Self.standardised(onset)
        if !kick.isEmpty {
            features.append(Feature(name: "kick", values: kickZ, sign: 1))
            features.append(
                Feature(name: "accent", values: Self.standardised(zip(onsetZ, kickZ).map { $0 - $1 }), sign: -1))
        } else {
            features.append(Feature(name: "onset", values: onsetZ, sign: 1))
        }
        features.append(Feature(name: "rise", values: Self.standardised(rises(spanLevels(levels))), sign: 1))
        if !lowLevels.isEmpty {
            features.append(
                Feature(name: "lowRise", values: Self.standardised(rises(spanLevels(lowLevels))), sign: 1))
        }
        self.features = features.filter { $0.values.count == count }
    }

    /// An instance with the given features (tests).
    init(features: [Feature]) {
        self.features = features
    }

    /// `values` less their mean, over their standard deviation, clipped to ±4 (so one crash cannot
    /// outweigh a song); all zeros when they do not vary.
    static func standardised(_ values: [Double]) -> [Double] {
        guard values.count >= 2 else { return values.map { _ in 0 } }
        let mean = values.reduce(0, +) / Double(values.count)
        let variance = values.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(values.count)
        guard variance > 1e-18 else { return values.map { _ in 0 } }
        let deviation = variance.squareRoot()
        return values.map { min(4, max(-4, ($0 - mean) / deviation)) }
    }
}
