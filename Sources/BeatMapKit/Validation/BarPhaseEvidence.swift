// SPDX-License-Identifier: GPL-3.0-or-later

public import Foundation

/// The bar phase the audio points to for a run of beats, and how sure it is.
public struct BarPhaseReading: Sendable, Equatable {
    /// Index (into the beats asked about) of the first downbeat: `0..<beatsPerBar`.
    public var firstDownbeat: Int
    /// The probability of this phase over all phases of the meter (0…1).
    public var confidence: Double

    /// A reading.
    public init(firstDownbeat: Int, confidence: Double) {
        self.firstDownbeat = firstDownbeat
        self.confidence = confidence
    }
}

/// What an audio file says about where bars start, for any beats: `bar-phase` asks it about the map's
/// own beats and meter. `BeatAnalysis` provides one from the analyzer's bar features (kick, bass,
/// harmony); the core library stays free of audio code.
public protocol BarPhaseEvidence: Sendable {
    /// The clearest bar phase of `beats` (seconds, increasing) in bars of `beatsPerBar`, or `nil` when
    /// there are too few beats to tell.
    func barPhase(of beats: [TimeInterval], beatsPerBar: Int) -> BarPhaseReading?
}

/// Bar evidence from onset strengths alone: downbeats are the beats whose onsets are the strongest (a
/// Gaussian split of the per-beat strengths, as the analyzer's meter estimate does with its features).
/// For the rules' examples, whose audio is a list of onsets.
struct OnsetAccentEvidence: BarPhaseEvidence {
    /// Onset times, increasing, and their strengths.
    let onsets: [Double]
    let strengths: [Double]

    func barPhase(of beats: [TimeInterval], beatsPerBar: Int) -> BarPhaseReading? {
        guard beatsPerBar >= 2, beats.count >= 2 * beatsPerBar, onsets.count == strengths.count else { return nil }
        let values = beats.map { beat -> Double in
            var best = 0.0
            var index = SortedSearch.lowerBound(onsets, beat - 0.035)
            while index < onsets.count, onsets[index] <= beat + 0.035 {
                best = max(best, strengths[index])
                index += 1
            }
            return best
        }
        let logLikelihoods = (0..<beatsPerBar).map { phase -> Double in
            var down: [Double] = []
            var rest: [Double] = []
            for (index, value) in values.enumerated() {
                if index >= phase, (index - phase) % beatsPerBar == 0 { down.append(value) } else { rest.append(value) }
            }
            let mean = values.reduce(0, +) / Double(values.count)
            let meanDown = down.reduce(0, +) / Double(max(down.count, 1))
            let meanRest = rest.reduce(0, +) / Double(max(rest.count, 1))
            guard meanDown > meanRest else { return 0 }
            let total = values.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } + 1e-9
            let within =
                down.reduce(0) { $0 + ($1 - meanDown) * ($1 - meanDown) }
                + rest.reduce(0) { $0 + ($1 - meanRest) * ($1 - meanRest) } + 1e-9
            return -Double(values.count) / 2 * log(within / total) / 4
        }
        let top = logLikelihoods.max() ?? 0
        let weights = logLikelihoods.map { exp($0 - top) }
        let total = weights.reduce(0, +)
        var best = 0
        for index in weights.indices where weights[index] > weights[best] { best = index }
        return BarPhaseReading(firstDownbeat: best, confidence: weights[best] / total)
    }
}
