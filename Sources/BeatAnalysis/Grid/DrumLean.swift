// SPDX-License-Identifier: GPL-3.0-or-later

import Foundation

extension GridFitter {
    /// Whether the learned drums keep the followed beats at `indices` of `beats` where they are: their
    /// strength at the midpoint after each beat less at the beat (`drums` reads the detector's kick
    /// plus snare at a time, `nil` where it does not read, as
    /// ``DrumDetector/strength(_:at:frameDuration:)``) has a negative mean, and that mean gains more
    /// than ``kickLeanPrice`` nats of Gaussian likelihood over a mean of 0 (``leanGain(_:)``, Akaike's
    /// price for its one parameter, as the slip repair weighs the low band). Fewer than
    /// ``DrumDetector/minimumBeats`` beats read (past the detector's five minutes, or no detector)
    /// keep nothing.
    ///
    /// The low band the kick step reads is a kick or a bass line between the beats; the learned
    /// detector tells them apart (docs/analyze-log.md, session 86).
    static func drumsKeep(_ indices: [Int], in beats: BeatSequence, drums: (Double) -> Float?) -> Bool {
        let differences = indices.filter { $0 + 1 < beats.beats.count }.compactMap { index -> Double? in
            guard let at = drums(beats.beats[index]), let mid = drums(beats.time(at: Double(index) + 0.5)) else {
                return nil
            }
            return Double(mid - at)
        }
        guard differences.count >= DrumDetector.minimumBeats else { return false }
        let lean = leanGain(differences)
        return lean.mean < 0 && lean.gain > kickLeanPrice
    }

    /// `body`'s result given the learned drums' kick plus snare at a time: `drums`' frames, filled in as
    /// they are read (``DrumDetector/strength(_:at:frameDuration:)`` at `hop`), or, with no detector,
    /// drums that read nowhere (`nil` at every time), which every step that reads them takes as before.
    static func withDrums<Result>(
        _ drums: SharedDrumFrames?, hop: Double, _ body: ((Double) -> Float?) -> Result
    ) -> Result {
        guard let drums else { return body { _ in nil } }
        return drums.reading { frames in body { DrumDetector.strength(&frames, at: $0, frameDuration: hop) } }
    }
}
