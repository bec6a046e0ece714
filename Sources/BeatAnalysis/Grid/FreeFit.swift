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
        var beats: [Double] = []
        for beat in trackerBeats where beat >= 0 && beat < duration {
            // Keep beats in time order and at most 400 BPM apart.
            if let last = beats.last, beat - last < 0.15 { continue }
            beats.append(beat)
        }
        guard beats.count >= 2 else { throw .tooFewTrackerBeats(beats.count) }
        var segments: [FittedSegment] = []
        for index in beats.indices {
            let interval = index + 1 < beats.count ? beats[index + 1] - beats[index] : beats[index] - beats[index - 1]
            let bpm = min(TempoLimits.maximumBPM, max(TempoLimits.minimumBPM, 60 / interval))
            segments.append(FittedSegment(bpm: bpm, firstBeat: beats[index], beats: [beats[index]]))
        }
        let matcher = PeakMatcher(peaks: peaks)
        return GridFit(
            segments: segments, beats: beats, method: .aubioTempo,
            confidence: matchedFraction(beats, matcher: matcher, tolerance: 0.05),
            score: 0, alternatives: [], span: span)
    }
}
