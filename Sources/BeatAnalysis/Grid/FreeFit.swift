// SPDX-License-Identifier: GPL-3.0-or-later

import BeatMapKit
import Foundation

// `free`: aubio's own beats.
extension GridFitter {
    /// aubio's beats inside the musical span, each interval its own tempo segment.
    func freeFit(
        _ trackerBeats: [Double], novelty: Novelty, peaks: [OnsetPeak], span: ClosedRange<Double>, duration: Double
    ) throws(GridFitError)
        -> GridFit
    {
        let beats = spaced(trackerBeats, duration: duration)
        guard beats.count >= 2 else { throw .tooFewTrackerBeats(beats.count) }
        let segments = perBeatSegments(beats)
        let matcher = PeakMatcher(peaks: peaks)
        return GridFit(
            segments: segments, beats: beats, method: .aubioTempo,
            confidence: matchedFraction(beats, matcher: matcher, tolerance: 0.05),
            score: 0, alternatives: [], span: span)
    }
}
