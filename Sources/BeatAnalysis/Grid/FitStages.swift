// SPDX-License-Identifier: GPL-3.0-or-later

import BeatMapKit
import Foundation

// The stages of ``GridFitter/fit(_:duration:trackerBeats:levels:lowLevels:blockLevels:blockDuration:bandLevels:drums:)``
// after the whole-song estimate: the model chosen from the tracked beats, laid over the music, the
// beats put on their transients, and moved onto the drums.
extension GridFitter {
    /// The model of the song's beats and the beats it was chosen from.
    struct ModelChoice {
        /// One grid, tempo segments, a ramp or the beats followed.
        var model: GridModel
        /// The tracked beats (repaired where followed); empty for a tempo the user gave.
        var tracked: [Double]
        /// How clearly the tracked beats stand out (``trackedScore(_:novelty:span:)``), or the whole-song
        /// estimate's score for a tempo the user gave.
        var salience: Double
        /// Set when the beats stand out little but the onsets repeat every beat.
        var weakBeat: WeakBeat?
    }

    /// The beats tracked from `global` (the whole-song estimate's grid, of `score`) and the simplest
    /// model of them: read again in beat time where the tempo moves, tracked across tempo regions,
    /// repaired where followed and chosen again on the repaired beats, each grid piece at its own
    /// octave and on the kick, without pieces that only pass from one tempo to the next
    /// (``withoutTransitionPieces(_:novelty:)``) (steps 4 to 6 of docs/analyze.md). A tempo the user
    /// gave is one grid. `drums` holds the drum detector's frames, which the kick step reads
    /// (``onTheKick(tracked:lowBand:drums:)``).
    func chosenModel(
        from global: Grid, score: Double, _ context: TrackingContext, envelope: OnsetEnvelope, lowLevels: [Float]?,
        bandLevels: [UInt8]?, drums: SharedDrumFrames? = nil
    ) throws(GridFitError) -> ModelChoice {
        if options.forcedBPM != nil { return ModelChoice(model: .grid([]), tracked: [], salience: score) }
        let (novelty, peaks, matcher, span, lowBand) = (
            context.novelty, context.peaks, context.matcher, context.span, context.lowBand
        )
        // Followed beats repaired (sections at another pulse put back at the song's, detours and slips
        // repaired, then moved onto the kick and onto the song's beat), and the model chosen again on
        // them: repaired, they may lie on one grid after all (a tracker that spent long stretches on
        // the off-beats explained too few beats for any grid). This time stretches the tracker
        // followed at a steady shift from a grid (a swung eighth the kick could not correct) count for
        // that grid: a steady tempo with a tracker that strayed to another phase is not a tempo that
        // moves. Only `auto` chooses again; otherwise the model stays followed.
        func repairedFollow(_ followed: [Double], regions: [TempoRegion]) -> (tracked: [Double], model: GridModel) {
            var tracked = repairingLevelSections(followed, novelty: novelty, peaks: peaks, span: span, regions: regions)
            tracked = repairingDetours(tracked, novelty: novelty, peaks: peaks, span: span)
            let slipsRepaired = repairingSlips(tracked, lowBand: lowBand)
            let hop = envelope.hopDuration
            tracked = Self.withDrums(drums, hop: hop) { onTheKick(tracked: slipsRepaired, lowBand: lowBand, drums: $0) }
            // Sections whose beats sound like the song's off-beats move onto its beat.
            if let bandLevels,
                let bands = BandRises(
                    levels: bandLevels, hopDuration: envelope.hopDuration, startTime: envelope.startTime)
            {
                let kickRepaired = tracked
                tracked = Self.withDrums(drums, hop: hop) {
                    onTheSongsBeat(tracked: kickRepaired, bands: bands, lowBand: lowBand, drums: $0)
                }
            }
            guard options.mode == .auto else { return (tracked, .follow) }
            let again = selectModel(
                tracked, period: BeatSequence(beats: tracked).medianInterval, context, strayedPhasesExplained: true)
            return (tracked, again)
        }
        var selected = try trackAndSelect(from: global.period, context)
        // Where the tempo moves, the whole-song estimate (`global`) was made on onsets smeared by the
        // movement (an 8 % ramp blurs a two-beat lag twice as much as a one-beat lag), so it can
        // pick another level than the same music played steadily would get. Read in beat time
        // (the onsets laid out along the tracked beats, as if played to a click), it is not
        // smeared; a different level there is tracked anew, and the two readings' beats compete:
        // those that stand out more (``trackedScore(_:novelty:span:)``) are kept, unless the first
        // tracking's beats are followed, still are once repaired (as below), and the new tracking's
        // lie on one grid, once repaired where followed
        // (``beatTimeTrackingReplaces(_:with:firstOnceRepaired:againOnceRepaired:)``). The beat-time
        // song is played at the tempo the whole-song estimate heard when the tracker is at its
        // level, so a song whose tempo moves a little is read as its steady original would be.
        if selected.model.varies,
            let factor = beatTimeLevel(
                selected.tracked, envelope: envelope, lowLevels: lowLevels, heardPeriod: global.period),
            let again = try? trackAndSelect(
                from: BeatSequence(beats: selected.tracked).medianInterval / factor, context),
            again.salience > selected.salience
                || Self.beatTimeTrackingReplaces(
                    selected.model, with: again.model,
                    firstOnceRepaired: { repairedFollow(selected.tracked, regions: selected.regions).model },
                    againOnceRepaired: { repairedFollow(again.tracked, regions: again.regions).model })
        {
            selected = again
        }
        // A tempo change beyond the tracker's reach: tracked again with its range centred there.
        if options.mode != .constant, let across = acrossTempoRegions(selected, from: global.period, context) {
            selected = across
        }
        var (model, tracked) = (selected.model, selected.tracked)
        if case .follow = model, tracked.count < 4 { model = .grid([]) }
        // Followed sections at another pulse are put back at the song's; then a grid on the
        // off-beats of the kick, or followed sections on them, move onto it.
        if case .follow = model {
            let repaired = repairedFollow(tracked, regions: selected.regions)
            tracked = repaired.tracked
            if repaired.model != .follow {
                model = onTheKick(
                    levelPerPiece(repaired.model, novelty: novelty, matcher: matcher, lowBand: lowBand),
                    global: global, span: span, matcher: matcher, lowBand: lowBand)
            }
        } else {
            model = onTheKick(
                levelPerPiece(model, novelty: novelty, matcher: matcher, lowBand: lowBand),
                global: global, span: span, matcher: matcher, lowBand: lowBand)
        }
        // A piece at a tempo between its neighbours' that the onsets do not ask for is the tracker
        // passing through a step, not music.
        model = withoutTransitionPieces(model, novelty: novelty)
        return ModelChoice(model: model, tracked: tracked, salience: selected.salience, weakBeat: selected.weakBeat)
    }

    /// The beats of `choice`'s model over the music (step 7), with the score and metric alternatives the
    /// map records: each grid piece refined and laid out from the music's first onset to its last (a
    /// grid of no piece is `global`, refined against the onsets), a ramp's and followed beats one
    /// segment per beat. `drums` reads the kick plus snare at a time, for where a change in a drumless
    /// passage goes (``layOut(_:novelty:span:sounding:duration:drums:)``).
    func laidOut(
        _ choice: ModelChoice, global: (grid: Grid, score: Double, alternatives: [MetricAlternative]),
        _ context: TrackingContext, sounding: ClosedRange<Double>?, duration: Double,
        drums: (Double) -> Float? = { _ in nil }
    ) -> (segments: [FittedSegment], score: Double, alternatives: [MetricAlternative]) {
        let (novelty, matcher, span) = (context.novelty, context.matcher, context.span)
        var fittedSegments: [FittedSegment]
        var chosen = global
        switch choice.model {
        case .grid(let pieces) where pieces.count > 1:
            var segments: [SegmentFit] = []
            for (index, piece) in pieces.enumerated() {
                let lower = index == 0 ? min(span.lowerBound, piece.span.lowerBound) : piece.span.lowerBound
                let upper =
                    index + 1 == pieces.count ? max(span.upperBound, piece.span.upperBound) : piece.span.upperBound
                let scored = score(piece.grid, novelty: novelty, span: piece.span)
                segments.append(
                    SegmentFit(
                        span: lower...upper, grid: piece.grid, score: scored.score, alternatives: scored.alternatives))
            }
            chosen = (segments[0].grid, segments[0].score, segments[0].alternatives)
            fittedSegments = layOut(
                segments, novelty: novelty, span: span, sounding: sounding, duration: duration, drums: drums)
        case .grid(let pieces):
            var grid = pieces.first?.grid ?? global.grid
            if pieces.isEmpty {
                grid = refine(grid, over: span, matcher: matcher, fixedPeriod: options.forcedBPM != nil)
            }
            let scored = score(grid, novelty: novelty, span: span)
            chosen = (grid, scored.score, scored.alternatives)
            fittedSegments = layOut(
                [SegmentFit(span: span, grid: grid, score: scored.score, alternatives: scored.alternatives)],
                novelty: novelty, span: span, sounding: sounding, duration: duration)
        case .ramp(let ramp):
            // One parabola refined against the onsets; each of its beats a segment, as followed beats are.
            fittedSegments = followed(beats(of: refine(ramp, matcher: matcher), in: span), duration: duration)
            chosen.score = choice.salience
        case .follow:
            fittedSegments = followed(choice.tracked, duration: duration)
            chosen.score = choice.salience
        }
        return (fittedSegments, chosen.score, chosen.alternatives)
    }

    /// Beats where the drums are, when the drums sit clearly between them (a third, a half or two
    /// thirds of a beat on) rather than on them, or the beats sit on the pickup a sixteenth before the
    /// kick on the beat (``DrumDetector/pickupShift(of:frames:frameDuration:distance:)``, a quarter of
    /// a beat on played straight, less swung): the learned detector tells a kick and a snare from
    /// the bass line, hi-hats and stabs the grid rules read alike. Read on the beats as they would
    /// be written (the detector's peaks are a few hops wide, so the transients' shift matters), as
    /// tools/learned/drums.py measured it; beats that move are put on their transients again.
    /// Grids with tempo changes between them are checked one by one: a tempo change is where a
    /// medley's next song starts, and each song's drums say where its own beat is.
    func drumChecked(
        _ segments: [FittedSegment], _ choice: ModelChoice, frames: inout DrumFrames, hopDuration: Double,
        span: ClosedRange<Double>, sounding: ClosedRange<Double>?, duration: Double, placement: TransientPlacement
    ) -> [FittedSegment] {
        let shifts: [Double?]
        if case .grid(let pieces) = choice.model, pieces.count > 1 {
            shifts = segments.map {
                DrumDetector.betterShift(of: $0.beats, frames: &frames, frameDuration: hopDuration)
                    ?? DrumDetector.pickupShift(of: $0.beats, frames: &frames, frameDuration: hopDuration)
                    ?? DrumDetector.kickParityShift(of: $0.beats, frames: &frames, frameDuration: hopDuration)
            }
        } else {
            let written = segments.flatMap(\.beats)
            var unchosen = false
            if case .grid = choice.model {
                unchosen = DrumDetector.trackerLeftThePhase(choice.tracked, written: written)
            }
            let shift =
                DrumDetector.betterShift(
                    of: written, frames: &frames, frameDuration: hopDuration, phaseUnchosen: unchosen)
                ?? DrumDetector.pickupShift(of: written, frames: &frames, frameDuration: hopDuration)
                ?? DrumDetector.kickParityShift(of: written, frames: &frames, frameDuration: hopDuration)
            if shift == nil, choice.model.followsBeatByBeat, segments.count == written.count {
                // Beats followed one by one (a segment each): the stretches on a pickup move on their
                // own, each beat by a quarter of its own interval.
                var each = [Double?](repeating: nil, count: segments.count)
                for run in DrumDetector.pickupRuns(of: written, frames: &frames, frameDuration: hopDuration) {
                    for index in run { each[index] = DrumDetector.pickup }
                }
                shifts = each
            } else {
                shifts = Array(repeating: shift, count: segments.count)
            }
        }
        guard shifts.contains(where: { $0 != nil }) else { return segments }
        let start = Self.layoutStart(span: span, sounding: sounding, firstPeriod: segments.first.map { 60 / $0.bpm })
        return placement.aligned(
            Self.shifted(segments, by: shifts, duration: duration, earliest: Self.earliestBeat(start: start)))
    }

    /// The map's method for `model` laid out as `segments`.
    func method(of model: GridModel, segments: [FittedSegment]) -> FitMethod {
        if options.forcedBPM != nil { return .forcedBPM }
        if case .follow = model { return .follow }
        if case .ramp = model { return .ramp }
        return segments.count > 1 ? .gridSegments : .gridConstant
    }

    /// Beats on the start of the transients they stand for (``TransientAlignment``), a first beat a
    /// hair before the file's start at 0 s.
    struct TransientPlacement {
        /// The mean squares per block of the first minutes (``AudioAnalysis/blockLevels``), if read.
        var blockLevels: CompactFloats?
        /// Seconds per block.
        var blockDuration: Double
        /// The audio's duration in seconds: beats moved past it go.
        var duration: Double

        /// `segments` moved, all by one shift, onto the start of their transients; beats moved before
        /// ``GridFitter/startReach`` or past the end go, and a segment left without beats with them.
        func aligned(_ segments: [FittedSegment]) -> [FittedSegment] {
            guard let blockLevels,
                let shift = TransientAlignment.shift(
                    beats: segments.flatMap(\.beats), blockLevels: blockLevels, blockDuration: blockDuration)
            else { return GridFitter.startingAtZero(segments) }
            return GridFitter.startingAtZero(
                segments.compactMap { segment in
                    let moved = segment.beats.map { $0 + shift }.filter {
                        $0 >= -GridFitter.startReach && $0 < duration
                    }
                    guard let first = moved.first else { return nil }
                    return FittedSegment(bpm: segment.bpm, firstBeat: first, beats: moved)
                })
        }
    }
}
