// SPDX-License-Identifier: GPL-3.0-or-later

import Foundation
import Testing

@testable import BeatAnalysis

/// The ⅔ level needs a third of the beats to stand out: strong off-beats over a kick alike on every
/// beat (disco) are not a slower beat.
@Suite("Two-thirds level")
struct TwoThirdsLevelTests {
    /// An onset envelope (hop 10 ms) with a peak of `beat(k)` on beat `k` (every 0.5 s) and of
    /// `offBeat` halfway between beats.
    static func novelty(beat: (Int) -> Float, offBeat: Float) -> (Novelty, BeatSequence) {
        let hop = 0.01
        var values = [Float](repeating: 0, count: 6_000)
        var beats: [Double] = []
        for k in 0..<110 {
            let t = 1 + Double(k) * 0.5
            beats.append(t)
            values[Int((t / hop).rounded())] = beat(k)
            values[Int(((t + 0.25) / hop).rounded())] = offBeat
        }
        let envelope = OnsetEnvelope(values: values, hopDuration: hop, startTime: 0)
        return (Novelty(envelope: envelope), BeatSequence(beats: beats))
    }

    @Test("every beat alike with off-beats 1.5× as strong: the level is kept")
    func discoKeepsLevel() {
        let (novelty, sequence) = Self.novelty(beat: { _ in 1 }, offBeat: 1.5)
        let fitter = GridFitter()
        #expect(!fitter.thirdStandsOut(novelty, sequence))
        #expect(fitter.levelChange(sequence, novelty: novelty) == nil)
    }

    @Test("every third beat strong, the rest weak, the strong points 1½ beats apart: ⅔")
    func tripletsGoToTwoThirds() {
        let (novelty, sequence) = Self.novelty(beat: { $0 % 3 == 0 ? 1 : 0.3 }, offBeat: 0)
        let fitter = GridFitter()
        #expect(fitter.thirdStandsOut(novelty, sequence))
    }
}
