// SPDX-License-Identifier: GPL-3.0-or-later

import Foundation

// Each piece of a grid with tempo changes at its own metric level. The tracker holds its tempo
// within 30 % of the song's, and a stretch beyond that reach is taken at the octave nearest the
// song's tempo, within the tempo limits (``GridFitter/tempoRegions(_:period:)``). That is right for
// a song that steps from 120 to 160 BPM; but a medley that goes from a song at 150 BPM to one at 100
// got its first song at 75, half its tempo, which lies within reach of 100 where 150 does not. Where
// the model has several pieces (a real tempo change, by the penalised criterion), a new piece of
// music often starts; so each piece is read as a song is, by the octave rules along its own beats.
extension GridFitter {
    /// `model` with each piece of a grid with tempo changes moved to the octave the level rules read
    /// along its own beats (``levelChange(_:novelty:lowBand:)``: twice or half its tempo, within the
    /// tempo limits), on the phase whose points stand out most and refined against the onsets; pieces
    /// the rules keep, one-grid models, ramps and followed beats are returned as they are.
    ///
    /// Only the octaves move a piece: the rules' 3⁄2 reading, measured the same way on the train
    /// splits (session 42), put the right level on a stepped copy's pieces but half a beat out, and is
    /// left to the song as a whole.
    func levelPerPiece(
        _ model: GridModel, novelty: Novelty, matcher: PeakMatcher, lowBand: Novelty?
    ) -> GridModel {
        guard case .grid(let pieces) = model, pieces.count > 1 else { return model }
        return .grid(
            pieces.map { piece in
                guard
                    let change = levelChange(
                        BeatSequence(piece.grid, in: piece.span), novelty: novelty, lowBand: lowBand),
                    change.factor == 2 || change.factor == 0.5
                else { return piece }
                let moved = novelty.levelGrid(piece.grid, tempoFactor: change.factor, in: piece.span).grid
                return GridPiece(
                    span: piece.span, grid: refine(moved, over: piece.span, matcher: matcher, fixedPeriod: false))
            })
    }
}
