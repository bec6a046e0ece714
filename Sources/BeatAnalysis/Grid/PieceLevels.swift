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
        var changes = pieces.map { levelChange(BeatSequence($0.grid, in: $0.span), novelty: novelty, lowBand: lowBand) }
        let limits = levelTempoLimits
        for music in Self.piecesOfMusic(pieces.map(\.grid.period)) where music.count > 1 {
            let octave = octaveChange(changes[music])
            // A piece beyond the tempo limits moves as it must; the others move by an octave only together.
            for index in music where limits.contains(60 / pieces[index].grid.period) {
                if octave != nil || changes[index].map(Self.isOctave) == true { changes[index] = octave }
            }
        }
        return .grid(
            zip(pieces, changes).map { piece, change in
                guard let change else { return piece }
                let moved = novelty.levelGrid(piece.grid, tempoFactor: change.factor, in: piece.span).grid
                return GridPiece(
                    span: piece.span, grid: refine(moved, over: piece.span, matcher: matcher, fixedPeriod: false))
            })
    }

    /// The runs of consecutive grid pieces (their `periods`, seconds, in time order) that are one piece
    /// of music: each tempo within the tracker's reach (``trackerRange``) of its neighbour's. A tempo
    /// change within that reach is the same song's: a step, not a medley's next song.
    static func piecesOfMusic(_ periods: [Double]) -> [Range<Int>] {
        var runs: [Range<Int>] = []
        var start = 0
        for index in 1...periods.count {
            if index < periods.count, periods[index] > 0, periods[index - 1] > 0,
                max(periods[index], periods[index - 1]) < trackerRange * min(periods[index], periods[index - 1])
            {
                continue
            }
            runs.append(start..<index)
            start = index
        }
        return runs
    }

    /// Whether `change` moves by an octave (twice or half the tempo).
    static func isOctave(_ change: LevelChange) -> Bool { change.factor == 2 || change.factor == 0.5 }

    /// The octave every one of a piece of music's grid pieces asks for, each read alone by the level
    /// rules (`changes`), or `nil`.
    ///
    /// Why: a step within the tracker's reach does not change the song's metric level, so one side of
    /// it moved an octave and the other not is a half-time (or double-time) section, which is not a
    /// tempo change (issue #11): a funk song stepped from 65 to 71 BPM whose first piece alone read
    /// as twice its tempo came out 130 → 71. The octave is the song's only where the music asks for
    /// it throughout. A piece's own 3⁄2 stays its own: a medley's next song tracked at ⅔ of its
    /// tempo lies within reach of the song before it (session 60).
    func octaveChange(_ changes: ArraySlice<LevelChange?>) -> LevelChange? {
        guard let first = changes.first ?? nil, Self.isOctave(first), changes.allSatisfy({ $0 == first }) else {
            return nil
        }
        return first
    }
}
