// SPDX-License-Identifier: GPL-3.0-or-later

import Foundation

// From a tempo to a model of the beats: the beats tracked at that tempo, moved through the metric
// levels read along them, checked for a beat at all, and modelled by the simplest grid they support.
extension GridFitter {
    /// What tracking needs of the song, the same for every tempo it starts from.
    struct TrackingContext {
        var novelty: Novelty
        var peaks: [OnsetPeak]
        var matcher: PeakMatcher
        var span: ClosedRange<Double>
        var lowBand: Novelty?
        /// The 3⁄2 level the whole-song estimate set aside (``chooseLevel(_:novelty:matcher:span:lowBand:)``).
        var setAside: Grid?
        /// How much the audio changes for its loudness over `span`: its mean onset novelty per unit of
        /// its RMS level (of the mono signal at the analysis rate), when the level is known.
        var change: Double?
    }

    /// Tracked beats with their model.
    struct TrackedSelection {
        var tracked: [Double]
        var salience: Double
        var model: GridModel
        /// The stretches tracked with the range centred on their own tempo (``tempoRegions(_:period:)``),
        /// at the level of `tracked`.
        var regions: [TempoRegion] = []
        /// Set when the beats stand out less than ``GridFitter/minimumSalience`` and were kept because the
        /// onsets repeat one beat later (``GridFitter/beatRepeats(period:_:)``).
        var weakBeat: WeakBeat?
    }

    /// The beats tracked from `start` (seconds per beat), at the metric level read along them
    /// (``levelChange(_:novelty:lowBand:)``, a new level tracked anew), moved onto the kick when
    /// they sit half a beat out, and the simplest model that explains them (``GridModelSelector``).
    /// Throws ``GridFitError/noRegularBeat(score:)`` when the beats barely stand out from the rest of
    /// the audio.
    func trackAndSelect(
        from start: Double, _ context: TrackingContext, regions: [TempoRegion] = []
    ) throws(GridFitError) -> TrackedSelection {
        let (novelty, peaks, matcher, span, lowBand) = (
            context.novelty, context.peaks, context.matcher, context.span, context.lowBand
        )
        var period = start
        var regions = regions
        var tracked = trackBeats(novelty: novelty, peaks: peaks, period: period, span: span, regions: regions)
        // The metric level, read along the tracked beats; a new level is tracked anew.
        var visited = [period]
        for _ in 0..<3 {
            let sequence = BeatSequence(beats: tracked)
            guard let change = levelChange(sequence, novelty: novelty, lowBand: lowBand) else { break }
            let next = sequence.medianInterval / change.factor
            guard !visited.contains(where: { abs(log($0 / next)) < 0.1 }) else { break }
            visited.append(next)
            regions = regions.map { TempoRegion(span: $0.span, period: $0.period * next / period) }
            period = next
            tracked = trackBeats(novelty: novelty, peaks: peaks, period: period, span: span, regions: regions)
        }
        // A tracker drawn 4⁄3 or ¾ from the level chosen (a dotted figure, just past its reach) is
        // held at that level, where its beats stand out more.
        tracked = heldAtItsLevel(tracked, period: period, context, regions: regions)
        // Beats half a beat out move to the beats between them.
        let sequence = BeatSequence(beats: tracked)
        if isOffBeat(sequence, novelty: novelty, lowBand: lowBand) {
            tracked = (0..<(tracked.count - 1)).map { sequence.time(at: Double($0) + 0.5) }
        }
        // Noise, drones, speech and applause have no beat for the tracker to find: its beats, placed
        // by their neighbours, barely stand out (corpus, train split: non-music 1.2–3.0, music 3.8
        // and up, music whose tempo drifts 5.5 and up). A grid's score would not do: drift pulls it
        // down, and a steady tone's tiny ripple pushes it up.
        var salience = trackedScore(tracked, novelty: novelty, span: span)
        // The 3⁄2 level the tempo estimate set aside for a third of its beats standing out is a
        // preference among levels, not evidence that there is no beat: before calling the audio
        // beatless, its beats are tracked too (a swung ride's dotted rhythm can stand out more
        // than its beats).
        if salience < Self.minimumSalience, let setAside = context.setAside {
            let level = refine(setAside, over: span, matcher: matcher, fixedPeriod: false).period
            let other = trackBeats(novelty: novelty, peaks: peaks, period: level, span: span)
            let otherSalience = trackedScore(other, novelty: novelty, span: span)
            if otherSalience > salience { (tracked, salience, period) = (other, otherSalience, level) }
        }
        // A tracker can also lose a beat that plays steadily: a humanised jazz kit's tracked beats
        // wandered by up to 30 ms around its comping, half a beat after the beat, where a line through
        // their neighbours finds little. Before calling the audio beatless, the steady grid at the
        // tempo tracked is asked too.
        if salience < Self.minimumSalience,
            let steady = clearerSteadyGrid(than: salience, period: period, context)
        {
            (tracked, salience) = steady
        }
        // Music as busy between its beats as on them (a dense metal mix, a pattern of even hits) can
        // have beats that stand out less and still a beat: its onsets repeat one beat later far beyond
        // chance, where noise, speech and applause do not repeat at all (read at one lag over the song,
        // or, where a drifting tempo smears that lag, beat by beat along the tracked beats). Its map
        // is written with a warning that the beat is weak.
        var weakBeat: WeakBeat?
        if salience < Self.minimumSalience, tracked.count >= Self.fewestScoredBeats,
            let periodicity = beatRepeats(period: period, context) ?? beatRepeats(along: tracked, context)
        {
            weakBeat = WeakBeat(salience: salience, periodicity: periodicity)
        }
        guard salience >= Self.minimumSalience || weakBeat != nil else {
            if tracked.count < Self.fewestScoredBeats { throw .tooFewBeats(count: tracked.count) }
            throw .noRegularBeat(score: salience)
        }
        let model = selectModel(tracked, period: period, context)
        return TrackedSelection(
            tracked: tracked, salience: salience, model: model, regions: regions, weakBeat: weakBeat)
    }

    /// The simplest model of `tracked` (beats about `period` seconds apart) that explains them
    /// (``GridModelSelector``): one grid, tempo segments, or the beats followed, as the mode allows.
    /// With `strayedPhasesExplained`, beats the tracker followed at a steady shift from the chosen grid
    /// (``explainedAtAnyPhase(_:pieces:)``) count against following: for beats already repaired, whose
    /// remaining strays no kick could put back.
    func selectModel(
        _ tracked: [Double], period: Double, _ context: TrackingContext, strayedPhasesExplained: Bool = false
    ) -> GridModel {
        let (novelty, matcher) = (context.novelty, context.matcher)
        let observations = observe(tracked, matcher: matcher, period: period)
        if options.mode == .follow || observations.count < 8 { return .follow }
        var selector = GridModelSelector()
        selector.allowChanges = options.mode != .constant
        selector.allowFollow = options.mode == .auto
        selector.allowRamp = options.mode == .auto
        let run = selector.minimumPieceBeats
        return selector.select(
            observations, tracked: tracked.count,
            fit: { range, line in
                piece(
                    range, line: line, observations: observations, tracked: tracked, matcher: matcher,
                    novelty: novelty)
            },
            trackedBeatsAreStronger: { pieces in
                let gridBeats = pieces.flatMap { BeatSequence($0.grid, in: $0.span).beats }
                return meanValue(tracked, novelty: novelty) > meanValue(gridBeats, novelty: novelty)
            },
            holdsApart: { pieces in
                GridModelSelector.holdsApart(
                    tracked, pieces: pieces, run: run, neighbourhoods: strayedPhasesExplained)
            },
            explainedAtAShift: { pieces in
                strayedPhasesExplained ? Self.explainedAtAnyPhase(tracked, pieces: pieces) : 0
            },
            extend: { piece in
                grown(piece, over: observations, tracked: tracked, matcher: matcher)
            },
            grownRamp: { pieces in
                guard let first = tracked.first, let last = tracked.last, last > first else { return nil }
                return grownRamp(pieces, tracked: tracked, matcher: matcher, span: first...last)
            },
            onsetStrength: { grid, span in meanValue(BeatSequence(grid, in: span).beats, novelty: novelty) })
    }
}

extension GridFitter {
    /// How many of `tracked` a steady tempo explains at one of the phases a tracker strays to: each
    /// lies within ``GridModelSelector/explainTolerance`` of a point of the piece around it shifted by
    /// 0, ⅓, ½ or ⅔ of a beat (the beat, a triplet, the off-beat, a swung eighth), in a run of at least
    /// ``steadyRun`` consecutive beats at that same shift — so a drift, whose beats pass through every
    /// shift in turn, is not explained.
    static func explainedAtAnyPhase(_ tracked: [Double], pieces: [GridPiece]) -> Int {
        let shifts = [0.0, 1.0 / 3.0, 0.5, 2.0 / 3.0]
        func shift(of beat: Double) -> Int? {
            guard let piece = pieces.first(where: { $0.span.contains(beat) }) else { return nil }
            let period = piece.grid.period
            let phase = (beat - piece.grid.anchor) / period
            let fraction = phase - phase.rounded(.down)
            return shifts.firstIndex { shift in
                let distance = abs(fraction - shift)
                return min(distance, 1 - distance) * period <= GridModelSelector.explainTolerance
            }
        }
        let marks = tracked.map(shift(of:))
        var count = 0
        var start = 0
        while start < marks.count {
            var end = start + 1
            while end < marks.count, marks[end] != nil, marks[end] == marks[start] { end += 1 }
            if marks[start] != nil, end - start >= steadyRun { count += end - start }
            start = end
        }
        return count
    }

    /// The fewest consecutive tracked beats at one shift from a grid that
    /// ``explainedAtAnyPhase(_:pieces:)`` counts: two bars of 4/4.
    static let steadyRun = 8

    /// The onsets' periodicity one beat of `period` seconds later (``Novelty/periodicity(period:in:)``)
    /// when it is beyond chance: at least ``periodicityEvidence`` standard errors, the standard error of
    /// an autocorrelation being about 1/√n over n independent samples. n is counted as the beats in the
    /// span, not the novelty's frames (which within a beat are not independent): a conservative count
    /// that asks long songs for less and short clips for more. `nil` otherwise.
    /// Audio that changes less than music does for its loudness (under ``steadySound``: a drone, a low
    /// sine) is not asked: the ripple of a steady sound's onset novelty can repeat exactly.
    func beatRepeats(period: Double, _ context: TrackingContext) -> Double? {
        let span = context.span
        guard period > 0 else { return nil }
        if let change = context.change, change < Self.steadySound { return nil }
        let beats = (span.upperBound - span.lowerBound) / period
        return Self.beyondChance(context.novelty.periodicity(period: period, in: span), over: beats)
    }

    /// `periodicity` when it reaches ``periodicityEvidence`` standard errors over `beats` independent
    /// samples (a standard error of about 1/√n); `nil` otherwise.
    static func beyondChance(_ periodicity: Double, over beats: Double) -> Double? {
        periodicity * beats.squareRoot() >= periodicityEvidence ? periodicity : nil
    }

    /// ``beatRepeats(period:_:)`` read beat by beat along the `tracked` beats
    /// (``Novelty/periodicity(along:in:)``), for a tempo that drifts: the same evidence asked, over the
    /// tracked beats in the span; `nil` when it is not reached or the audio is a steady sound.
    func beatRepeats(along tracked: [Double], _ context: TrackingContext) -> Double? {
        let span = context.span
        if let change = context.change, change < Self.steadySound { return nil }
        let inside = tracked.filter { span.contains($0) }
        guard inside.count >= Self.fewestScoredBeats else { return nil }
        return Self.beyondChance(context.novelty.periodicity(along: inside, in: span), over: Double(inside.count))
    }

    /// How many standard errors the onsets' repeating one beat later must reach for beats that stand
    /// out less than ``minimumSalience`` to be a beat all the same: 3, the usual one-sided 0.1 % level.
    /// The corpus's non-music (train split) reaches 0.7 at its tracked tempo, and its 6-second cuts
    /// 1.0; the weakest music it lets through reaches 4.0.
    static let periodicityEvidence = 3.0

    /// How much the audio must change for its loudness before a weak beat's repeating counts
    /// (``beatRepeats(period:_:)``): its mean onset novelty over the span per unit of its RMS level, 8.
    /// Every music file of the train sets gives 11.9 or more (241 files: the corpus, Freedoom, the
    /// modules, the games, Frets on Fire); the corpus's drone and its cuts 2.2 to 5.2, a 60 Hz sine
    /// between 1 and 8. Beats that stand out 3.5× are mapped down to ``GridFitter/steadyTone``, with a
    /// warning under this (``GridFit/steadySound``); beats that barely stand out must come from audio
    /// that changes as music does.
    static let steadySound = 8.0

    /// The beats of one steady grid of `period` seconds, at the phase whose points carry the most
    /// onset novelty over the span, with how clearly they stand out
    /// (``trackedScore(_:novelty:span:)``), when they stand out more than `salience`; otherwise `nil`.
    /// Noise, drones, speech and applause have no steady grid either (corpus, train split: 1.2–2.9),
    /// so this is a second reading of the beat, not a looser threshold.
    func clearerSteadyGrid(than salience: Double, period: Double, _ context: TrackingContext) -> (
        beats: [Double], salience: Double
    )? {
        let (novelty, span) = (context.novelty, context.span)
        guard period > 0, span.upperBound - span.lowerBound > Double(Self.fewestScoredBeats - 1) * period else {
            return nil
        }
        let phase = novelty.bestPhase(period: period, in: span)
        let grid = Grid(anchor: phase.anchor, period: period)
        let beats = BeatSequence(grid, in: span).beats
        let score = trackedScore(beats, novelty: novelty, span: span)
        return score > salience ? (beats, score) : nil
    }
}

extension GridModel {
    /// Whether the model's tempo moves: followed beats, or more than one grid.
    var varies: Bool {
        switch self {
        case .follow, .ramp: return true
        case .grid(let pieces): return pieces.count > 1
        }
    }

    /// Whether the map's beats are a segment each: beats followed one by one, or a ramp's.
    var followsBeatByBeat: Bool {
        if case .grid = self { return false }
        return true
    }

    /// Whether the model is one tempo curve (``TempoRamp``).
    var isRamp: Bool {
        if case .ramp = self { return true }
        return false
    }
}
