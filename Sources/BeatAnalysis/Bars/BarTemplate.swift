// SPDX-License-Identifier: GPL-3.0-or-later

import Foundation

/// Which beat of a 4/4 bar is beat 1, by a template learned from songs with bar truth
/// (`tools/learned/bars.py`, docs/bars.md "The 4/4 bar template").
///
/// For a phase p (beat p is a downbeat), each feature of ``BarFeatures`` has a mean over the beats at
/// each position of the bar: 16 numbers for four features. The phase's score is their sum weighted by
/// ``weights`` (one weight per feature and position), and the highest score wins unless it is within
/// ``noiseMargin`` of the likelihoods' choice (``phase(_:preferred:)``). The weights are a
/// conditional logit's (the scores' softmax over the four phases being the probability of each),
/// fitted by maximum likelihood with an L2 penalty, one observation per song, on the corpus's train
/// split, Freedoom's train split and half of the composed songs. A feature without weights (`onset`,
/// read where there is no low band) does not count.
enum BarTemplate {
    /// The score of each phase `0..<4` of `features`' beats (phase p: beat p is a downbeat), or of
    /// the beats in `range` alone (phase p: beat `range.lowerBound + p` is a downbeat).
    static func scores(_ features: BarFeatures, in range: Range<Int>? = nil) -> [Double] {
        var scores = [Double](repeating: 0, count: 4)
        for feature in features.features {
            guard let weights = Self.weights[feature.name], weights.count == 4 else { continue }
            var sums = [Double](repeating: 0, count: 4)
            var counts = [Double](repeating: 0, count: 4)
            let beats = range?.clamped(to: feature.values.indices) ?? feature.values.indices
            for index in beats {
                let position = (index - beats.lowerBound) % 4
                sums[position] += feature.values[index]
                counts[position] += 1
            }
            let means = (0..<4).map { counts[$0] > 0 ? sums[$0] / counts[$0] : 0 }
            for phase in 0..<4 {
                for position in 0..<4 { scores[phase] += weights[position] * means[(position + phase) % 4] }
            }
        }
        return scores
    }

    /// How much a phase's score must beat `preferred`'s to be chosen over it: twice the spread of the
    /// difference between two phases' scores over six encodings of the same song (sample rates, mono
    /// and stereo, Ogg, MP3 and FLAC; about 0.03 on the train split's variants), so that a near tie
    /// does not come out one way in one encoding and the other way in the next.
    static let noiseMargin = 0.06

    /// The phase with the highest score, unless it beats `preferred` (the likelihoods' choice) by less
    /// than ``noiseMargin``: then `preferred`.
    static func phase(_ features: BarFeatures, preferred: Int) -> Int {
        let scores = scores(features)
        guard scores.indices.contains(preferred), let top = scores.indices.max(by: { scores[$0] < scores[$1] })
        else { return preferred }
        return scores[top] - scores[preferred] < Self.noiseMargin ? preferred : top
    }
}
