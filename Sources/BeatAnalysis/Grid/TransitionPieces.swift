// SPDX-License-Identifier: GPL-3.0-or-later

import Foundation

// A tempo step the tracker smoothed into a piece of its own (docs/analyze.md, step 6). The tracker's
// tempo may step within its reach, but its path pays for a step whether it is taken at once or over a
// few beats, so through a step it can lag for a while. The tracked beats then lie on three lines: the
// old tempo, a stretch at a tempo between the two, and the new tempo; and the model selection, which
// reads the tracked beats, keeps the middle stretch as a piece. In the music there is no such tempo:
// its grid drifts off the onsets on either side of the real change, and a stepped copy's map ran ahead
// of the music for 14 s before its step (session 57, docs/analyze-log.md).
extension GridFitter {
    /// `model` without the grid pieces whose tempo lies strictly between their two neighbours' and
    /// whose own grid carries less onset strength over their span than the two neighbours' grids
    /// meeting there at the best change (``transitionScores(_:between:and:novelty:)``): the neighbours
    /// then meet at that change. As a tempo change must explain the onsets and not only the tracked
    /// beats (``GridModelSelector``, session 48), so must a piece: the simpler model stands where the
    /// onsets do not ask for the piece. Other models come back as they are.
    func withoutTransitionPieces(_ model: GridModel, novelty: Novelty) -> GridModel {
        guard case .grid(var pieces) = model, pieces.count >= 3 else { return model }
        var index = 1
        while index + 1 < pieces.count {
            let (before, middle, after) = (pieces[index - 1], pieces[index], pieces[index + 1])
            let slower = max(before.grid.period, after.grid.period)
            let faster = min(before.grid.period, after.grid.period)
            guard middle.grid.period > faster, middle.grid.period < slower else {
                index += 1
                continue
            }
            let scores = Self.transitionScores(middle, between: before, and: after, novelty: novelty)
            guard let change = scores.change, scores.neighbours >= scores.own else {
                index += 1
                continue
            }
            pieces[index - 1].span = before.span.lowerBound...max(before.span.lowerBound, change)
            pieces[index + 1].span = min(change, after.span.upperBound)...after.span.upperBound
            pieces.remove(at: index)
        }
        return .grid(pieces)
    }

    /// Over `middle`'s span: the onset strength its own grid points carry (the novelty at each, less
    /// the span's mean), and the most that `before`'s grid up to half a beat before a change and
    /// `after`'s from the change on carry, over the changes at `after`'s grid points in the span, with
    /// that change (`nil` where `after` has no point there).
    static func transitionScores(
        _ middle: GridPiece, between before: GridPiece, and after: GridPiece, novelty: Novelty
    ) -> (own: Double, neighbours: Double, change: Double?) {
        let span = middle.span
        let base = novelty.mean(in: span)
        func carried(_ grid: Grid, from lower: Double, to upper: Double) -> Double {
            guard upper >= lower else { return 0 }
            let first = grid.firstIndex(atOrAfter: lower)
            let last = grid.lastIndex(atOrBefore: upper)
            guard last >= first else { return 0 }
            return (first...last).reduce(0.0) { $0 + novelty.value(at: grid.time($1)) - base }
        }
        let own = carried(middle.grid, from: span.lowerBound, to: span.upperBound)
        let first = after.grid.firstIndex(atOrAfter: span.lowerBound)
        let last = after.grid.lastIndex(atOrBefore: span.upperBound)
        guard last >= first else { return (own, -.infinity, nil) }
        var best: (score: Double, change: Double)?
        for candidate in first...last {
            let change = after.grid.time(candidate)
            let score =
                carried(before.grid, from: span.lowerBound, to: change - 0.5 * before.grid.period)
                + carried(after.grid, from: change, to: span.upperBound)
            if best.map({ score > $0.score }) ?? true { best = (score, change) }
        }
        return (own, best?.score ?? -.infinity, best?.change)
    }
}
