// SPDX-License-Identifier: GPL-3.0-or-later

import BeatMapKit
import Foundation

/// How the beats of a map are laid out.
public enum GridMode: String, Sendable, CaseIterable {
    /// One tempo, or several segments when the music really changes tempo.
    case auto
    /// One tempo over the whole track.
    case constant
    /// Tempo segments wherever the local tempo changes (like `auto`, but reports every change found).
    case segments
    /// Beats that follow the music beat by beat, for music played without a click: each interval its
    /// own tempo segment.
    case follow
    /// aubio's own beats, delay-compensated, each interval its own tempo.
    case free
}

/// Settings of the grid fit.
public struct GridFitOptions: Sendable, Equatable {
    /// The layout.
    public var mode: GridMode = .auto
    /// A tempo to use instead of estimating one (constant grid).
    public var forcedBPM: Double?
    /// The slowest tempo the metric level may be set to (a hint).
    public var minimumBPM: Double = 60
    /// The fastest tempo the metric level may be set to (a hint).
    public var maximumBPM: Double = 200

    /// Default options.
    public init() {}
}

/// A metric level other than the chosen one, with the score it got.
public struct MetricAlternative: Sendable, Equatable {
    /// The tempo ratio to the chosen level: `×2`, `½`, `⅔` or `3⁄2`.
    public var ratio: String
    /// Its tempo in BPM (of the first segment).
    public var bpm: Double
    /// Its score (mean onset strength at its grid points over the mean onset strength).
    public var score: Double
}

/// One segment of a fitted grid.
public struct FittedSegment: Sendable, Equatable {
    /// The segment's tempo.
    public var bpm: Double
    /// Its first beat.
    public var firstBeat: Double
    /// Its beats.
    public var beats: [Double]
}

/// The result of fitting a grid to an onset envelope.
public struct GridFit: Sendable, Equatable {
    /// The segments in time order (one for a constant grid; one per beat interval for `free`).
    public var segments: [FittedSegment]
    /// All beats in time order.
    public var beats: [Double]
    /// The method, for the map's provenance.
    public var method: String
    /// Fraction of beats with an onset within 50 ms (0…1).
    public var confidence: Double
    /// The chosen level's score (see ``MetricAlternative/score``).
    public var score: Double
    /// Other metric levels of the first segment, best first.
    public var alternatives: [MetricAlternative]
    /// The first and last musical onset: the span the beats cover.
    public var span: ClosedRange<Double>

    /// Whether the map deserves a second look: under half its beats meet an onset, or its beats barely
    /// stand out from the rest of the audio.
    public var isLowConfidence: Bool { method != "aubio-tempo" && (confidence < 0.5 || score < 3) }

    /// The tempo map of the fit.
    public var tempo: [TempoSegment] { segments.map { TempoSegment(time: $0.firstBeat, bpm: $0.bpm) } }
}

/// Why no grid could be fitted.
public enum GridFitError: Error, Sendable, Equatable {
    /// Too few onsets to find a beat.
    case tooFewOnsets(Int)
    /// No periodicity in the tempo range.
    case noPeriodicity
    /// The best grid's points are barely stronger than the rest of the audio.
    case noRegularBeat(score: Double)
    /// `free` mode without aubio tracker beats, or too few of them.
    case tooFewTrackerBeats(Int)

    /// A sentence for users.
    public var reason: String {
        switch self {
        case .tooFewOnsets(let count): return "only \(count) onsets found; the audio has no regular beat"
        case .noPeriodicity: return "no periodicity between the tempo limits"
        case .noRegularBeat(let score):
            return
                "no regular beat: onsets on the best grid are only \(String(format: "%.1f", score))× as strong as elsewhere (noise, a drone or speech?); use --bpm to force a tempo"
        case .tooFewTrackerBeats(let count): return "aubio's beat tracker found only \(count) beats"
        }
    }
}

/// Fits a BPM-consistent beat grid to an onset envelope: estimates the tempo from the envelope's
/// autocorrelation, grows a least-squares fit of beat number against onset time outward from the
/// clearest stretch (so BPM and phase come from the whole track), chooses the metric level, detects
/// tempo changes from the local tempo over sliding windows, and covers the musical span from the first
/// onset to the last.
public struct GridFitter: Sendable {
    /// The options.
    public var options: GridFitOptions

    /// A fitter with `options`.
    public init(options: GridFitOptions = GridFitOptions()) {
        self.options = options
    }

    /// Fits a grid to `envelope` for audio of `duration` seconds. `trackerBeats` (aubio's beats) are
    /// used by `free` mode.
    /// `levels` (mean square per hop, as ``AudioAnalysis/levels``) lets the beats cover a quiet,
    /// beatless intro or a ringing ending where the audio is still sounding; `lowLevels` (the low band's,
    /// as ``AudioAnalysis/lowLevels``) tells the kick drum's place, for the metric level and the phase.
    public func fit(
        _ envelope: OnsetEnvelope, duration: Double, trackerBeats: [Double]? = nil, levels: [Float]? = nil,
        lowLevels: [Float]? = nil
    ) throws(GridFitError)
        -> GridFit
    {
        let novelty = Novelty(envelope: envelope)
        let peaks = novelty.envelope.peaks()
        guard peaks.count >= 4 else { throw .tooFewOnsets(peaks.count) }
        let span = musicalSpan(peaks, duration: duration)
        if options.mode == .free {
            return try freeFit(trackerBeats ?? [], novelty: novelty, peaks: peaks, span: span, duration: duration)
        }
        let matcher = PeakMatcher(peaks: peaks)

        // The song's tempo and metric level over the whole span, then the beats tracked through it.
        guard let global = fitSegment(novelty: novelty, matcher: matcher, span: span) else { throw .noPeriodicity }
        let sounding = levels.flatMap { soundingSpan($0, hopDuration: envelope.hopDuration) }
        var model: GridModel
        var tracked: [Double] = []
        if options.forcedBPM != nil {
            model = .grid([])
        } else {
            var period = global.grid.period
            tracked = trackBeats(novelty: novelty, peaks: peaks, period: period, span: span)
            // The metric level, read along the tracked beats; a new level is tracked anew.
            let lowBand = lowLevels.flatMap { LowBand.novelty(levels: $0, like: envelope) }
            var visited = [period]
            for _ in 0..<3 {
                let sequence = BeatSequence(beats: tracked)
                guard let change = levelChange(sequence, novelty: novelty, lowBand: lowBand) else { break }
                let next = sequence.medianInterval / change.factor
                guard !visited.contains(where: { abs(log($0 / next)) < 0.1 }) else { break }
                visited.append(next)
                period = next
                tracked = trackBeats(novelty: novelty, peaks: peaks, period: period, span: span)
            }
            // Beats half a beat out move to the beats between them.
            let sequence = BeatSequence(beats: tracked)
            if isOffBeat(sequence, novelty: novelty, lowBand: lowBand) {
                tracked = (0..<(tracked.count - 1)).map { sequence.time(at: Double($0) + 0.5) }
            }
            let observations = observe(tracked, matcher: matcher, period: period)
            if options.mode == .follow || observations.count < 8 {
                model = .follow
            } else {
                var selector = GridModelSelector()
                selector.allowChanges = options.mode != .constant
                selector.allowFollow = options.mode == .auto
                model = selector.select(
                    observations, tracked: tracked.count,
                    fit: { range, line in
                        piece(
                            range, line: line, observations: observations, tracked: tracked, matcher: matcher,
                            novelty: novelty)
                    },
                    trackedBeatsAreStronger: { pieces in
                        let gridBeats = pieces.flatMap { piece in
                            let first = piece.grid.firstIndex(atOrAfter: piece.span.lowerBound)
                            let last = piece.grid.lastIndex(atOrBefore: piece.span.upperBound)
                            return last >= first ? (first...last).map { piece.grid.time($0) } : []
                        }
                        return meanValue(tracked, novelty: novelty) > meanValue(gridBeats, novelty: novelty)
                    })
            }
            if case .follow = model, tracked.count < 4 { model = .grid([]) }
        }

        var fittedSegments: [FittedSegment]
        var chosen = (grid: global.grid, score: global.score, alternatives: global.alternatives)
        switch model {
        case .grid(let pieces) where pieces.count > 1:
            var segments: [SegmentFit] = []
            for (index, piece) in pieces.enumerated() {
                let lower = index == 0 ? min(span.lowerBound, piece.span.lowerBound) : piece.span.lowerBound
                let upper =
                    index + 1 == pieces.count ? max(span.upperBound, piece.span.upperBound) : piece.span.upperBound
                let scored = score(piece.grid, novelty: novelty, span: piece.span)
                segments.append(
                    SegmentFit(span: lower...upper, grid: piece.grid, score: scored.score, alternatives: scored.alternatives))
            }
            chosen = (segments[0].grid, segments[0].score, segments[0].alternatives)
            fittedSegments = layOut(segments, novelty: novelty, span: span, sounding: sounding, duration: duration)
        case .grid(let pieces):
            var grid = pieces.first?.grid ?? global.grid
            if pieces.isEmpty { grid = refine(grid, over: span, matcher: matcher, fixedPeriod: options.forcedBPM != nil) }
            let scored = score(grid, novelty: novelty, span: span)
            chosen = (grid, scored.score, scored.alternatives)
            fittedSegments = layOut(
                [SegmentFit(span: span, grid: grid, score: scored.score, alternatives: scored.alternatives)],
                novelty: novelty, span: span, sounding: sounding, duration: duration)
        case .follow:
            fittedSegments = followed(tracked, matcher: matcher, span: span, duration: duration)
        }
        let beats = fittedSegments.flatMap(\.beats)
        let confidence = matchedFraction(beats, matcher: matcher, tolerance: 0.05)
        // Noise and steady sounds have onsets everywhere or nowhere: the best grid's points are then
        // barely stronger than the rest (music scores 9 and more on the corpus; noise 1.7, a tone 2.4).
        let score = global.score
        let globalBeats = layOut(
            [SegmentFit(span: span, grid: global.grid, score: score, alternatives: [])], novelty: novelty, span: span,
            sounding: nil, duration: duration
        ).flatMap(\.beats)
        let globalConfidence = matchedFraction(globalBeats, matcher: matcher, tolerance: 0.05)
        if options.forcedBPM == nil, score < 2 || (score < 3 && globalConfidence < 0.5) {
            throw .noRegularBeat(score: score)
        }
        let method: String
        if options.forcedBPM != nil {
            method = "forced-bpm"
        } else if case .follow = model {
            method = "follow"
        } else {
            method = fittedSegments.count > 1 ? "grid-segments" : "grid-constant"
        }
        return GridFit(
            segments: fittedSegments, beats: beats, method: method, confidence: confidence, score: chosen.score,
            alternatives: chosen.alternatives, span: span)
    }

    // MARK: Tracking

    /// Beats tracked through the whole song at tempi within 30 % of `period` (so the metric level stays
    /// the song's), in seconds.
    func trackBeats(novelty: Novelty, peaks: [OnsetPeak], period: Double, span: ClosedRange<Double>) -> [Double] {
        let envelope = novelty.envelope
        // The activation: novelty over the strong onsets' level, clipped to 0…1.
        let strengths = peaks.filter { span.contains($0.time) }.map(\.strength).sorted()
        guard !strengths.isEmpty else { return [] }
        let scale = strengths[min(strengths.count - 1, Int(Double(strengths.count) * 0.9))]
        guard scale > 0 else { return [] }
        let activation = envelope.values.map { min(1, $0 / Float(scale)) }
        let frames = BeatTracker().track(
            activation: activation, frameDuration: envelope.hopDuration, shortest: period / 1.3,
            longest: period * 1.3, preferred: period)
        return frames.map { envelope.startTime + $0 * envelope.hopDuration }
            .filter { $0 >= span.lowerBound - 0.5 * period && $0 <= span.upperBound + 0.5 * period }
    }

    /// The grid of a run of observations, refined against the onsets over the time they cover, and how
    /// many tracked beats there it explains: lies within 15 ms of (about where two sounds meant together
    /// start to be heard apart). Distances are taken to the nearest grid point, so a beat the tracker
    /// slipped costs one beat, not the rest of the song; a tempo that drifts away from the grid costs
    /// every beat it drifts over.
    func piece(
        _ range: Range<Int>, line: BeatLine, observations: [BeatObservation], tracked: [Double], matcher: PeakMatcher,
        novelty: Novelty
    ) -> (piece: GridPiece, explained: Int) {
        let first = observations[range.lowerBound]
        let last = observations[range.upperBound - 1]
        let lower = first.time - 0.5 * line.period
        let upper = last.time + 0.5 * line.period
        let span = lower...max(lower, upper)
        // The period from the median tracked interval and the phase from the confirmed beats in the
        // clearest stretch (a circular mean): unlike the line through the beat numbers, neither is thrown
        // by a beat the tracker skipped or added. Then the fit grows from that stretch over the piece.
        let inside = tracked.filter { span.contains($0) }
        var intervals = zip(inside.dropFirst(), inside).map { $0 - $1 }.filter { $0 > 0 }
        intervals.sort()
        let period = intervals.isEmpty ? line.period : intervals[intervals.count / 2]
        let window = novelty.clearestWindow(period: period, in: span)
        var sine = 0.0
        var cosine = 0.0
        for observation in observations[range] where window.contains(observation.time) {
            let angle = 2 * Double.pi * observation.time / period
            sine += sin(angle)
            cosine += cos(angle)
        }
        let phase = atan2(sine, cosine) / (2 * Double.pi) * period
        let anchor = phase + ((span.lowerBound - phase) / period).rounded(.up) * period
        let seed = Grid(anchor: anchor, period: period)
        let grid = refine(
            grow(seed, from: window, over: span, matcher: matcher, fixedPeriod: false), over: span, matcher: matcher,
            fixedPeriod: false)
        var explained = 0
        for beat in tracked where span.contains(beat) {
            let k = ((beat - grid.anchor) / grid.period).rounded()
            if abs(beat - grid.time(Int(k))) <= 0.015 { explained += 1 }
        }
        return (GridPiece(span: span, grid: grid), explained)
    }

    /// The mean, over `beats`, of the strongest onset novelty within 25 ms: fair to a grid, whose
    /// points sit a little off the onsets they stand for, and to tracked beats, which sit on them.
    func meanValue(_ beats: [Double], novelty: Novelty) -> Double {
        guard !beats.isEmpty else { return 0 }
        var sum = 0.0
        for beat in beats {
            var strongest = 0.0
            var t = beat - 0.025
            while t <= beat + 0.025 {
                strongest = max(strongest, novelty.value(at: t))
                t += novelty.hop / 2
            }
            sum += strongest
        }
        return sum / Double(beats.count)
    }

    /// The tracked beats that an onset confirms (within 15 % of a beat, at most 50 ms), at the onset's
    /// time.
    func observe(_ beats: [Double], matcher: PeakMatcher, period: Double) -> [BeatObservation] {
        let tolerance = min(0.05, 0.15 * period)
        var result: [BeatObservation] = []
        for (index, beat) in beats.enumerated() {
            if let peak = matcher.nearest(to: beat, within: tolerance) {
                result.append(BeatObservation(index: index, time: peak.time))
            }
        }
        return result
    }

    /// Followed beats: the tracked beats (each already placed on the onset strength's peak near it),
    /// each interval its own tempo segment.
    func followed(_ tracked: [Double], matcher: PeakMatcher, span: ClosedRange<Double>, duration: Double)
        -> [FittedSegment]
    {
        var beats: [Double] = []
        for time in tracked {
            guard time >= 0, time < duration else { continue }
            if let last = beats.last, time - last < 0.15 { continue }
            beats.append(time)
        }
        return perBeatSegments(beats)
    }

    /// One tempo segment per beat, its tempo from the interval to the next beat.
    func perBeatSegments(_ beats: [Double]) -> [FittedSegment] {
        var segments: [FittedSegment] = []
        for index in beats.indices {
            let interval =
                index + 1 < beats.count ? beats[index + 1] - beats[index] : beats[index] - beats[max(0, index - 1)]
            let bpm = interval > 0 ? min(TempoLimits.maximumBPM, max(TempoLimits.minimumBPM, 60 / interval)) : 120
            segments.append(FittedSegment(bpm: bpm, firstBeat: beats[index], beats: [beats[index]]))
        }
        return segments
    }

    /// The score of `grid` over `span` and the other metric levels', best first.
    func score(_ grid: Grid, novelty: Novelty, span: ClosedRange<Double>) -> (
        score: Double, alternatives: [MetricAlternative]
    ) {
        let base = novelty.mean(in: span)
        guard base > 0 else { return (0, []) }
        let chosenScore = novelty.levelGrid(grid, tempoFactor: 1, in: span).score / base
        var alternatives: [MetricAlternative] = []
        for (label, factor) in [("×2", 2.0), ("½", 0.5), ("⅔", 2.0 / 3.0), ("3⁄2", 1.5)] {
            let candidate = novelty.levelGrid(grid, tempoFactor: factor, in: span)
            alternatives.append(
                MetricAlternative(ratio: label, bpm: 60 / candidate.grid.period, score: candidate.score / base))
        }
        alternatives.sort { $0.score > $1.score }
        return (chosenScore, alternatives)
    }

    // MARK: Span

    /// From the first to the last onset that is at least 5 % as strong as the strong onsets (the 90th
    /// percentile), so a silent or near-silent intro and outro get no beats.
    func musicalSpan(_ peaks: [OnsetPeak], duration: Double) -> ClosedRange<Double> {
        let strengths = peaks.map(\.strength).sorted()
        let reference = strengths[min(strengths.count - 1, Int(Double(strengths.count) * 0.9))]
        let significant = peaks.filter { $0.strength >= 0.05 * reference && $0.time >= 0 && $0.time <= duration }
        guard let first = significant.first?.time, let last = significant.last?.time, first < last else {
            return 0...duration
        }
        return first...last
    }

    /// Where the audio sounds: from the first to the last hop within 30 dB of its loud level (the 95th
    /// percentile of the hops' mean squares); `nil` when it never does.
    func soundingSpan(_ levels: [Float], hopDuration: Double) -> ClosedRange<Double>? {
        guard !levels.isEmpty else { return nil }
        let sorted = levels.sorted()
        let loud = sorted[min(sorted.count - 1, Int(Double(sorted.count) * 0.95))]
        guard loud > 0 else { return nil }
        let threshold = loud * 0.001
        guard let first = levels.firstIndex(where: { $0 >= threshold }),
            let last = levels.lastIndex(where: { $0 >= threshold })
        else { return nil }
        return (Double(first) * hopDuration)...(Double(last + 1) * hopDuration)
    }

    // MARK: Fitting one segment

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
        /// The grid index at or after `t`.
        func firstIndex(atOrAfter t: Double) -> Int { Int(((t - anchor) / period - 1e-9).rounded(.up)) }
        func lastIndex(atOrBefore t: Double) -> Int { Int(((t - anchor) / period + 1e-9).rounded(.down)) }
    }

    /// Fits the grid of one tempo to the onsets in `span`: the period from the autocorrelation (or the
    /// forced BPM, or `seed`), the phase from the clearest 10-second stretch, then a least-squares line
    /// through the matched onsets grown outward over the whole span, then the metric level.
    func fitSegment(
        novelty: Novelty, matcher: PeakMatcher, span: ClosedRange<Double>, seed: Grid? = nil
    ) -> (grid: Grid, score: Double, alternatives: [MetricAlternative])? {
        var grid: Grid
        let forced = options.forcedBPM.map { 60 / $0 }
        if let seed {
            grid = seed
        } else {
            let period: Double
            if let forced {
                period = forced
            } else {
                guard
                    let estimate = novelty.period(
                        in: span, minimumBPM: options.minimumBPM, maximumBPM: options.maximumBPM)
                else {
                    return nil
                }
                period = estimate.seconds
            }
            let window = novelty.clearestWindow(period: period, in: span)
            grid = Grid(anchor: novelty.bestPhase(period: period, in: window).anchor, period: period)
            grid = grow(grid, from: window, over: span, matcher: matcher, fixedPeriod: forced != nil)
        }
        grid = refine(grid, over: span, matcher: matcher, fixedPeriod: forced != nil)

        // Metric level, by the metrical hierarchy: a level's own beats must all be strong. Halve the
        // tempo when every other beat is weak (its weaker parity under half its stronger one); double it
        // when the off-beats are nearly as strong as the beats. The tempo limits bound both; a ternary
        // level (⅔, 3⁄2) replaces the beat only when its points clearly outscore the beats.
        guard novelty.mean(in: span) > 0 else { return nil }
        if forced == nil, seed == nil {
            grid = chooseLevel(grid, novelty: novelty, matcher: matcher, span: span)
        }
        let scored = score(grid, novelty: novelty, span: span)
        return (grid, scored.score, scored.alternatives)
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
    /// beats' strength (as for doubling); the ⅔ level only when its points clearly outscore the beats'.
    func chooseLevel(_ start: Grid, novelty: Novelty, matcher: PeakMatcher, span: ClosedRange<Double>) -> Grid {
        var grid = start
        func bpm(_ grid: Grid) -> Double { 60 / grid.period }
        let lowest = options.minimumBPM * 0.97
        let highest = options.maximumBPM * 1.03
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
            let halve = parity < 0.3 || (between / beats < 0.1 && parity < 0.7)
            let doubled = (parity >= 0.95 && offBeats >= 0.4) || offBeats >= 0.75
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
        for factor in [1.5, 2.0 / 3.0] {
            let ternary = novelty.levelGrid(grid, tempoFactor: factor, in: span)
            let tempo = bpm(ternary.grid)
            // Like doubling, the faster ternary level (3⁄2) wins when its points carry 3⁄4 of the beats'
            // strength; the slower one (⅔) only when it clearly outscores them.
            let needed = factor > 1 ? 0.75 : 1.15
            if ternary.score > needed * beats, tempo >= lowest, tempo <= highest {
                return refine(ternary.grid, over: span, matcher: matcher, fixedPeriod: false)
            }
        }
        return grid
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

    // MARK: Laying out beats

    /// The beats of each segment over its span, the first segment reaching back to the start of the
    /// music and the last to its end, with the change between two segments placed where the onsets
    /// fit best.
    func layOut(
        _ segments: [SegmentFit], novelty: Novelty, span: ClosedRange<Double>, sounding: ClosedRange<Double>?,
        duration: Double
    ) -> [FittedSegment] {
        var start = max(0, span.lowerBound - 0.05)
        var end = min(duration, span.upperBound + 0.05)
        // A beatless intro that already sounds gets beats from a quarter beat before it starts; a ringing
        // ending, up to two beats before the sound dies away (a drum's or a pad's own decay adds none).
        if let sounding, let first = segments.first, let last = segments.last {
            start = max(0, min(start, sounding.lowerBound - 0.25 * first.grid.period))
            end = min(duration, max(end, sounding.upperBound - 2 * last.grid.period))
        }
        // Change times: where segment i+1's grid takes over.
        var cuts: [Double] = []
        for index in 0..<(segments.count - 1) {
            cuts.append(bestCut(segments[index], segments[index + 1], novelty: novelty))
        }
        var result: [FittedSegment] = []
        var previousBeat = -Double.infinity
        for (index, segment) in segments.enumerated() {
            let grid = segment.grid
            // Beats strictly after the previous segment's last beat, at least a third of a beat on.
            let lower = max(index == 0 ? start : cuts[index - 1], previousBeat + grid.period / 3)
            let upper = index + 1 < segments.count ? cuts[index] - 0.5 * grid.period : end
            let first = grid.firstIndex(atOrAfter: lower)
            let last = grid.lastIndex(atOrBefore: upper)
            guard last >= first else { continue }
            let beats = (first...last).map { grid.time($0) }.filter { $0 >= 0 && $0 < duration }
            if let lastBeat = beats.last { previousBeat = lastBeat }
            guard let firstBeat = beats.first else { continue }
            result.append(FittedSegment(bpm: 60 / grid.period, firstBeat: firstBeat, beats: beats))
        }
        return result
    }

    /// The beat of `next`'s grid, near the two segments' boundary, from which on the beats fit the
    /// onsets best.
    func bestCut(_ current: SegmentFit, _ next: SegmentFit, novelty: Novelty) -> Double {
        let boundary = current.span.upperBound
        // Within 6 s of the boundary, and not beyond the middle of either segment.
        let lower = max(boundary - 6, (current.span.lowerBound + boundary) / 2)
        let upper = min(boundary + 6, (boundary + next.span.upperBound) / 2)
        let zone = min(lower, boundary)...max(upper, boundary)
        let base = novelty.mean(in: zone)
        var bestTime = next.grid.time(next.grid.firstIndex(atOrAfter: boundary))
        var bestScore = -Double.infinity
        let firstCandidate = next.grid.firstIndex(atOrAfter: zone.lowerBound)
        let lastCandidate = next.grid.lastIndex(atOrBefore: zone.upperBound)
        guard lastCandidate >= firstCandidate else { return bestTime }
        for candidate in firstCandidate...lastCandidate {
            let cut = next.grid.time(candidate)
            var score = 0.0
            var k = current.grid.firstIndex(atOrAfter: zone.lowerBound)
            while current.grid.time(k) < cut - 0.5 * current.grid.period {
                score += novelty.value(at: current.grid.time(k)) - base
                k += 1
            }
            k = candidate
            while next.grid.time(k) <= zone.upperBound {
                score += novelty.value(at: next.grid.time(k)) - base
                k += 1
            }
            if score > bestScore {
                bestScore = score
                bestTime = cut
            }
        }
        return bestTime
    }

    /// Fraction of `beats` with an onset within `tolerance`.
    func matchedFraction(_ beats: [Double], matcher: PeakMatcher, tolerance: Double) -> Double {
        guard !beats.isEmpty else { return 0 }
        let matched = beats.filter { matcher.nearest(to: $0, within: tolerance) != nil }.count
        return (Double(matched) / Double(beats.count) * 1000).rounded() / 1000
    }

    // MARK: Free

    /// aubio's beats inside the musical span, each interval its own tempo segment.
    func freeFit(
        _ trackerBeats: [Double], novelty: Novelty, peaks: [OnsetPeak], span: ClosedRange<Double>, duration: Double
    ) throws(GridFitError)
        -> GridFit
    {
        var beats: [Double] = []
        for beat in trackerBeats where beat >= 0 && beat < duration {
            // Keep beats in time order and at most 400 BPM apart.
            if let last = beats.last, beat - last < 0.15 { continue }
            beats.append(beat)
        }
        guard beats.count >= 2 else { throw .tooFewTrackerBeats(beats.count) }
        var segments: [FittedSegment] = []
        for index in beats.indices {
            let interval = index + 1 < beats.count ? beats[index + 1] - beats[index] : beats[index] - beats[index - 1]
            let bpm = min(TempoLimits.maximumBPM, max(TempoLimits.minimumBPM, 60 / interval))
            segments.append(FittedSegment(bpm: bpm, firstBeat: beats[index], beats: [beats[index]]))
        }
        let matcher = PeakMatcher(peaks: peaks)
        return GridFit(
            segments: segments, beats: beats, method: "aubio-tempo",
            confidence: matchedFraction(beats, matcher: matcher, tolerance: 0.05),
            score: 0, alternatives: [], span: span)
    }
}

/// Finds the onset nearest a time (binary search over time-ordered peaks).
struct PeakMatcher {
    let peaks: [OnsetPeak]

    func nearest(to t: Double, within tolerance: Double) -> OnsetPeak? {
        var low = 0
        var high = peaks.count
        while low < high {
            let mid = (low + high) / 2
            if peaks[mid].time < t { low = mid + 1 } else { high = mid }
        }
        var best: OnsetPeak?
        for index in [low - 1, low] where index >= 0 && index < peaks.count {
            let distance = abs(peaks[index].time - t)
            if distance <= tolerance, best.map({ distance < abs($0.time - t) }) ?? true { best = peaks[index] }
        }
        return best
    }
}

/// The onset envelope prepared for scoring grids: the local mean (±0.1 s) subtracted and negative
/// values dropped, so only what stands out as an onset counts.
struct Novelty {
    let envelope: OnsetEnvelope

    init(envelope source: OnsetEnvelope) {
        let values = source.values
        let count = values.count
        let radius = max(1, Int((0.1 / source.hopDuration).rounded()))
        var prefix = [Double](repeating: 0, count: count + 1)
        for index in 0..<count { prefix[index + 1] = prefix[index] + Double(values[index]) }
        var result = [Float](repeating: 0, count: count)
        for index in 0..<count {
            let low = max(0, index - radius)
            let high = min(count, index + radius + 1)
            let mean = (prefix[high] - prefix[low]) / Double(high - low)
            result[index] = Float(max(0, Double(values[index]) - mean))
        }
        envelope = OnsetEnvelope(values: result, hopDuration: source.hopDuration, startTime: source.startTime)
    }

    var hop: Double { envelope.hopDuration }

    func value(at t: Double) -> Double { Double(envelope.value(at: t)) }

    /// Index range of the envelope inside `range`.
    func indices(in range: ClosedRange<Double>) -> Range<Int> {
        let low = max(0, Int(envelope.position(of: range.lowerBound).rounded(.up)))
        let high = min(envelope.count, Int(envelope.position(of: range.upperBound).rounded(.down)) + 1)
        return low..<max(low, high)
    }

    /// Mean value inside `range`.
    func mean(in range: ClosedRange<Double>) -> Double {
        let indices = indices(in: range)
        guard !indices.isEmpty else { return 0 }
        var sum = 0.0
        for index in indices { sum += Double(envelope.values[index]) }
        return sum / Double(indices.count)
    }

    /// The beat period in `range` from the autocorrelation: the lag (between the tempo limits, widened
    /// by an octave each way) whose multiples correlate best, refined between hops and over up to eight
    /// beats.
    func period(in range: ClosedRange<Double>, minimumBPM: Double, maximumBPM: Double) -> (
        seconds: Double, strength: Double
    )? {
        let indices = indices(in: range)
        let values = envelope.values
        let slowest = 60 / max(20, minimumBPM / 2)
        let fastest = 60 / min(400, maximumBPM * 2)
        let minLag = max(2, Int((fastest / hop).rounded(.down)))
        let maxPeriodLag = Int((slowest / hop).rounded(.up))
        let maxLag = min(indices.count / 2, 4 * maxPeriodLag + 2)
        guard maxLag > minLag + 2 else { return nil }
        var acf = [Double](repeating: 0, count: maxLag + 1)
        values.withUnsafeBufferPointer { buffer in
            let base = indices.lowerBound
            let n = indices.count
            for lag in 0...maxLag {
                var sum: Float = 0
                var index = base
                let end = base + n - lag
                while index < end {
                    sum += buffer[index] * buffer[index + lag]
                    index += 1
                }
                acf[lag] = Double(sum) / Double(n - lag)
            }
        }
        guard acf[0] > 0 else { return nil }
        func acfAt(_ lag: Double) -> Double {
            let index = Int(lag)
            guard index + 1 <= maxLag else { return index <= maxLag ? acf[index] : 0 }
            let fraction = lag - Double(index)
            return acf[index] * (1 - fraction) + acf[index + 1] * fraction
        }
        // Comb over multiples: a beat period correlates at 1, 2, 3 and 4 periods.
        var bestLag = 0.0
        var bestScore = -Double.infinity
        let lowBPM = max(20, minimumBPM / 2)
        let highBPM = min(400, maximumBPM * 2)
        var bpm = lowBPM
        while bpm <= highBPM {
            let lag = 60 / bpm / hop
            if lag * 4 <= Double(maxLag) || lag * 2 <= Double(maxLag) {
                var score = 0.0
                var weight = 0.0
                for multiple in 1...4 where lag * Double(multiple) <= Double(maxLag) {
                    score += acfAt(lag * Double(multiple))
                    weight += 1
                }
                score /= weight
                // A mild preference for the middle of the hinted range keeps the octave sensible.
                let centre = (minimumBPM * maximumBPM).squareRoot()
                let prior = exp(-0.5 * pow(log2(bpm / centre) / 1.0, 2))
                score *= prior
                if score > bestScore {
                    bestScore = score
                    bestLag = lag
                }
            }
            bpm *= 1.002
        }
        guard bestLag > 0 else { return nil }
        // Refine the lag on the highest multiple's autocorrelation peak that fits.
        var lag = bestLag
        for multiple in [2, 4, 8] {
            let target = lag * Double(multiple)
            guard target + 3 < Double(maxLag) else { break }
            var peakIndex = Int(target.rounded())
            for candidate in max(1, Int(target) - 2)...min(maxLag - 1, Int(target) + 3)
            where acf[candidate] > acf[peakIndex] {
                peakIndex = candidate
            }
            guard peakIndex > 0, peakIndex < maxLag else { break }
            let left = acf[peakIndex - 1]
            let centreValue = acf[peakIndex]
            let right = acf[peakIndex + 1]
            let curvature = left - 2 * centreValue + right
            guard curvature < 0 else { break }
            let shift = 0.5 * (left - right) / curvature
            lag = (Double(peakIndex) + max(-0.5, min(0.5, shift))) / Double(multiple)
        }
        return (lag * hop, bestScore / acf[0])
    }

    /// The phase of `period` with the highest mean value at its grid points over `range`.
    func bestPhase(period: Double, in range: ClosedRange<Double>) -> (anchor: Double, score: Double) {
        let steps = max(8, Int((period / (hop / 4)).rounded()))
        var best = (anchor: range.lowerBound, score: -Double.infinity)
        for step in 0..<steps {
            let anchor = range.lowerBound + Double(step) * period / Double(steps)
            var sum = 0.0
            var count = 0
            var t = anchor
            while t <= range.upperBound {
                sum += value(at: t)
                count += 1
                t += period
            }
            let score = count > 0 ? sum / Double(count) : 0
            if score > best.score { best = (anchor, score) }
        }
        return best
    }

    /// The mean value at `grid`'s points shifted by `fraction` of a beat, over `range`.
    func mean(of grid: GridFitter.Grid, at fraction: Double, in range: ClosedRange<Double>) -> Double {
        let shifted = GridFitter.Grid(anchor: grid.anchor + fraction * grid.period, period: grid.period)
        let first = shifted.firstIndex(atOrAfter: range.lowerBound)
        let last = shifted.lastIndex(atOrBefore: range.upperBound)
        guard last >= first else { return 0 }
        var sum = 0.0
        for k in first...last { sum += value(at: shifted.time(k)) }
        return sum / Double(last - first + 1)
    }

    /// The 10-second stretch of `range` where the grid of `period` stands out most.
    func clearestWindow(period: Double, in range: ClosedRange<Double>) -> ClosedRange<Double> {
        let width = min(10, range.upperBound - range.lowerBound)
        var best = range.lowerBound...(range.lowerBound + width)
        var bestScore = -Double.infinity
        var start = range.lowerBound
        while start + width <= range.upperBound + 1e-9 {
            let window = start...(start + width)
            let base = mean(in: window)
            if base > 0 {
                let score = bestPhase(period: period, in: window).score / base
                if score > bestScore {
                    bestScore = score
                    best = window
                }
            }
            start += 2.5
        }
        return best
    }

    /// The grid at `tempoFactor` times the tempo of `grid`, at the phase (on sixths of a beat of
    /// `grid`) whose points have the highest mean value over `range`; returns that grid and mean.
    func levelGrid(_ grid: GridFitter.Grid, tempoFactor: Double, in range: ClosedRange<Double>) -> (
        grid: GridFitter.Grid, score: Double
    ) {
        let period = grid.period / tempoFactor
        let phaseStep = grid.period / 6
        let phases = max(1, Int((period / phaseStep).rounded()))
        var best = (grid: GridFitter.Grid(anchor: grid.anchor, period: period), score: -Double.infinity)
        for phase in 0..<phases {
            let anchor = grid.anchor + Double(phase) * phaseStep
            let candidate = GridFitter.Grid(anchor: anchor, period: period)
            let first = candidate.firstIndex(atOrAfter: range.lowerBound)
            let last = candidate.lastIndex(atOrBefore: range.upperBound)
            guard last >= first else { continue }
            var sum = 0.0
            for k in first...last { sum += value(at: candidate.time(k)) }
            let score = sum / Double(last - first + 1)
            if score > best.score { best = (candidate, score) }
        }
        return best
    }
}
