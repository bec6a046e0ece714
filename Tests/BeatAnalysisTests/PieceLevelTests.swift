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
}
