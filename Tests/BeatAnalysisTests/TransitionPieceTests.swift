// SPDX-License-Identifier: GPL-3.0-or-later

import Foundation
import Testing

@testable import BeatAnalysis

/// A piece at a tempo between its neighbours' that the onsets do not ask for goes
/// (`GridFitter.withoutTransitionPieces`): the tracker smoothed a step, the music did not.
@Suite("Transition pieces")
struct TransitionPieceTests {
    /// An onset envelope (hop 10 ms, 100 s) with a three-hop peak of strength 0.6 to 1 (in turn) at
    /// each of `times`.
    static func novelty(peaks times: [Double]) -> Novelty {
        let hop = 0.01
        var values = [Float](repeating: 0, count: 10_000)
        for (index, time) in times.enumerated() {
            let strength = 0.6 + 0.2 * Float(index % 3)
            let at = Int((time / hop).rounded())
            guard at > 0, at + 1 < values.count else { continue }
            values[at] = max(values[at], strength)
            values[at - 1] = max(values[at - 1], strength / 2)
            values[at + 1] = max(values[at + 1], strength / 2)
        }
        return Novelty(envelope: OnsetEnvelope(values: values, hopDuration: hop, startTime: 0))
    }

    typealias Grid = GridFitter.Grid

    /// 128 BPM from 1 s, stepping to 139.5 BPM at the 106th beat (50.21875 s), on to 90 s.
    static let step = 1 + 105 * 0.46875
    static let before = Grid(anchor: 1, period: 0.46875)
    static let after = Grid(anchor: step, period: 60 / 139.5)
    static let onsets =
        (0...105).map { before.time($0) } + (1...92).map { after.time($0) }.filter { $0 < 90 }

    /// The pieces left of ``before``, a lag at 133.5 BPM through the old tempo's beat `through` and
    /// ``after``, over `spans`, once the transition pieces are gone.
    static func withoutLag(through beat: Int, spans: [ClosedRange<Double>]) throws -> [GridPiece] {
        let lag = Grid(anchor: before.time(beat), period: 60 / 133.5)
        let grids = [before, lag, after]
        let model = GridModel.grid(zip(spans, grids).map { GridPiece(span: $0, grid: $1) })
        let result = GridFitter().withoutTransitionPieces(model, novelty: novelty(peaks: onsets))
        guard case .grid(let pieces) = result else { throw TestFailure.notAGrid }
        return pieces
    }

    /// A model that came back as no grid at all.
    enum TestFailure: Error { case notAGrid }

    @Test("a piece the tracker lagged through a step goes, and its neighbours meet at the step")
    func lagThroughAStep() throws {
        // The tracker's lag between 44 and 56 s, through the old tempo's beat at 44.6 s.
        let pieces = try Self.withoutLag(through: 93, spans: [1...44.1, 44.1...56.3, 56.3...90])
        try #require(pieces.count == 2)
        #expect(abs(pieces[0].span.upperBound - Self.step) < 0.01)
        #expect(abs(pieces[1].span.lowerBound - Self.step) < 0.01)
        #expect(pieces[0].grid == Self.before && pieces[1].grid == Self.after)
    }

    @Test("a lag that ends before the step still puts the change at the step")
    func lagEndingEarly() throws {
        // The tracker took the new tempo some 4 s early: its lag between 36 and 46 s, the new
        // tempo's piece from 46 s, the music's step at 50.2 s.
        let pieces = try Self.withoutLag(through: 75, spans: [1...36, 36...46, 46...90])
        try #require(pieces.count == 2)
        #expect(abs(pieces[0].span.upperBound - Self.step) < 0.01)
    }

    @Test("a piece whose own tempo the onsets play stays, and so does one outside its neighbours' tempi")
    func realPiecesStay() {
        // 120, 125 and 130 BPM, 30 s each: the middle one is music.
        let grids = [
            Grid(anchor: 0.5, period: 0.5), Grid(anchor: 30.5, period: 0.48), Grid(anchor: 60.5, period: 60 / 130),
        ]
        let onsets =
            (0..<60).map { grids[0].time($0) } + (0..<62).map { grids[1].time($0) }
            + (0..<64).map { grids[2].time($0) }
        let three = GridModel.grid([
            GridPiece(span: 0.5...30.5, grid: grids[0]), GridPiece(span: 30.5...60.5, grid: grids[1]),
            GridPiece(span: 60.5...90, grid: grids[2]),
        ])
        let fitter = GridFitter()
        #expect(fitter.withoutTransitionPieces(three, novelty: Self.novelty(peaks: onsets)) == three)
        // A slower middle piece (a section at ¾ of the tempo) is not between its neighbours.
        let slower = GridModel.grid([
            GridPiece(span: 1...44.1, grid: Self.before),
            GridPiece(span: 44.1...56.3, grid: Grid(anchor: 44, period: 0.625)),
            GridPiece(span: 56.3...90, grid: Self.after),
        ])
        #expect(fitter.withoutTransitionPieces(slower, novelty: Self.novelty(peaks: Self.onsets)) == slower)
        // Two pieces and followed beats come back as they are.
        let two = GridModel.grid([
            GridPiece(span: 1...50, grid: Self.before), GridPiece(span: 50...90, grid: Self.after),
        ])
        #expect(fitter.withoutTransitionPieces(two, novelty: Self.novelty(peaks: Self.onsets)) == two)
        #expect(fitter.withoutTransitionPieces(.follow, novelty: Self.novelty(peaks: Self.onsets)) == .follow)
    }

    @Test("a piece at ⅔ or half of the one tempo either side is a feel, not a tempo change, and goes")
    func feelsGo() throws {
        // 128 BPM throughout, an onset on every beat; the tracked beats took a dotted pulse (⅔, 85.3 BPM)
        // or half the tempo from 30 to 50 s, half or all of whose points meet those onsets.
        let song = Grid(anchor: 1, period: 0.46875)
        let onsets = (0...190).map { song.time($0) }
        let fitter = GridFitter()
        for ratio in [2.0 / 3.0, 0.5] {
            let feel = GridModel.grid([
                GridPiece(span: 1...30.2, grid: song),
                GridPiece(span: 30.2...50.1, grid: Grid(anchor: song.time(62), period: 0.46875 / ratio)),
                GridPiece(span: 50.1...90, grid: song),
            ])
            guard case .grid(let pieces) = fitter.withoutTransitionPieces(feel, novelty: Self.novelty(peaks: onsets))
            else { throw TestFailure.notAGrid }
            try #require(pieces.count == 2, "ratio \(ratio)")
            #expect(pieces.allSatisfy { $0.grid == song })
            #expect(pieces[0].span.lowerBound == 1 && pieces[1].span.upperBound == 90)
        }
        // Between two tempi 9 % apart, a section at ¾ of the first stays (realPiecesStay); so does one
        // at 110 BPM between two at 128, which is no metric level of theirs and which the onsets play.
        let other110 = Grid(anchor: 30.2, period: 60.0 / 110.0)
        let played =
            (0...62).map { song.time($0) } + (1...36).map { other110.time($0) }
            + (0...85).map { 50.1 + Double($0) * 0.46875 }
        let other = GridModel.grid([
            GridPiece(span: 1...30.2, grid: song),
            GridPiece(span: 30.2...50.1, grid: other110),
            GridPiece(span: 50.1...90, grid: Grid(anchor: 50.1, period: 0.46875)),
        ])
        #expect(fitter.withoutTransitionPieces(other, novelty: Self.novelty(peaks: played)) == other)
    }
}
