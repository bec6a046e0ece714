// SPDX-License-Identifier: GPL-3.0-or-later

import Foundation
import Testing

@testable import BeatAnalysis

/// The ternary levels. The 3⁄2 level needs none of its own thirds to stand out, as one does when the
/// beat is swung. The ⅔ level is never chosen (session 41: on the train songs the rule that chose it
/// decided one map, wrongly), even where a third of the beats stands out.
@Suite("Ternary levels")
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

    /// An onset envelope (hop 10 ms) over 58 s with a peak of `strength(t)` at each of `times` (three
    /// hops wide, as a real onset's rise), and the beats every 0.6 s (100 BPM) from 1 s: their thirds
    /// fall on whole hops.
    static func novelty(peaks times: [Double], strength: (Double) -> Float) -> (Novelty, BeatSequence) {
        let hop = 0.01
        var values = [Float](repeating: 0, count: 6_000)
        for t in times {
            let index = Int((t / hop).rounded())
            values[index] = strength(t)
            values[index - 1] = max(values[index - 1], strength(t) / 2)
            values[index + 1] = max(values[index + 1], strength(t) / 2)
        }
        let envelope = OnsetEnvelope(values: values, hopDuration: hop, startTime: 0)
        return (Novelty(envelope: envelope), BeatSequence(beats: (0..<95).map { 1 + Double($0) * 0.6 }))
    }

    @Test("points every 1½ beats outscore the beats and a third of the beats stands out: the level is kept, never ⅔")
    func neverTwoThirds() {
        // Tracked at 100 BPM (a beat every 0.6 s): every third beat 1, the others 0.1, and the
        // midpoint after each beat numbered 1 modulo 3 0.4, so the points every 1½ beats (0.9 s) carry
        // 0.7 on average against the beats' 0.4 and their thirds stand out: what the ⅔ rule took for
        // the music's beat until session 41.
        var strengths: [Int: Float] = [:]  // by half-beat number
        for k in 0..<95 {
            strengths[2 * k] = k % 3 == 0 ? 1 : 0.1
            if k % 3 == 1 { strengths[2 * k + 1] = 0.4 }
        }
        let times = strengths.keys.sorted().map { 1 + Double($0) * 0.3 }
        let (novelty, sequence) = Self.novelty(peaks: times) { strengths[Int((($0 - 1) / 0.3).rounded())] ?? 0 }
        let fitter = GridFitter()
        #expect(fitter.thirdStandsOut(novelty, sequence))
        #expect(fitter.levelChange(sequence, novelty: novelty) == nil)
        let grid = GridFitter.Grid(anchor: 1, period: 0.6)
        let matcher = PeakMatcher(peaks: novelty.envelope.peaks())
        let chosen = fitter.chooseLevel(grid, novelty: novelty, matcher: matcher, span: 1...57)
        #expect(abs(chosen.grid.period - 0.6) < 0.005)
    }

    @Test("a swung beat (a strong point at ⅔ of each beat, a weaker one at ⅓) keeps its level; 3⁄2 is set aside")
    func swingKeepsLevel() throws {
        // Each beat: its own onset and the swung eighth at ⅔ (both 1), the triplet at ⅓ (0.6). The 3⁄2
        // level's points land on beat, swung eighth and triplet in turn.
        var strengths: [Int: Float] = [:]
        for k in 0..<95 {
            for (third, strength) in [(0, 1 as Float), (1, 0.6), (2, 1)] { strengths[3 * k + third] = strength }
        }
        let times = strengths.keys.sorted().map { 1 + Double($0) * 0.2 }
        let (novelty, sequence) = Self.novelty(peaks: times) { strengths[Int((($0 - 1) / 0.2).rounded())] ?? 0 }
        let fitter = GridFitter()
        #expect(fitter.levelChange(sequence, novelty: novelty) == nil)
        let grid = GridFitter.Grid(anchor: 1, period: 0.6)
        let matcher = PeakMatcher(peaks: novelty.envelope.peaks())
        let chosen = fitter.chooseLevel(grid, novelty: novelty, matcher: matcher, span: 1...57)
        #expect(abs(chosen.grid.period - 0.6) < 0.005)
        let setAside = try #require(chosen.setAside)
        #expect(abs(setAside.period - 0.4) < 0.005)
    }

    @Test("beats every ⅔ of a tracked beat and eighths between them (150 BPM tracked at 100): 3⁄2")
    func evenThirdsGoToThreeHalves() {
        // 150 BPM: beats every 0.4 s (1), eighths between them (0.5). Tracked at 100, the beats land on
        // a beat and an eighth in turn; the points every ⅔ of a beat are the 150 BPM beats, all alike.
        let times = (0..<280).map { 1 + Double($0) * 0.2 }
        let (novelty, sequence) = Self.novelty(peaks: times) { t in
            Int(((t - 1) / 0.2).rounded()).isMultiple(of: 2) ? 1 : 0.5
        }
        #expect(GridFitter().levelChange(sequence, novelty: novelty) == LevelChange(factor: 1.5))
        let grid = GridFitter.Grid(anchor: 1, period: 0.6)
        let matcher = PeakMatcher(peaks: novelty.envelope.peaks())
        let chosen = GridFitter().chooseLevel(grid, novelty: novelty, matcher: matcher, span: 1...57)
        #expect(abs(chosen.grid.period - 0.4) < 0.005)
        #expect(chosen.setAside == nil)
    }
}
