// SPDX-License-Identifier: GPL-3.0-or-later

import Foundation
import Testing

@testable import BeatAnalysis

/// A first or last piece at a tempo the onsets do not ask for goes (`GridFitter.withoutUnplayedEndPieces`):
/// the tracker wandered through an intro or an outro, the music kept its tempo.
@Suite("End pieces")
struct EndPieceTests {
    typealias Grid = GridFitter.Grid

    /// 120 BPM from 0.5 s, stepping to 131 BPM at 60.5 s, on to 90 s: the music.
    static let steady = Grid(anchor: 0.5, period: 0.5)
    static let stepped = Grid(anchor: 60.5, period: 60 / 131)
    static let onsets = (0..<120).map { steady.time($0) } + (0..<65).map { stepped.time($0) }.filter { $0 < 90 }

    /// The pieces `model` keeps over ``onsets``.
    static func kept(_ model: GridModel) throws -> [GridPiece] {
        let result = GridFitter().withoutUnplayedEndPieces(
            model, novelty: TransitionPieceTests.novelty(peaks: onsets))
        guard case .grid(let pieces) = result else { throw TransitionPieceTests.TestFailure.notAGrid }
        return pieces
    }

    @Test("an intro and an outro at tempi the music does not play go; the real step stays")
    func wanderingEndsGo() throws {
        // The tracker took the first 12 s at 143.6 BPM and the last 10 s at 112 BPM.
        let model = GridModel.grid([
            GridPiece(span: 0.4...12.5, grid: Grid(anchor: 0.4, period: 60 / 143.6)),
            GridPiece(span: 12.5...60.5, grid: Self.steady),
            GridPiece(span: 60.5...80, grid: Self.stepped),
            GridPiece(span: 80...90, grid: Grid(anchor: 80, period: 60 / 112)),
        ])
        let pieces = try Self.kept(model)
        try #require(pieces.count == 2)
        #expect(pieces[0].grid == Self.steady && pieces[1].grid == Self.stepped)
        #expect(pieces[0].span == 0.4...60.5)
        #expect(pieces[1].span == 60.5...90)
    }

    @Test("end pieces the onsets play stay, and so does one at a metrical ratio of its neighbour")
    func playedEndsStay() throws {
        // The music's own step: each grid drifts off the other's onsets.
        let step = GridModel.grid([
            GridPiece(span: 0.5...60.5, grid: Self.steady), GridPiece(span: 60.5...90, grid: Self.stepped),
        ])
        #expect(
            try Self.kept(step) == [
                GridPiece(span: 0.5...60.5, grid: Self.steady), GridPiece(span: 60.5...90, grid: Self.stepped),
            ])
        // An intro read at ¾ of the tempo (90 BPM, a dotted pulse): a question of level, left alone
        // although the neighbour's grid carries the intro's onsets better.
        let dotted = [
            GridPiece(span: 0.5...20.5, grid: Grid(anchor: 0.5, period: 60 / 90)),
            GridPiece(span: 20.5...60.5, grid: Self.steady), GridPiece(span: 60.5...90, grid: Self.stepped),
        ]
        #expect(try Self.kept(.grid(dotted)) == dotted)
        // One grid and followed beats come back as they are.
        let one = [GridPiece(span: 0.5...90, grid: Self.steady)]
        #expect(try Self.kept(.grid(one)) == one)
        #expect(
            GridFitter().withoutUnplayedEndPieces(.follow, novelty: TransitionPieceTests.novelty(peaks: Self.onsets))
                == .follow)
    }
}
