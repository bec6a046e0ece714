// SPDX-License-Identifier: GPL-3.0-or-later

public import BeatMapKit
public import Foundation

/// The bar evidence of an analysed audio file, for `bar-phase`: the analyzer's own bar features (kick,
/// bass, harmony; `BarFeatures`) read at the beats asked about, and its meter estimate held to the
/// meter asked about (`MeterEstimator`).
public struct AnalysisBarEvidence: BarPhaseEvidence {
    /// The streaming pass's curves.
    public let analysis: AudioAnalysis

    /// Evidence from `analysis`.
    public init(_ analysis: AudioAnalysis) {
        self.analysis = analysis
    }

    public func barPhase(of beats: [TimeInterval], beatsPerBar: Int) -> BarPhaseReading? {
        guard beatsPerBar >= 1 else { return nil }
        let estimator = MeterEstimator(meters: [beatsPerBar])
        guard beats.count >= estimator.minimumBeats else { return nil }
        let features = BarFeatures(beats: beats, analysis: analysis)
        guard let estimate = estimator.estimate(features) else { return nil }
        return BarPhaseReading(firstDownbeat: estimate.firstDownbeat, confidence: estimate.phaseConfidence)
    }
}
