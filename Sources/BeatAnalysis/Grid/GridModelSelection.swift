// SPDX-License-Identifier: GPL-3.0-or-later

import Foundation

/// A tracked beat as evidence for a grid: its number in the tracked sequence and the time of the onset
/// that confirms it.
struct BeatObservation: Sendable, Equatable {
    /// The beat's number (consecutive tracked beats differ by one).
    var index: Int
    /// The confirming onset's time in seconds.
    var time: Double
}

/// A straight line of beat time against beat number: `time = anchor + (index − origin) × period`.
struct BeatLine: Sendable, Equatable {
    /// The beat number the anchor belongs to.
    var origin: Int
    /// Time of beat `origin`.
    var anchor: Double
    /// Seconds per beat.
    var period: Double

    func time(_ index: Int) -> Double { anchor + Double(index - origin) * period }
}

/// One piece of a piecewise grid: the beat numbers it covers and its line.
struct GridPiece: Sendable, Equatable {
    /// First and last tracked beat number of the piece.
    var indices: ClosedRange<Int>
    /// The line through its observations.
    var line: BeatLine
}

/// What the observations support.
enum GridModel: Sendable, Equatable {
    /// One grid, or a few grids with tempo changes between them.
    case grid([GridPiece])
    /// No grid explains the beats: follow them one by one.
    case follow
}

/// Chooses the simplest model of the tracked beats that explains them: one grid; several grids where
/// the tempo really changes; or none (the beats are followed one by one).
///
/// - A piece is split only where its one grid does not stay with the music (below). Then tempo
///   changes are found by binary segmentation of the beats into straight lines, a split being
///   kept only when it lowers the Bayesian information criterion: the residual sum of squares in units
///   of the beats' own timing noise `σ` must fall by more than `3 ln n` (three parameters per extra
///   piece: its tempo, its phase and where it starts). `σ` is measured from the second differences of
///   consecutive beats, which a slow tempo drift hardly touches, so it is the noise of the onsets and
///   the tracker rather than of the model. A piece needs at least ``minimumPieceBeats`` beats: a change
///   needs many beats on both sides.
/// - A grid explains the beats when it never strays from them for long: the residual averaged over any
///   ``runBeats`` consecutive beats stays within ``maximumRunDeviation`` (15 ms, about where two sounds
///   meant together start to be heard as a flam). Music played without a click drifts further than that
///   between any two tempo changes a grid could place, so it is followed beat by beat.
struct GridModelSelector: Sendable {
    /// Fewest beats in one tempo piece.
    var minimumPieceBeats = 16
    /// Beats averaged when checking that a grid stays with the music.
    var runBeats = 8
    /// Largest mean deviation of the grid from `runBeats` consecutive beats, in seconds.
    var maximumRunDeviation = 0.015
    /// The floor of the timing noise `σ`, in seconds (the onset times' own precision).
    var noiseFloor = 0.003
    /// Whether pieces may be split at all (`false` for a forced constant grid).
    var allowChanges = true
    /// Whether following is allowed (`false` when a grid is asked for).
    var allowFollow = true

    /// The model for `observations` (sorted by index; at least a few).
    func select(_ observations: [BeatObservation]) -> GridModel {
        guard observations.count >= 4, let first = observations.first, let last = observations.last else {
            return .follow
        }
        let sums = LineSums(observations)
        let sigma = noise(observations)
        let whole = 0..<observations.count
        var pieces: [Range<Int>] = [whole]
        if allowChanges {
            pieces = split(whole, sums: sums, sigma: sigma, penalty: 3 * log(Double(observations.count)))
        }
        let lines = pieces.map { sums.line($0) }
        if allowFollow, !staysWithMusic(observations, pieces: pieces, lines: lines) {
            return .follow
        }
        var result: [GridPiece] = []
        for (index, piece) in pieces.enumerated() {
            let lower = index == 0 ? first.index : observations[piece.lowerBound].index
            let upper = index + 1 == pieces.count ? last.index : observations[pieces[index + 1].lowerBound].index - 1
            result.append(GridPiece(indices: lower...max(lower, upper), line: lines[index]))
        }
        return .grid(result)
    }

    /// The timing noise of the beats: the robust spread of second differences of three consecutive
    /// observed beats, divided by √6 (the second difference of independent errors has six times their
    /// variance), at least ``noiseFloor``.
    func noise(_ observations: [BeatObservation]) -> Double {
        var differences: [Double] = []
        if observations.count >= 3 {
            for index in 1..<(observations.count - 1) {
                let a = observations[index - 1]
                let b = observations[index]
                let c = observations[index + 1]
                guard b.index - a.index == 1, c.index - b.index == 1 else { continue }
                differences.append(abs(c.time - 2 * b.time + a.time))
            }
        }
        guard !differences.isEmpty else { return noiseFloor }
        differences.sort()
        let mad = differences[differences.count / 2]
        return max(noiseFloor, 1.4826 * mad / 6.0.squareRoot())
    }

    /// Binary segmentation: splits `range` at the observation where two lines fit best, when that
    /// lowers the criterion by more than `penalty`, and recurses into both halves.
    func split(_ range: Range<Int>, sums: LineSums, sigma: Double, penalty: Double) -> [Range<Int>] {
        // A grid that stays with the music is kept whole: the onsets' own small, slowly varying timing
        // errors (an onset between two analysis hops) must not read as tempo changes.
        if staysWithMusic(sums.observations, pieces: [range], lines: [sums.line(range)]) { return [range] }
        guard let cut = bestCut(range, sums: sums) else { return [range] }
        let before = sums.residual(range) / (sigma * sigma)
        let after = (sums.residual(range.lowerBound..<cut) + sums.residual(cut..<range.upperBound)) / (sigma * sigma)
        guard before - after > penalty else { return [range] }
        return split(range.lowerBound..<cut, sums: sums, sigma: sigma, penalty: penalty)
            + split(cut..<range.upperBound, sums: sums, sigma: sigma, penalty: penalty)
    }

    /// The observation at which `range` splits into two lines with the least residual, each side
    /// spanning at least ``minimumPieceBeats`` beat numbers.
    func bestCut(_ range: Range<Int>, sums: LineSums) -> Int? {
        let observations = sums.observations
        var best: (cut: Int, residual: Double)?
        for cut in (range.lowerBound + 2)..<max(range.lowerBound + 2, range.upperBound - 1) {
            let leftSpan = observations[cut - 1].index - observations[range.lowerBound].index + 1
            let rightSpan = observations[range.upperBound - 1].index - observations[cut].index + 1
            guard leftSpan >= minimumPieceBeats, rightSpan >= minimumPieceBeats else { continue }
            let residual = sums.residual(range.lowerBound..<cut) + sums.residual(cut..<range.upperBound)
            if best.map({ residual < $0.residual }) ?? true { best = (cut, residual) }
        }
        return best?.cut
    }

    /// Whether the grid's residuals, averaged over every run of ``runBeats`` consecutive observations
    /// of one piece, stay within ``maximumRunDeviation``.
    func staysWithMusic(_ observations: [BeatObservation], pieces: [Range<Int>], lines: [BeatLine]) -> Bool {
        for (piece, line) in zip(pieces, lines) {
            let residuals = piece.map { observations[$0].time - line.time(observations[$0].index) }
            guard residuals.count >= runBeats else { continue }
            var sum = residuals[0..<runBeats].reduce(0, +)
            if abs(sum) / Double(runBeats) > maximumRunDeviation { return false }
            for index in runBeats..<residuals.count {
                sum += residuals[index] - residuals[index - runBeats]
                if abs(sum) / Double(runBeats) > maximumRunDeviation { return false }
            }
        }
        return true
    }
}

/// Prefix sums that give the least-squares line, and its residual sum of squares, of any run of
/// observations in constant time. Times are taken relative to a line through the first and last
/// observation, so the sums stay small and well conditioned however long the track.
struct LineSums: Sendable {
    let observations: [BeatObservation]
    private let reference: BeatLine
    private var n: [Double] = [0]
    private var x: [Double] = [0]
    private var y: [Double] = [0]
    private var xx: [Double] = [0]
    private var xy: [Double] = [0]
    private var yy: [Double] = [0]

    init(_ observations: [BeatObservation]) {
        self.observations = observations
        let first = observations.first ?? BeatObservation(index: 0, time: 0)
        let last = observations.last ?? first
        let period = last.index > first.index ? (last.time - first.time) / Double(last.index - first.index) : 1
        reference = BeatLine(origin: first.index, anchor: first.time, period: period)
        for observation in observations {
            let xi = Double(observation.index - first.index)
            let yi = observation.time - reference.time(observation.index)
            n.append(n[n.count - 1] + 1)
            x.append(x[x.count - 1] + xi)
            y.append(y[y.count - 1] + yi)
            xx.append(xx[xx.count - 1] + xi * xi)
            xy.append(xy[xy.count - 1] + xi * yi)
            yy.append(yy[yy.count - 1] + yi * yi)
        }
    }

    private func centred(_ range: Range<Int>) -> (n: Double, mx: Double, my: Double, sxx: Double, sxy: Double, syy: Double)
    {
        let lo = range.lowerBound
        let hi = range.upperBound
        let count = n[hi] - n[lo]
        let mx = (x[hi] - x[lo]) / count
        let my = (y[hi] - y[lo]) / count
        let sxx = (xx[hi] - xx[lo]) - count * mx * mx
        let sxy = (xy[hi] - xy[lo]) - count * mx * my
        let syy = (yy[hi] - yy[lo]) - count * my * my
        return (count, mx, my, sxx, sxy, syy)
    }

    /// The residual sum of squares of the least-squares line through `range` (seconds²).
    func residual(_ range: Range<Int>) -> Double {
        guard range.count >= 2 else { return 0 }
        let c = centred(range)
        guard c.sxx > 1e-12 else { return max(0, c.syy) }
        return max(0, c.syy - c.sxy * c.sxy / c.sxx)
    }

    /// The least-squares line through `range`.
    func line(_ range: Range<Int>) -> BeatLine {
        let c = centred(range)
        let slope = c.sxx > 1e-12 ? c.sxy / c.sxx : 0
        let origin = reference.origin
        // y = my + slope (x − mx), with y the deviation from the reference line.
        let anchor = reference.anchor + c.my - slope * c.mx
        return BeatLine(origin: origin, anchor: anchor, period: reference.period + slope)
    }
}
