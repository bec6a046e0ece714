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
    /// meeting there at the best change (``bestChange(from:to:over:novelty:)``). The neighbours then
    /// meet at the best change between the middles of their own spans: the tracker's lag can start
    /// its piece well before the music's step, or end it well after. As a tempo change must explain
    /// the onsets and not only the tracked beats (``GridModelSelector``, session 48), so must a
    /// piece: the simpler model stands where the onsets do not ask for the piece. Other models come
    /// back as they are.
    func withoutTransitionPieces(_ model: GridModel, novelty: Novelty) -> GridModel {
        guard case .grid(var pieces) = model, pieces.count >= 3 else { return model }
        var index = 1
        while index + 1 < pieces.count {
            let (before, middle, after) = (pieces[index - 1], pieces[index], pieces[index + 1])
            let slower = max(before.grid.period, after.grid.period)
            let faster = min(before.grid.period, after.grid.period)
            let own = Self.carried(
                middle.grid, over: middle.span, base: novelty.mean(in: middle.span), novelty: novelty)
            guard middle.grid.period > faster, middle.grid.period < slower,
                let across = Self.bestChange(from: before.grid, to: after.grid, over: middle.span, novelty: novelty),
                across.score >= own
            else {
                index += 1
                continue
            }
            let wide =
                (before.span.lowerBound + before.span.upperBound) / 2...(after.span.lowerBound + after.span.upperBound)
                / 2
            let change =
                Self.bestChange(from: before.grid, to: after.grid, over: wide, novelty: novelty)?.change
                ?? across.change
            pieces[index - 1].span = before.span.lowerBound...max(before.span.lowerBound, change)
            pieces[index + 1].span = min(change, after.span.upperBound)...after.span.upperBound
            pieces.remove(at: index)
        }
        return .grid(pieces)
    }

    /// The onset strength `grid`'s points in `range` carry: the novelty at each, less `base`.
    static func carried(_ grid: Grid, over range: ClosedRange<Double>, base: Double, novelty: Novelty) -> Double {
        let first = grid.firstIndex(atOrAfter: range.lowerBound)
        let last = grid.lastIndex(atOrBefore: range.upperBound)
        guard last >= first else { return 0 }
        return (first...last).reduce(0.0) { $0 + novelty.value(at: grid.time($1)) - base }
    }

    /// Over `zone`: the change, at a point of `after`'s grid, where `before`'s grid up to half its beat
    /// before it and `after`'s from it on carry the most onset strength (``carried(_:over:base:novelty:)``,
    /// less the zone's mean), and that strength, the earliest such change on a tie; `nil` where `after`
    /// has no point in the zone.
    static func bestChange(from before: Grid, to after: Grid, over zone: ClosedRange<Double>, novelty: Novelty)
        -> (score: Double, change: Double)?
    {
        let base = novelty.mean(in: zone)
        let first = after.firstIndex(atOrAfter: zone.lowerBound)
        let last = after.lastIndex(atOrBefore: zone.upperBound)
        guard last >= first else { return nil }
        var best: (score: Double, change: Double)?
        for candidate in first...last {
            let change = after.time(candidate)
            let end = change - 0.5 * before.period
            let score =
                (end >= zone.lowerBound
                    ? carried(before, over: zone.lowerBound...end, base: base, novelty: novelty) : 0)
                + carried(after, over: change...zone.upperBound, base: base, novelty: novelty)
            // The earliest of changes that carry the same (a change at a beat both grids share
            // gives the same beats a point later).
            if best.map({ score > $0.score + 1e-9 }) ?? true { best = (score, change) }
        }
        return best
    }
}
