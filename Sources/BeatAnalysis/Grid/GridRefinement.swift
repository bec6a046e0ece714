// SPDX-License-Identifier: GPL-3.0-or-later

import BeatMapKit
import Foundation

// One grid: its period, phase and metric level, refined by least squares against the onsets.
extension GridFitter {
    struct SegmentFit {
        var span: ClosedRange<Double>
        var grid: Grid
        var score: Double
        var alternatives: [MetricAlternative]
    }

    /// A beat grid: `anchor + k × period`.
    struct Grid: Equatable {
        var anchor: Double
        var period: Double

        func time(_ k: Int) -> Double { anchor + Double(k) * period }
        /// The index of the grid point nearest `t`.
        func nearestIndex(to t: Double) -> Int { Int(((t - anchor) / period).rounded()) }
        /// Whether `t` lies within ``GridModelSelector/explainTolerance`` of the nearest grid point.
        func explains(_ t: Double) -> Bool {
            abs(t - time(nearestIndex(to: t))) <= GridModelSelector.explainTolerance
        }
        /// The grid index at or after `t`.
        func firstIndex(atOrAfter t: Double) -> Int { Int(((t - anchor) / period - 1e-9).rounded(.up)) }
        func lastIndex(atOrBefore t: Double) -> Int { Int(((t - anchor) / period + 1e-9).rounded(.down)) }
    }

    /// Fits the grid of one tempo to the onsets in `span`: the period from the autocorrelation (or the
    /// forced BPM), the phase from the clearest 10-second stretch, then a least-squares line
    /// through the matched onsets grown outward over the whole span, then the metric level (where the
    /// onsets leave it open, the octave nearest the ``preferredTempo``, step 3 of docs/analyze.md).
    func fitSegment(
        novelty: Novelty, matcher: PeakMatcher, span: ClosedRange<Double>, lowBand: Novelty? = nil
    ) -> (grid: Grid, score: Double, alternatives: [MetricAlternative], setAside: Grid?)? {
        let forced = options.forcedBPM.map { 60 / $0 }
        let period: Double
        var octave = 1.0
        if let forced {
            period = forced
        } else {
            guard
                let estimate = novelty.period(
                    in: span, minimumBPM: options.minimumBPM, maximumBPM: options.maximumBPM,
                    preferredBPM: preferredTempo)
            else {
                return nil
            }
            period = estimate.seconds
            octave = estimate.octave
        }
        guard novelty.mean(in: span) > 0 else { return nil }
        // Whether two grids' periods are more than 1 % apart: another metric level.
        func otherLevel(_ grid: Grid, than period: Double) -> Bool { abs(grid.period / period - 1) > 0.01 }
        // The grid of `period`, its phase from the clearest stretch, grown and refined, at the metric
        // level the onsets choose; `changed` when that level is not the one it started at.
        func fit(_ period: Double) -> (grid: Grid, setAside: Grid?, changed: Bool) {
            let window = novelty.clearestWindow(period: period, in: span)
            var grid = Grid(anchor: novelty.bestPhase(period: period, in: window).anchor, period: period)
            grid = grow(grid, from: window, over: span, matcher: matcher, fixedPeriod: forced != nil)
            grid = refine(grid, over: span, matcher: matcher, fixedPeriod: forced != nil)
            guard forced == nil else { return (grid, nil, false) }
            let chosen = chooseLevel(grid, novelty: novelty, matcher: matcher, span: span, lowBand: lowBand)
            return (chosen.grid, chosen.setAside, otherLevel(chosen.grid, than: grid.period))
        }
        // Metric level, by the metrical hierarchy: a level's own beats must all be strong. Halve the
        // tempo when every other beat is weak (its weaker parity under half its stronger one); double it
        // when the off-beats are nearly as strong as the beats. The tempo limits bound both; the ternary
        // level 3⁄2 replaces the beat only when its points carry the beats' strength. Where the hierarchy
        // leaves the estimate's level as it is, the octave the preferred tempo likes best is fitted
        // instead, at the level the hierarchy chooses from there (the first fit stands if that is its
        // own level again).
        var (grid, setAside, changed) = fit(period)
        if !changed, octave != 1 {
            // A hierarchy that takes the other octave back to this level leaves the first fit standing.
            let other = fit(period / octave)
            if otherLevel(other.grid, than: grid.period) { (grid, setAside) = (other.grid, other.setAside) }
        }
        let scored = score(grid, novelty: novelty, span: span)
        return (grid, scored.score, scored.alternatives, setAside)
    }

    /// The metric level for `start`, by the metrical hierarchy seen in the onsets. At the beat level of
    /// popular music the beats alternate between different accents (kick and snare) and the off-beats
    /// are weaker; a level that is too slow has beats that all look alike (every other true beat) and
    /// strong off-beats (the back-beat); a level that is too fast has an empty level below it. So:
    /// double the tempo when the beats' two parities are alike (≥ 0.95) and the off-beats reach 40 % of
    /// the beats, or when the off-beats reach 75 %; halve it when every other beat is nearly empty
    /// (< 30 % of the others) or when nothing lies between the beats (no point at ¼, ⅓, ½, ⅔ or ¾ of a
    /// beat reaches 10 % of the beats) and the parities differ (< 70 %).
    /// The tempo hint bounds both. The 3⁄2 level replaces the beat when its points carry 3⁄4 of the
    /// beats' strength (as for doubling) and none of its thirds stands out from the other two
    /// (``thirdStandsOut(_:_:)``: a swung beat's would). The ⅔ level is never chosen here (session 41:
    /// over the four train sets of songs, 305 maps, the rule that chose it decided one map and put it
    /// wrong); `analysis.alternatives` and `validate --audio` still name it. Returns the level and the
    /// 3⁄2 level when only its thirds set it aside (unrefined: refining it is only worth it where it is
    /// used), for ``fit(_:duration:trackerBeats:levels:lowLevels:blockLevels:blockDuration:)`` to fall
    /// back on before it calls music beatless.
    func chooseLevel(
        _ start: Grid, novelty: Novelty, matcher: PeakMatcher, span: ClosedRange<Double>, lowBand: Novelty? = nil
    ) -> (grid: Grid, setAside: Grid?) {
        var grid = start
        func bpm(_ grid: Grid) -> Double { 60 / grid.period }
        let (lowest, highest) = (levelTempoLimits.lowerBound, levelTempoLimits.upperBound)
        var visited: [Double] = [bpm(grid)]
        for _ in 0..<3 {
            let beats = novelty.levelGrid(grid, tempoFactor: 1, in: span).score
            guard beats > 0 else { break }
            let half = novelty.levelGrid(grid, tempoFactor: 0.5, in: span)
            let double = novelty.levelGrid(grid, tempoFactor: 2, in: span)
            let parity = half.score > 0 ? max(0, 2 * beats - half.score) / half.score : 0
            let offBeats = max(0, 2 * double.score - beats) / beats
            // The strongest point between the beats (straight or swung eighths, triplets, sixteenths).
            let between =
                [0.25, 1.0 / 3.0, 0.5, 2.0 / 3.0, 0.75].map { novelty.mean(of: grid, at: $0, in: span) }.max() ?? 0
            var halve = parity < 0.3 || (between / beats < 0.1 && parity < 0.7)
            let doubled = (parity >= 0.95 && offBeats >= 0.4) || offBeats >= 0.75
            // A kick alike on every beat vetoes halving, as along the tracked beats
            // (levelChange(_:novelty:lowBand:)). Its veto on doubling waits for the tracked beats: on a
            // first grid that may sit half a beat out, the kick's alternation misleads.
            if let lowBand, steady(lowBand, BeatSequence(grid, in: span), step: 2) { halve = false }
            var next: Grid?
            if bpm(grid) > highest || (halve && bpm(half.grid) >= lowest) {
                next = half.grid
            } else if bpm(grid) < lowest || (doubled && bpm(double.grid) <= highest) {
                next = double.grid
            }
            guard let candidate = next, !visited.contains(where: { abs(log($0 / bpm(candidate))) < 0.05 }) else {
                break
            }
            grid = refine(candidate, over: span, matcher: matcher, fixedPeriod: false)
            visited.append(bpm(grid))
        }
        let beats = novelty.levelGrid(grid, tempoFactor: 1, in: span).score
        let ternary = novelty.levelGrid(grid, tempoFactor: 1.5, in: span)
        let tempo = bpm(ternary.grid)
        // Like doubling, the 3⁄2 level wins when its points carry 3⁄4 of the beats' strength...
        guard ternary.score > 0.75 * beats, tempo >= lowest, tempo <= highest else { return (grid, nil) }
        // ...and none of its own thirds stands out: a swung beat (a strong point at ⅔ of each beat)
        // lifts two of every three of its points and leaves the third empty.
        if !thirdStandsOut(novelty, BeatSequence(ternary.grid, in: span)) {
            return (refine(ternary.grid, over: span, matcher: matcher, fixedPeriod: false), nil)
        }
        return (grid, ternary.grid)
    }

    /// Grows a least-squares fit outward from `seedWindow` until it covers `span`.
    func grow(
        _ start: Grid, from seedWindow: ClosedRange<Double>, over span: ClosedRange<Double>, matcher: PeakMatcher,
        fixedPeriod: Bool
    )
        -> Grid
    {
        var grid = Grid(anchor: start.anchor, period: start.period)
        // Re-anchor the grid at the seed window's clearest phase.
        var lower = seedWindow.lowerBound
        var upper = seedWindow.upperBound
        while true {
            let tolerance = min(0.04, 0.2 * grid.period)
            if let fitted = leastSquares(
                grid, over: lower...upper, matcher: matcher, tolerance: tolerance, fixedPeriod: fixedPeriod)
            {
                grid = fitted
            }
            if lower <= span.lowerBound, upper >= span.upperBound { break }
            let width = upper - lower
            lower = max(span.lowerBound, lower - max(5, width * 0.5))
            upper = min(span.upperBound, upper + max(5, width * 0.5))
        }
        return grid
    }

    /// Final least-squares passes over the whole span with tightening tolerances.
    func refine(_ start: Grid, over span: ClosedRange<Double>, matcher: PeakMatcher, fixedPeriod: Bool) -> Grid {
        var grid = start
        for tolerance in [0.04, 0.03, 0.02] {
            if let fitted = leastSquares(
                grid, over: span, matcher: matcher, tolerance: min(tolerance, 0.2 * grid.period),
                fixedPeriod: fixedPeriod)
            {
                grid = fitted
            }
        }
        return grid
    }

    /// Matches each grid point in `range` to the nearest onset within `tolerance` and fits
    /// `time = anchor + k × period` through the matches, weighted by onset strength.
    func leastSquares(
        _ grid: Grid, over range: ClosedRange<Double>, matcher: PeakMatcher, tolerance: Double, fixedPeriod: Bool
    )
        -> Grid?
    {
        let first = grid.firstIndex(atOrAfter: range.lowerBound - tolerance)
        let last = grid.lastIndex(atOrBefore: range.upperBound + tolerance)
        guard last >= first else { return nil }
        var sumW = 0.0
        var sumK = 0.0
        var sumT = 0.0
        var sumKK = 0.0
        var sumKT = 0.0
        var matches = 0
        // Beat numbers relative to the middle keep the sums well conditioned.
        let middle = (first + last) / 2
        for k in first...last {
            let predicted = grid.time(k)
            guard let peak = matcher.nearest(to: predicted, within: tolerance) else { continue }
            let w = peak.strength.squareRoot()
            let x = Double(k - middle)
            let t = peak.time - predicted  // the residual: regressed on k, it corrects period and phase
            sumW += w
            sumK += w * x
            sumT += w * t
            sumKK += w * x * x
            sumKT += w * x * t
            matches += 1
        }
        guard matches >= 4, sumW > 0 else { return nil }
        var period = grid.period
        var intercept = sumT / sumW
        let denominator = sumW * sumKK - sumK * sumK
        if !fixedPeriod, denominator > 1e-12, matches >= 8 {
            let slope = (sumW * sumKT - sumK * sumT) / denominator
            intercept = (sumT - slope * sumK) / sumW
            period = grid.period + slope
        }
        guard period > 0, period.isFinite, intercept.isFinite else { return nil }
        // Re-anchor at the grid point nearest the range's start.
        let middleTime = grid.time(middle) + intercept
        let anchorIndex = ((range.lowerBound - middleTime) / period).rounded(.down)
        return Grid(anchor: middleTime + anchorIndex * period, period: period)
    }
}
