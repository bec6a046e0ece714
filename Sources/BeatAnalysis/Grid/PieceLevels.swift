// SPDX-License-Identifier: GPL-3.0-or-later

import Foundation

// Each piece of a grid with tempo changes at its own metric level. The tracker holds its tempo
// within 30 % of the song's, and a stretch beyond that reach is taken at the octave nearest the
// song's tempo, within the tempo limits (``GridFitter/tempoRegions(_:period:)``). That is right for
// a song that steps from 120 to 160 BPM; but a medley that goes from a song at 150 BPM to one at 100
// got its first song at 75, half its tempo, which lies within reach of 100 where 150 does not. Where
// the model has several pieces (a real tempo change, by the penalised criterion), a new piece of
// music often starts; so each piece is read as a song is, by the level rules along its own beats.
extension GridFitter {
    /// `model` with each piece of a grid with tempo changes moved to the level the rules read along
    /// its own beats (``levelChange(_:novelty:lowBand:)``: twice, half or 3⁄2 its tempo, within the
    /// tempo limits), on the phase whose points stand out most and refined against the onsets; pieces
    /// the rules keep, one-grid models, ramps and followed beats are returned as they are.
    ///
    /// The rules' 3⁄2 reading moves a piece too since session 60: a medley from 90 to 150 BPM was
    /// mapped 90 → 100, its second song at ⅔ of its tempo, and comes out right with it. Session 42
    /// had left 3⁄2 to the song as a whole, as it put a stepped LMMS copy's first piece at the right
    /// tempo but half a beat out; that copy's off-beats carry its broadband onsets, and its map is
    /// wrong either way (docs/analyze-log.md, session 60).
    func levelPerPiece(
        _ model: GridModel, novelty: Novelty, matcher: PeakMatcher, lowBand: Novelty?
    ) -> GridModel {
        guard case .grid(let pieces) = model, pieces.count > 1 else { return model }
        return .grid(
            pieces.map { piece in
                guard
                    let change = levelChange(
                        BeatSequence(piece.grid, in: piece.span), novelty: novelty, lowBand: lowBand)
                else { return piece }
                let moved = novelty.levelGrid(piece.grid, tempoFactor: change.factor, in: piece.span).grid
                return GridPiece(
                    span: piece.span, grid: refine(moved, over: piece.span, matcher: matcher, fixedPeriod: false))
            })
    }
}
