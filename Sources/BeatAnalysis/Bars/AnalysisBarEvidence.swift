// SPDX-License-Identifier: GPL-3.0-or-later

public import BeatMapKit
public import Foundation

/// The bar evidence of an analysed audio file, for `bar-phase`: the analyzer's own bar features (kick,
/// bass, harmony; `BarFeatures`) read at the beats asked about, and its meter estimate held to the
/// meter asked about (`MeterEstimator`).
public struct AnalysisBarEvidence: BarPhaseEvidence {
    /// The streaming pass's curves.
    public let analysis: AudioAnalysis
    /// The drum detector's frames (for the snare feature), shared by every copy of this evidence and
    /// with whoever else reads them.
    private let drums: SharedDrumFrames

    /// Evidence from `analysis`.
    public init(_ analysis: AudioAnalysis) {
        self.init(analysis, drums: SharedDrumFrames(analysis.drums))
    }

    /// Evidence from `analysis`, whose detector frames are `drums` (shared with ``AnalysisDrumEvidence``).
    init(_ analysis: AudioAnalysis, drums: SharedDrumFrames) {
        self.analysis = analysis
        self.drums = drums
    }

    public func barPhase(of beats: [TimeInterval], beatsPerBar: Int) -> BarPhaseReading? {
        guard beatsPerBar >= 1 else { return nil }
        let estimator = MeterEstimator(meters: [beatsPerBar])
        guard beats.count >= estimator.minimumBeats else { return nil }
        let features = BarFeatures.reader(analysis, drums: drums)(beats)
        guard let estimate = estimator.estimate(features) else { return nil }
        return BarPhaseReading(firstDownbeat: estimate.firstDownbeat, confidence: estimate.phaseConfidence)
    }
}
