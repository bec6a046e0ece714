// SPDX-License-Identifier: GPL-3.0-or-later

import Foundation
import TestSynth
import Testing

@testable import BeatAnalysis

/// Music as busy between its beats as on them can have beats that stand out less than
/// ``GridFitter/minimumSalience`` and still a beat: its onsets repeat one beat later
/// (``GridFitter/beatRepeats(period:_:)``), where onsets at random times do not.
@Suite("A weak beat whose onsets repeat")
struct WeakBeatTests {
    /// 120 BPM for `seconds` (hops of 10 ms): eight hits a beat at uneven times, all as loud as the
    /// beat's (1 at the hit's hop, half of it either side), the same eight every beat, and onset
    /// novelty at random over it all (up to 1.5 a hop): a dense mix whose guitars are as busy between
    /// the beats as its drums are on them.
    static func densePattern(seconds: Double) -> (novelty: Novelty, beats: [Double]) {
        let beats = stride(from: 1.0, to: seconds - 1, by: 0.5).map { $0 }
        return (laid(beats.map { (time: $0, interval: 0.5) }, seconds: seconds), beats)
    }

    /// Onset novelty (hops of 10 ms) over `seconds`: at each beat the eight hits, at the same fractions
    /// of its `interval` (at 0.5 s: 0, 50, 130, 210, 240, 330, 380 and 460 ms), each 1 at its hop and
    /// half of it either side, and random novelty over it all (up to 1.5 a hop).
    static func laid(_ beats: [(time: Double, interval: Double)], seconds: Double) -> Novelty {
        var numbers = SeededRandom(seed: 0x9E37_79B9_7F4A_7C15)
        let hop = 0.01
        let hits = [0, 5, 13, 21, 24, 33, 38, 46].map { Double($0) / 50 }
        var values = [Float](repeating: 0, count: Int((seconds / hop).rounded()))
        for beat in beats {
            for hit in hits {
                let index = Int(((beat.time + hit * beat.interval) / hop).rounded())
                guard index >= 1, index + 1 < values.count else { continue }
                values[index] += 1
                values[index - 1] += 0.5
                values[index + 1] += 0.5
            }
        }
        for index in values.indices { values[index] += Float(1.5 * Double.random(in: 0..<1, using: &numbers)) }
        return Novelty(envelope: OnsetEnvelope(values: values, hopDuration: hop, startTime: 0))
    }

    /// `pattern`'s novelty and beats over 60 s with a tracking context, its beats required to stand out
    /// less than ``GridFitter/minimumSalience`` (the case the weak-beat readings are for).
    static func weak(_ pattern: (Double) -> (novelty: Novelty, beats: [Double])) throws -> (
        novelty: Novelty, beats: [Double], context: GridFitter.TrackingContext
    ) {
        let (novelty, beats) = pattern(60)
        let context = SteadyGridTests.context(novelty, seconds: 60)
        let salience = GridFitter().trackedScore(beats, novelty: novelty, span: context.span)
        try #require(salience < GridFitter.minimumSalience, "the beats stand out \(salience)×")
        return (novelty, beats, context)
    }

    @Test("a dense pattern that repeats every beat is a beat, though its beats barely stand out")
    func densePatternRepeats() throws {
        let (novelty, _, context) = try Self.weak(Self.densePattern)
        let fitter = GridFitter()
        let periodicity = novelty.periodicity(period: 0.5, in: context.span)
        #expect(fitter.beatRepeats(period: 0.5, context) == periodicity, "periodicity \(periodicity)")
    }

    @Test("onsets at random times do not repeat at any beat", arguments: [0.3, 0.4, 0.5, 0.6, 0.75, 1.0])
    func randomOnsetsDoNotRepeat(period: Double) {
        var numbers = SeededRandom(seed: 0x2545_F491_4F6C_DD1D)
        // As many onsets as the dense pattern has (16 a second), at random times and heights.
        let onsets = (0..<960).map { _ in
            (time: 0.5 + Double.random(in: 0..<59, using: &numbers), height: Float.random(in: 0.2..<1, using: &numbers))
        }
        let novelty = OnsetCurves.peaks(onsets, seconds: 60)
        let context = SteadyGridTests.context(novelty, seconds: 60)
        #expect(GridFitter().beatRepeats(period: period, context) == nil)
        #expect(novelty.periodicity(period: period, in: context.span) < 0.1)
    }

    @Test("a short clip needs more repeating than a song: the evidence grows with the number of beats")
    func evidenceGrowsWithBeats() throws {
        // The same pattern, repeating about as much, over 10 beats and over 116.
        func reading(seconds: Double) -> (periodicity: Double, repeats: Bool) {
            let (novelty, _) = Self.densePattern(seconds: seconds)
            let context = SteadyGridTests.context(novelty, seconds: seconds)
            return (
                novelty.periodicity(period: 0.5, in: context.span),
                GridFitter().beatRepeats(period: 0.5, context) != nil
            )
        }
        let clip = reading(seconds: 7)
        let song = reading(seconds: 60)
        #expect(clip.periodicity > 0.3 && song.periodicity > 0.3, "clip \(clip.periodicity), song \(song.periodicity)")
        #expect(!clip.repeats)
        #expect(song.repeats)
    }

    @Test("a sound that changes little for its loudness (a drone's ripple) does not repeat, however exactly")
    func steadySoundDoesNotRepeat() throws {
        let (novelty, _) = Self.densePattern(seconds: 60)
        var context = SteadyGridTests.context(novelty, seconds: 60)
        // Changing 20 times its loudness: music. 4 times: a drone (GridFitter.steadySound is 8).
        context.change = 20
        #expect(GridFitter().beatRepeats(period: 0.5, context) != nil)
        context.change = 4
        #expect(GridFitter().beatRepeats(period: 0.5, context) == nil)
    }

    @Test("the tracked selection of a dense pattern keeps its beats and says the beat is weak")
    func selectionSaysWeak() throws {
        let (novelty, _) = Self.densePattern(seconds: 60)
        let context = SteadyGridTests.context(novelty, seconds: 60)
        let selection = try GridFitter().trackAndSelect(from: 0.5, context)
        let weak = try #require(selection.weakBeat)
        #expect(weak.salience < GridFitter.minimumSalience)
        #expect(weak.periodicity == novelty.periodicity(period: 0.5, in: context.span))
        let interval = BeatSequence(beats: selection.tracked).medianInterval
        #expect(abs(interval - 0.5) < 0.005, "tracked every \(interval) s")
    }
}

@Suite("The weak-beat warning")
struct WeakBeatWarningTests {
    @Test("names both readings and asks for a listen")
    func sentence() {
        let text = AnalysisWarning.weakBeat(salience: 3.1, periodicity: 0.22).description
        #expect(text.contains("only 3.1×"))
        #expect(text.contains("3.5×"))
        #expect(text.contains("autocorrelation 0.22"))
        #expect(text.contains("listen to the map"))
    }

    @Test("a fit with a weak beat is low-confidence, whatever its other scores")
    func lowConfidence() {
        var fit = GridFit(
            segments: [], beats: [1, 2, 3], method: .gridConstant, confidence: 1, score: 6, alternatives: [],
            span: 0...4)
        #expect(!fit.isLowConfidence)
        fit.weakBeat = WeakBeat(salience: 3.1, periodicity: 0.22)
        #expect(fit.isLowConfidence)
    }
}

/// A tempo that drifts has no one lag at which its onsets repeat through the song, but each tracked
/// interval is its own (``GridFitter/beatRepeats(along:_:)``, ``Novelty/periodicity(along:in:)``): music
/// whose beats barely stand out and whose tempo drifts (a performance without a click) is still
/// music, where onsets at random times are not, even with beats put on their strongest onsets.
@Suite("A weak beat whose tempo drifts")
struct DriftingWeakBeatTests {
    /// `WeakBeatTests.densePattern`'s eight hits a beat and random novelty, on beats around 120 BPM
    /// whose tempo drifts ±3 % over 30 s (the corpus's drift warp), the hits laid at the same
    /// fractions of each beat's own interval.
    static func driftingPattern(seconds: Double) -> (novelty: Novelty, beats: [Double]) {
        var beats: [Double] = []
        var time = 1.0
        while time < seconds - 1 {
            beats.append(time)
            time += 0.5 / (1 + 0.03 * sin(2 * Double.pi * time / 30))
        }
        let intervals = zip(beats.dropFirst(), beats).map { $0 - $1 }
        let laid = zip(beats, intervals + [intervals.last ?? 0.5]).map { (time: $0, interval: $1) }
        return (WeakBeatTests.laid(laid, seconds: seconds), beats)
    }

    @Test("a dense pattern whose tempo drifts repeats beat by beat, where one lag over the song misses it")
    func driftRepeatsBeatByBeat() throws {
        let (novelty, beats, context) = try WeakBeatTests.weak(Self.driftingPattern)
        let fitter = GridFitter()
        try #require(fitter.beatRepeats(period: 0.5, context) == nil, "one lag over the song already finds it")
        let along = novelty.periodicity(along: beats, in: context.span)
        #expect(along > 0.3, "periodicity beat by beat \(along)")
        #expect(fitter.beatRepeats(along: beats, context) == along)
    }

    @Test("onsets at random times do not repeat beat by beat, even with beats on their strongest onsets")
    func randomOnsetsDoNotRepeatAlongBeats() {
        var numbers = SeededRandom(seed: 0x2545_F491_4F6C_DD1D)
        let onsets = (0..<960).map { _ in
            (time: 0.5 + Double.random(in: 0..<59, using: &numbers), height: Float.random(in: 0.2..<1, using: &numbers))
        }
        let novelty = OnsetCurves.peaks(onsets, seconds: 60)
        let context = SteadyGridTests.context(novelty, seconds: 60)
        // A tracker's beats: about every half second, each on the strongest onset within 0.1 s.
        let beats = stride(from: 1.0, to: 59, by: 0.5).map { nominal in
            onsets.filter { abs($0.time - nominal) <= 0.1 }.max { $0.height < $1.height }?.time ?? nominal
        }
        let along = novelty.periodicity(along: beats, in: context.span)
        #expect(along < 0.1, "periodicity beat by beat \(along)")
        #expect(GridFitter().beatRepeats(along: beats, context) == nil)
    }

    @Test("a steady sound is not asked beat by beat either")
    func steadySoundNotAsked() {
        let (novelty, beats) = Self.driftingPattern(seconds: 60)
        var context = SteadyGridTests.context(novelty, seconds: 60)
        context.change = 20
        #expect(GridFitter().beatRepeats(along: beats, context) != nil)
        context.change = 4
        #expect(GridFitter().beatRepeats(along: beats, context) == nil)
    }
}
