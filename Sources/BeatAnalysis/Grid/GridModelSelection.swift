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

/// One piece of a piecewise grid: where it applies and its grid.
struct GridPiece: Sendable, Equatable {
    /// The time range it covers.
    var span: ClosedRange<Double>
    /// Its grid.
    var grid: GridFitter.Grid
}

/// What the observations support.
enum GridModel: Sendable, Equatable {
    /// One grid, or a few grids with tempo changes between them.
    case grid([GridPiece])
    /// A tempo that changes steadily through the song (``TempoRamp``).
    case ramp(TempoRamp)
    /// No grid explains the beats: follow them one by one.
    case follow
}

/// Chooses the simplest model of the tracked beats that explains them: one grid; several grids where
/// the tempo really changes; or none (the beats are followed one by one).
///
/// - One grid is kept when it explains the music (see `explains` in ``select(_:fit:)``).
/// - Otherwise tempo changes are found by binary segmentation of the beats into straight lines of beat
///   time against beat number, a split being kept only when it lowers the Bayesian information
///   criterion: the residual sum of squares in units of the beats' own timing noise `σ` must fall by
///   more than `3 ln n` (three parameters per extra piece: its tempo, its phase and where it starts).
///   `σ` is measured from the second differences of consecutive beats, which a slow tempo drift hardly
///   touches, so it is the noise of the onsets and the tracker rather than of the model. A piece needs
///   at least ``minimumPieceBeats`` beats: a change needs many beats on both sides.
/// - When even the pieces do not explain the music (it drifts, as music played without a click does),
///   the beats are followed one by one.
struct GridModelSelector: Sendable {
    /// Fewest beats in one tempo piece (eight bars of 4/4).
    var minimumPieceBeats = 32
    /// Whether pieces may be split at all (`false` for a constant grid).
    var allowChanges = true
    /// Whether following is allowed (`false` when a grid is asked for).
    var allowFollow = true
    /// Whether a steady tempo change may be a ramp rather than tempo segments (`auto` only).
    var allowRamp = true

    /// The model for `observations` (sorted by index). `fit` turns a run of observations and the
    /// least-squares line through them into a grid piece, and counts the tracked beats it covers and
    /// those it explains (lies within 15 ms of). `tracked` is the number of tracked beats.
    ///
    /// Tempo changes are kept when each extra piece explains at least ``minimumPieceBeats`` more beats
    /// than one grid does (a description-length argument: a piece costs a tempo, a phase and a start,
    /// and must pay for them with beats). Where some pieces are no grid (their own grids explain under
    /// ``minimumExplained`` of their beats) and the others share one tempo, the one grid they are held
    /// against is the best single grid found: the fit through all the observations, or a grid piece
    /// grown over the whole song (`extend`) when that explains more beats. The beats are followed when
    /// the chosen grid explains under ``minimumExplained`` of them and the tracked beats carry more
    /// onset strength than the grid's (`trackedBeatsAreStronger`): where the two disagree because the
    /// tracker strayed onto another phase for a while, the grid is kept. `explainedAtAShift`, when
    /// given, counts the tracked beats the chosen pieces explain at a steady shift
    /// (``GridFitter/explainedAtAnyPhase(_:pieces:)``); the beats are not followed when those reach
    /// ``minimumExplained`` either, nor when `holdsApart` says one grid holds for two separate runs
    /// of tracked beats (``holdsApart(_:pieces:run:neighbourhoods:)``). `grownRamp`, when given, grows a ramp from the pieces against the
    /// onsets rather than through the tracked beats' numbers (``GridFitter/grownRamp(_:tracked:matcher:span:)``):
    /// where the beats would otherwise be followed, it is the model when it explains
    /// ``minimumExplained`` of them and ``minimumPieceBeats`` more than the pieces do.
    ///
    /// `onsetStrength`, when given, is the onset strength a grid's points carry over a span
    /// (``GridFitter/meanValue(_:novelty:)``). A tempo change must explain the onsets better than
    /// one grid, not only the tracked beats: where the best single grid grown from a piece carries at
    /// least as much onset strength as each piece at another tempo does over that piece's own span,
    /// those pieces are a pulse the tracker followed (a figure in fives or threes across the beat, a
    /// detour), and the song is that one grid (``oneGridCarriesTheOnsets(_:single:onsetStrength:)``).
    func select(
        _ observations: [BeatObservation], tracked: Int,
        fit: (Range<Int>, BeatLine) -> (piece: GridPiece, explained: Int),
        trackedBeatsAreStronger: ([GridPiece]) -> Bool,
        holdsApart: ([GridPiece]) -> Bool = { _ in false },
        explainedAtAShift: ([GridPiece]) -> Int = { _ in 0 },
        extend: (GridPiece) -> (piece: GridPiece, explained: Int)? = { _ in nil },
        grownRamp: ([GridPiece]) -> (ramp: TempoRamp, explained: Int)? = { _ in nil },
        onsetStrength: ((GridFitter.Grid, ClosedRange<Double>) -> Double)? = nil
    ) -> GridModel {
        guard observations.count >= 4 else { return .follow }
        let sums = LineSums(observations)
        let whole = 0..<observations.count
        var one = fit(whole, sums.line(whole))
        var best = (pieces: [one.piece], explained: one.explained)
        if allowChanges {
            let sigma = noise(observations)
            var pieces = split(whole, sums: sums, sigma: sigma, penalty: 3 * log(Double(observations.count))).map {
                (range: $0, fit: fit($0, sums.line($0)))
            }
            // Neighbours within 1 % of each other's tempo are one tempo: what split them was a stretch
            // the tracker followed on another phase, not a tempo change. They are fitted again as one.
            var index = 1
            while index < pieces.count {
                let previous = pieces[index - 1].fit.piece.grid.period
                let current = pieces[index].fit.piece.grid.period
                if abs(log(current / previous)) < Self.sameTempo {
                    let joined = pieces[index - 1].range.lowerBound..<pieces[index].range.upperBound
                    pieces[index - 1] = (joined, fit(joined, sums.line(joined)))
                    pieces.remove(at: index)
                } else {
                    index += 1
                }
            }
            // A tempo segment is a grid: a piece whose own grid explains under two thirds of its
            // beats is a stretch the tracker wandered through (an intro, a break). Where the pieces
            // that are grids all share one tempo, the song has one tempo and those stretches are
            // not changes of it. Their beats also throw the fit through every observation (its seed
            // period and phase), which in dense onsets (sixteenths) can settle on a period wrong
            // everywhere; so each grid piece grown over the whole song is a single grid too, and the
            // best of them is the one grid the pieces must beat. (A steady tempo change has grid
            // pieces at several tempi, and its pieces between them explain few beats: not this.)
            let grids = pieces.filter {
                Double($0.fit.explained) >= Self.minimumExplained * Double($0.range.count)
            }
            // Each grid piece grown over the whole song, once, for this rule and the next.
            let grownGrids = pieces.count > 1 ? grids.compactMap { extend($0.fit.piece) } : []
            if grids.count < pieces.count, let first = grids.first?.fit.piece.grid.period,
                grids.allSatisfy({ abs(log($0.fit.piece.grid.period / first)) < Self.oneTempo })
            {
                for grown in grownGrids
                where grown.explained > one.explained
                    && abs(log(grown.piece.grid.period / one.piece.grid.period)) < Self.oneTempo
                {
                    one = grown
                    best = (pieces: [grown.piece], explained: grown.explained)
                }
            }
            // A tempo change must explain the onsets better than one grid: where the best single grid
            // grown from a grid piece carries as much onset strength as every piece at another tempo
            // does over its own span, the song is that grid.
            if pieces.count > 1, let onsetStrength {
                if let single = grownGrids.max(by: { $0.explained < $1.explained }),
                    Self.oneGridCarriesTheOnsets(
                        pieces.map(\.fit.piece), single: single.piece.grid, onsetStrength: onsetStrength)
                {
                    one = single
                    best = (pieces: [single.piece], explained: single.explained)
                    pieces = [(range: whole, fit: single)]
                }
            }
            // Where the tempo changes, it may change steadily: a ramp, if it fits the beats better than
            // the pieces do, pays for its one extra parameter with 32 more beats explained than one
            // grid (as a piece must), and explains as many of them as a grid must not to be followed.
            if allowRamp, pieces.count > 1,
                let ramp = rampRatherThanSteps(observations, pieces: pieces.map(\.range), sums: sums, sigma: sigma)
            {
                let explained = observations.filter {
                    abs($0.time - ramp.time($0.index)) <= Self.explainTolerance
                }.count
                if explained - one.explained >= minimumPieceBeats,
                    Double(explained) >= Self.minimumExplained * Double(tracked)
                {
                    return .ramp(ramp)
                }
            }
            let explained = pieces.reduce(0) { $0 + $1.fit.explained }
            if pieces.count > 1, explained - one.explained >= minimumPieceBeats * (pieces.count - 1) {
                best = (pieces.map(\.fit.piece), explained)
            }
            // Beats no grid explains would be followed; a steady change the tracker left for the
            // off-beats now and then is still a ramp, grown against the onsets, when it explains as
            // many as a grid must and pays for itself as a piece must.
            if allowRamp, allowFollow, pieces.count > 1,
                Double(best.explained) < Self.minimumExplained * Double(tracked),
                let grown = grownRamp(pieces.map(\.fit.piece)),
                Double(grown.explained) >= Self.minimumExplained * Double(tracked),
                grown.explained - best.explained >= minimumPieceBeats
            {
                return .ramp(grown.ramp)
            }
        }
        if allowFollow, Double(best.explained) < Self.minimumExplained * Double(tracked),
            Double(explainedAtAShift(best.pieces)) < Self.minimumExplained * Double(tracked),
            !holdsApart(best.pieces),
            trackedBeatsAreStronger(best.pieces)
        {
            return .follow
        }
        return .grid(best.pieces)
    }

    /// Whether one grid explains two separate runs of at least `run` consecutive `tracked` beats,
    /// each beat within ``explainTolerance`` of one of its beats, or read with its neighbourhood
    /// (``neighbourhoodRadius`` beats either side, as many as the song has near its ends): at least
    /// half of them that close, the neighbourhood's median distance rather than the beat's own.
    /// Music that drifts away from a tempo and back returns to its grid at any phase, within 15 ms
    /// of a beat of a 90 BPM grid about once in twenty-two, and to stay there for `run` beats its
    /// tempo must match the grid's within a fraction of a per cent. So a grid that holds in two
    /// places is the music's tempo, and the tracked beats that leave it in between are the tracker's
    /// detour (an intro or a break it followed at another pulse), not a tempo the music moves
    /// through. Only one grid is asked: a tempo segment holds only where it applies.
    ///
    /// The neighbourhood's reading (session 48) because a tracker on a played recording puts some
    /// beats on a strum or a fill a few tens of milliseconds either side of the drums' beat (two in
    /// five of a 95 BPM rock song's), which break every run of beats each within 15 ms without the
    /// tempo moving; a drift moves the whole neighbourhood off the grid. It is added beside the
    /// beat-by-beat reading, not put in its place, so a grid that held before still holds. It is read
    /// only with `neighbourhoods`, which ``GridFitter/selectModel(_:period:_:strayedPhasesExplained:)``
    /// gives in its second choice, on beats already repaired, as it counts strayed phases there: in
    /// the first choice a grid that held this way would end the reading of a moving tempo's level in
    /// beat time, which a song tracked at half its tempo needs. (A signed median would not do: where a
    /// run meets a detour, the detour's beats fall either side of the grid's, and with the run's beats
    /// at 0 their median sits near 0 too, so the run would reach into the detour.)
    ///
    /// A detour is not a drift (session 59). Music that drifts smoothly about its tempo holds a grid
    /// at the drift's fastest (or slowest) tempo for as long as it dwells there: more than `run` beats
    /// in each cycle of a ±3 % drift, read beat by beat or by neighbourhood. In between it is slower
    /// (or faster) all the time, by a little, and comes back to that grid only after losing a whole
    /// beat or more to it. A tracker's detour keeps the grid's pulse (on the off-beats, at half of it,
    /// three against four) or follows another one (an intro at 77 BPM in a 90 BPM song). So between
    /// two of the runs the tracked beats' median interval must lie within ``detourTempo`` of the
    /// grid's period or of a metrical ratio of it (``GridFitter/beatTimeRatios``), or at least
    /// ``oneTempo`` from all of them and ``driftSwing`` from the period itself; between the two is a
    /// drift's. (A drift's gap can lie up to its whole swing off the grid at its crest: one measured
    /// 4.2 %, and two drifting composed copies 4.2 % each, which the pieces' one tempo, 4 %, alone read
    /// as another tempo until session 63.)
    static func holdsApart(_ tracked: [Double], pieces: [GridPiece], run: Int, neighbourhoods: Bool = true) -> Bool {
        guard pieces.count == 1, let grid = pieces.first?.grid, grid.period > 0 else { return false }
        let distances = tracked.map { abs($0 - grid.time(grid.nearestIndex(to: $0))) }
        let holds = { (distances: [Double]) in
            detourBetween(runs(of: distances, run: run), tracked: tracked, period: grid.period, run: run)
        }
        if holds(distances) { return true }
        guard neighbourhoods else { return false }
        let width = min(distances.count, 2 * neighbourhoodRadius + 1)
        let neighbourhoodMedians = distances.indices.map { index in
            let lower = max(0, min(index - neighbourhoodRadius, distances.count - width))
            return distances[lower..<(lower + width)].sorted()[width / 2]
        }
        return holds(neighbourhoodMedians)
    }

    /// The runs of at least `run` consecutive `distances` within ``explainTolerance``, as ranges of
    /// their indices, in order.
    private static func runs(of distances: [Double], run: Int) -> [Range<Int>] {
        var runs: [Range<Int>] = []
        var length = 0
        for (index, distance) in distances.enumerated() {
            if distance <= explainTolerance {
                length += 1
            } else {
                if length >= run { runs.append((index - length)..<index) }
                length = 0
            }
        }
        if length >= run { runs.append((distances.count - length)..<distances.count) }
        return runs
    }

    /// Whether `tracked` takes a detour, not a drift, between two of `runs` (at least two) on a grid
    /// of `period`: the median interval from the last beat of one run to the first of the next lies
    /// within ``detourTempo`` of the period or of a metrical ratio of it
    /// (``GridFitter/beatTimeRatios``), or at least ``oneTempo`` from every one of them and
    /// ``driftSwing`` from the period itself; or there are fewer than `run` intervals between them.
    /// (To lose a whole beat to the grid in fewer intervals than a run, the music would have to lie
    /// more than 1/`run` off its tempo, about 3 %, beside runs that say it keeps the tempo within a
    /// fraction of a per cent; the median of a few intervals around a stray beat is no tempo.)
    static func detourBetween(_ runs: [Range<Int>], tracked: [Double], period: Double, run: Int) -> Bool {
        guard runs.count >= 2, period > 0 else { return false }
        let ratios = [1.0] + GridFitter.beatTimeRatios
        return zip(runs, runs.dropFirst()).contains { earlier, later in
            let from = earlier.upperBound - 1
            let to = min(later.lowerBound, tracked.count - 1)
            guard to - from >= run else { return true }
            let intervals = (from..<to).map { tracked[$0 + 1] - tracked[$0] }
            let median = GridFitter.median(intervals[...])
            guard median > 0 else { return true }
            let offPulse = ratios.map { abs(log(median / (period * $0))) }.min() ?? 0
            // A drift wobbles about the grid's own tempo, by up to its whole swing.
            let offOwnPulse = abs(log(median / period))
            return offPulse <= detourTempo || (offPulse >= oneTempo && offOwnPulse >= driftSwing)
        }
    }

    /// How far (in log tempo) the tracked beats between two runs on one grid may lie from its pulse
    /// and still keep it: 2 %, halfway between the train split's detours that keep the pulse (their
    /// median interval within 1.3 % of the grid's, most within 0.5 %) and the 2.9 % and more by which a
    /// drift's beats between its crests lie off a grid at the crest.
    static let detourTempo = 0.02

    /// How far (in log tempo) the tracked beats between two runs on one grid must lie from the grid's
    /// own pulse to be a tracker's detour at another tempo rather than a drift: 8 %, beyond a drift's
    /// whole swing. A drift of ±3 % holds a grid at its crest, and the beats between two crests lie up
    /// to the swing (6 %) off that grid; with only ``oneTempo`` (4 %) asked, two drifting composed
    /// copies whose gaps lay 4.2 % off were read as detours and mapped as one grid (session 63). Near
    /// the other metrical ratios a drift does not lie, and ``oneTempo`` still separates them.
    static let driftSwing = 0.08

    /// Whether `single` carries at least as much onset strength as each of `pieces` at another tempo
    /// (over ``oneTempo`` from it) does at its own points, over that piece's span; `false` when no
    /// piece is at another tempo.
    static func oneGridCarriesTheOnsets(
        _ pieces: [GridPiece], single: GridFitter.Grid, onsetStrength: (GridFitter.Grid, ClosedRange<Double>) -> Double
    ) -> Bool {
        let others = pieces.filter { abs(log($0.grid.period / single.period)) >= oneTempo }
        guard !others.isEmpty else { return false }
        return others.allSatisfy { onsetStrength(single, $0.span) >= onsetStrength($0.grid, $0.span) }
    }

    /// How many tracked beats either side of a beat ``holdsApart(_:pieces:run:neighbourhoods:)`` reads with it: four
    /// bars of 4/4 in all, as the kick's neighbourhoods (``GridFitter/kickWindowRadius``).
    static let neighbourhoodRadius = 8

    /// A tracked beat within this of a model's beat is explained by it (seconds): about where two
    /// sounds meant together start to be heard apart.
    static let explainTolerance = 0.015

    /// The ramp through `observations` when it explains them better than the tempo segments `pieces`
    /// by the Bayesian information criterion — residual sums of squares in units of the timing noise
    /// `sigma`, plus `ln n` per parameter: three for the ramp, three per piece less one for the pieces
    /// (a tempo and a phase each, and where each but the first starts) — and its tempo stays within
    /// the tracker's range (the intervals at its ends within ``GridFitter/trackerRange`` of each
    /// other) and positive. A song that steps from one tempo to another is two lines, which a parabola
    /// fits worse; one that speeds up steadily is a parabola, which a staircase of lines fits worse and
    /// with more parameters.
    func rampRatherThanSteps(
        _ observations: [BeatObservation], pieces: [Range<Int>], sums: LineSums, sigma: Double
    ) -> TempoRamp? {
        let points = observations.map { (index: $0.index, time: $0.time) }
        guard let ramp = TempoRamp.fit(points), ramp.staysInTrackerRange else { return nil }
        let n = Double(observations.count)
        let variance = sigma * sigma
        let steps =
            pieces.reduce(0.0) { $0 + sums.residual($1) } / variance + Double(3 * pieces.count - 1) * log(n)
        let parabola = ramp.residual(points) / variance + 3 * log(n)
        return parabola < steps ? ramp : nil
    }

    /// The share of the tracked beats a grid must explain (lie within 15 ms of), or the beats are
    /// followed: two thirds.
    static let minimumExplained = 2.0 / 3.0

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
        guard !differences.isEmpty else { return Self.noiseFloor }
        differences.sort()
        let mad = differences[differences.count / 2]
        return max(Self.noiseFloor, 1.4826 * mad / 6.0.squareRoot())
    }

    /// Grid pieces share one tempo within this (in natural log, 4 %, the agreement ``TempoRegions``
    /// asks of its windows), and a piece's grid grown over the song stands for the song's one grid
    /// only within this of the fit through all observations: a piece at another tempo is a section
    /// at another pulse (a tracker's detour to 4⁄3, which lies on a third of the beats), not a
    /// better estimate of the one tempo.
    static let oneTempo = 0.04

    /// Tempi closer than this (in natural log, 1 %) are the same tempo.
    static let sameTempo = 0.01

    /// The floor of the timing noise `σ`, in seconds (the onset times' own precision).
    static let noiseFloor = 0.003

    /// Binary segmentation: splits `range` at the observation where two lines fit best, when that
    /// lowers the criterion by more than `penalty`, and recurses into both halves.
    func split(_ range: Range<Int>, sums: LineSums, sigma: Double, penalty: Double) -> [Range<Int>] {
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

    private func centred(_ range: Range<Int>) -> (
        n: Double, mx: Double, my: Double, sxx: Double, sxy: Double, syy: Double
    ) {
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
