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
    /// piece: the simpler model stands where the onsets do not ask for the piece.
    ///
    /// A piece at a metrical ratio of both its neighbours (``beatTimeRatios``, within
    /// ``GridModelSelector/oneTempo``), which keep one tempo between them (within the same), goes too,
    /// whatever the onsets say (session 59): music that leaves a tempo for ⅔ or half of it and comes
    /// back is a half-time or a triplet feel, a section at another metric level, not a tempo change
    /// (the mean strength at a grid's points favours the sparser or the denser grid by how the music
    /// fills its off-beats, so it cannot judge between two levels). Other models come back as they are.
    func withoutTransitionPieces(_ model: GridModel, novelty: Novelty) -> GridModel {
        guard case .grid(var pieces) = model, pieces.count >= 3 else { return model }
        var index = 1
        while index + 1 < pieces.count {
            let (before, middle, after) = (pieces[index - 1], pieces[index], pieces[index + 1])
            let slower = max(before.grid.period, after.grid.period)
            let faster = min(before.grid.period, after.grid.period)
            // The cheap tests first: the best change is only looked for where one of them holds.
            let feel = Self.isAFeel(middle.grid, between: before.grid, and: after.grid)
            let between = middle.grid.period > faster && middle.grid.period < slower
            guard feel || between,
                let across = Self.bestChange(from: before.grid, to: after.grid, over: middle.span, novelty: novelty),
                feel
                    || across.score
                        >= Self.carried(
                            middle.grid, over: middle.span, base: novelty.mean(in: middle.span), novelty: novelty)
            else {
                index += 1
                continue
            }
            func middleOf(_ span: ClosedRange<Double>) -> Double { (span.lowerBound + span.upperBound) / 2 }
            let wide = middleOf(before.span)...middleOf(after.span)
            let change =
                Self.bestChange(from: before.grid, to: after.grid, over: wide, novelty: novelty)?.change
                ?? across.change
            pieces[index - 1].span = before.span.lowerBound...max(before.span.lowerBound, change)
            pieces[index + 1].span = min(change, after.span.upperBound)...after.span.upperBound
            pieces.remove(at: index)
        }
        return .grid(pieces)
    }

    /// Whether `middle` is at a metrical ratio (``beatTimeRatios``) of both `before` and `after`, and
    /// those two at one tempo, each within ``GridModelSelector/oneTempo`` (in log tempo).
    static func isAFeel(_ middle: Grid, between before: Grid, and after: Grid) -> Bool {
        guard middle.period > 0, before.period > 0, after.period > 0 else { return false }
        func metrical(_ grid: Grid) -> Bool {
            beatTimeRatios.contains { abs(log(middle.period / grid.period / $0)) < GridModelSelector.oneTempo }
        }
        return abs(log(before.period / after.period)) < GridModelSelector.oneTempo && metrical(before)
            && metrical(after)
    }
}
