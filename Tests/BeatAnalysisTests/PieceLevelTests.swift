// SPDX-License-Identifier: GPL-3.0-or-later

import Foundation
import Testing

@testable import BeatAnalysis

/// Each piece of a grid with tempo changes is read at its own metric level
/// (``GridFitter/levelPerPiece(_:novelty:matcher:lowBand:)``): a medley's song at 150 BPM that the
/// tracker took at 75, next to a song at 100 BPM, comes back to 150. End to end, on drums:
/// `TempoRegionTests.bigSteps`.
@Suite("Metric level per tempo piece")
struct PieceLevelTests {
    /// An onset envelope (hop 10 ms) over 82 s: from 1 s to 41 s a peak of 1 every 0.4 s (150 BPM, every
    /// beat alike); from 41 s to 81 s beats every 0.6 s (100 BPM), accented 1 and 0.6 in turn, with an
    /// eighth of 0.2 between them. Each peak is three hops wide, as a real onset's rise.
    static func medley() -> (Novelty, PeakMatcher) {
        let hop = 0.01
        var values = [Float](repeating: 0, count: 8_200)
        func put(_ time: Double, _ strength: Float) {
            let index = Int((time / hop).rounded())
            values[index] = max(values[index], strength)
            values[index - 1] = max(values[index - 1], strength / 2)
            values[index + 1] = max(values[index + 1], strength / 2)
        }
        for k in 0..<100 { put(1 + Double(k) * 0.4, 1) }
        for k in 0..<67 {
            let t = 41 + Double(k) * 0.6
            put(t, k % 2 == 0 ? 1 : 0.6)
            put(t + 0.3, 0.2)
        }
        let novelty = Novelty(envelope: OnsetEnvelope(values: values, hopDuration: hop, startTime: 0))
        return (novelty, PeakMatcher(peaks: novelty.envelope.peaks()))
    }

    /// The two pieces as the tracker left them: the first song at half its tempo (0.8 s a beat).
    static let tracked = [
        GridPiece(span: 1...40.6, grid: GridFitter.Grid(anchor: 1, period: 0.8)),
        GridPiece(span: 41...80.6, grid: GridFitter.Grid(anchor: 41, period: 0.6)),
    ]

    @Test("the piece at half its tempo doubles; the piece at its level stays where it is")
    func medleyPieces() throws {
        let (novelty, matcher) = Self.medley()
        let fitter = GridFitter()
        let model = fitter.levelPerPiece(.grid(Self.tracked), novelty: novelty, matcher: matcher, lowBand: nil)
        guard case .grid(let pieces) = model else {
            Issue.record("expected a grid model, got \(model)")
            return
        }
        try #require(pieces.count == 2)
        #expect(abs(pieces[0].grid.period - 0.4) < 0.002)
        #expect(pieces[0].span == Self.tracked[0].span)
        // On the beats of the song: the doubled grid has a point within 5 ms of 1 s + k · 0.4 s.
        let offset = (pieces[0].grid.anchor - 1).truncatingRemainder(dividingBy: 0.4)
        #expect(min(abs(offset), 0.4 - abs(offset)) < 0.005)
        #expect(pieces[1] == Self.tracked[1])
    }

    @Test("a piece at two thirds of its tempo moves to it, on its beats")
    func pieceAtTwoThirds() throws {
        let (novelty, matcher) = Self.medley()
        // The first song (150 BPM) tracked at 100 BPM, the second song's tempo: every other point falls
        // between its beats, and a point every two thirds of a beat is on each of them.
        let tracked = [GridPiece(span: 1...40.6, grid: GridFitter.Grid(anchor: 1, period: 0.6)), Self.tracked[1]]
        let model = GridFitter().levelPerPiece(.grid(tracked), novelty: novelty, matcher: matcher, lowBand: nil)
        guard case .grid(let pieces) = model else {
            Issue.record("expected a grid model, got \(model)")
            return
        }
        try #require(pieces.count == 2)
        #expect(abs(pieces[0].grid.period - 0.4) < 0.002)
        let offset = (pieces[0].grid.anchor - 1).truncatingRemainder(dividingBy: 0.4)
        #expect(min(abs(offset), 0.4 - abs(offset)) < 0.005)
        #expect(pieces[1] == Self.tracked[1])
    }

    @Test("a model of one grid is left to the song's own level rules")
    func oneGridUnchanged() {
        let (novelty, matcher) = Self.medley()
        let one = GridModel.grid([Self.tracked[0]])
        #expect(GridFitter().levelPerPiece(one, novelty: novelty, matcher: matcher, lowBand: nil) == one)
    }

    /// An onset envelope (hop 10 ms) of one song whose tempo steps at 41 s, from `periods.0` to
    /// `periods.1` seconds a beat, over 82 s: its beats of strength 1 and, in a part that is `busy`,
    /// an eighth of 0.5 and sixteenths of 0.3 between them (a part that is not has nothing between its
    /// beats, so that read at twice its tempo every other point is empty).
    static func step(periods: (Double, Double), busy: (Bool, Bool)) -> (Novelty, PeakMatcher) {
        let hop = 0.01
        var values = [Float](repeating: 0, count: 8_200)
        func put(_ time: Double, _ strength: Float) {
            let index = Int((time / hop).rounded())
            values[index] = max(values[index], strength)
            values[index - 1] = max(values[index - 1], strength / 2)
            values[index + 1] = max(values[index + 1], strength / 2)
        }
        for (start, end, period, isBusy) in [(1.0, 40.6, periods.0, busy.0), (41.0, 80.6, periods.1, busy.1)] {
            var time = start
            while time < end {
                put(time, 1)
                if isBusy {
                    put(time + period / 2, 0.5)
                    put(time + period / 4, 0.3)
                    put(time + 3 * period / 4, 0.3)
                }
                time += period
            }
        }
        let novelty = Novelty(envelope: OnsetEnvelope(values: values, hopDuration: hop, startTime: 0))
        return (novelty, PeakMatcher(peaks: novelty.envelope.peaks()))
    }

    /// A song stepping from 75 to 81 BPM, tracked at twice its tempo (150 and 162 BPM: within the
    /// tracker's reach of each other).
    static let stepTracked = [
        GridPiece(span: 1...40.6, grid: GridFitter.Grid(anchor: 1, period: 0.4)),
        GridPiece(span: 41...80.6, grid: GridFitter.Grid(anchor: 41, period: 0.37)),
    ]

    @Test("a step's pieces keep one octave: the piece that alone would halve stays with its neighbour")
    func stepKeepsOneOctave() throws {
        // Alone, the first piece halves (every other point empty) and the second stays (eighths and
        // sixteenths between its beats): moved one by one, the map would say 75 → 162 BPM.
        let (novelty, matcher) = Self.step(periods: (0.8, 0.74), busy: (false, true))
        let fitter = GridFitter()
        let pieces = Self.stepTracked.map { BeatSequence($0.grid, in: $0.span) }
        try #require(pieces.count == 2)
        #expect(fitter.levelChange(pieces[0], novelty: novelty)?.factor == 0.5)
        #expect(fitter.levelChange(pieces[1], novelty: novelty) == nil)
        let model = fitter.levelPerPiece(.grid(Self.stepTracked), novelty: novelty, matcher: matcher, lowBand: nil)
        #expect(model == .grid(Self.stepTracked))
    }

    @Test("a step's pieces halve together where each of them asks for it")
    func stepHalvesTogether() throws {
        let (novelty, matcher) = Self.step(periods: (0.8, 0.74), busy: (false, false))
        let model = GridFitter().levelPerPiece(
            .grid(Self.stepTracked), novelty: novelty, matcher: matcher, lowBand: nil)
        guard case .grid(let pieces) = model else {
            Issue.record("expected a grid model, got \(model)")
            return
        }
        try #require(pieces.count == 2)
        #expect(abs(pieces[0].grid.period - 0.8) < 0.004)
        #expect(abs(pieces[1].grid.period - 0.74) < 0.004)
    }

    @Test("a step's piece above the tempo limits moves as it must; its neighbour keeps its level")
    func stepBeyondTheLimits() throws {
        // 100 → 109 BPM tracked at 200 → 218: the later piece lies above 200 BPM (and its 3 % slack).
        let (novelty, matcher) = Self.step(periods: (0.6, 0.55), busy: (true, true))
        let tracked = [
            GridPiece(span: 1...40.6, grid: GridFitter.Grid(anchor: 1, period: 0.3)),
            GridPiece(span: 41...80.6, grid: GridFitter.Grid(anchor: 41, period: 0.275)),
        ]
        let fitter = GridFitter()
        let first = try #require(tracked.first)
        #expect(fitter.levelChange(BeatSequence(first.grid, in: first.span), novelty: novelty) == nil)
        let model = fitter.levelPerPiece(.grid(tracked), novelty: novelty, matcher: matcher, lowBand: nil)
        guard case .grid(let pieces) = model else {
            Issue.record("expected a grid model, got \(model)")
            return
        }
        try #require(pieces.count == 2)
        #expect(pieces[0] == tracked[0])
        #expect(abs(pieces[1].grid.period - 0.55) < 0.004)
    }
}
