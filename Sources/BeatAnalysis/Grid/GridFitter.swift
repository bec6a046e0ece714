// SPDX-License-Identifier: GPL-3.0-or-later

import BeatMapKit
import Foundation

/// Makes the beats of a map from an onset envelope: the simplest model the music supports.
///
/// 1. The song's tempo and metric level from the envelope's autocorrelation over the whole music
///    (``fitSegment(novelty:matcher:span:)``).
/// 2. The beats tracked through the whole song by ``BeatTracker`` (Viterbi over tempo and phase, tempi
///    within 30 % of that tempo, a strong preference for staying), the metric level then checked along
///    the tracked beats (``levelChange(_:novelty:lowBand:)``) and tracked anew when it moves.
/// 3. The model: one grid where one explains the beats; tempo segments only where each extra piece
///    explains many more beats; the tracked beats themselves (`follow`) where no grid does
///    (``GridModelSelector``). Where the tempo moves, the level is read again in beat time
///    (``beatTimeLevel(_:envelope:lowLevels:heardPeriod:)``); each piece of a grid with tempo
///    changes gets the octave its own beats ask for (``levelPerPiece(_:novelty:matcher:lowBand:)``);
///    in followed beats, sections taken at another pulse get the beats of a tracker held at the
///    song's (``repairingLevelSections(_:novelty:peaks:span:)``), and the beats lose no half beat
///    to a detour (``repairingSlips(_:lowBand:)``) and are put on the kick, and sections that sound
///    like the song's off-beats move onto its beat (``onTheSongsBeat(tracked:bands:lowBand:)``);
///    the model is then chosen again on the repaired beats, which one grid may now explain.
/// 4. Each grid refined by least squares against the onsets (BPM to ≤ 0.01, phase to ≤ 1 ms on clicks)
///    and laid over the music (``layOut(_:novelty:span:sounding:duration:drums:)``).
/// 5. The beats put on the start of their transients (``TransientAlignment``), then moved onto the
///    drums where a learned kick and snare detector finds them clearly between the beats
///    (``DrumDetector/betterShift(of:frames:frameDuration:)``) or the beats on a pickup a sixteenth
///    before them (``DrumDetector/pickupShift(of:frames:frameDuration:distance:)``), and aligned again.
///    Followed beats through a passage without drums move onto the drums' beat where they lie half a
///    beat off it (``drumlessPassagesOnTheDrums(_:drums:)``), and take the count of beats the
///    passage's chord changes give where the tracker's differs
///    (``drumlessPassagesCountedByHarmony(_:drums:chroma:hopDuration:)``).
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
    /// as ``AudioAnalysis/lowLevels``) tells the kick drum's place, for the metric level and the phase;
    /// `blockLevels` (mean squares per block of `blockDuration` seconds, as ``AudioAnalysis/blockLevels``)
    /// put the beats on the start of their transients; `bandLevels` (as ``AudioAnalysis/bandLevels``)
    /// tell what the song's beat sounds like, so a followed section that sounds like its off-beats
    /// moves onto it; `drums` (as ``AudioAnalysis/drums``) tell where the kick and the snare are, so
    /// beats the drums sit clearly between move onto them; `chroma` (as ``AudioAnalysis/chroma``) counts
    /// the beats of a passage without drums by its chord changes.
    public func fit(
        _ envelope: OnsetEnvelope, duration: Double, trackerBeats: [Double]? = nil, levels: [Float]? = nil,
        lowLevels: [Float]? = nil, blockLevels: CompactFloats? = nil, blockDuration: Double = 0,
        bandLevels: [UInt8]? = nil,
        drums: DrumFrames? = nil, chroma: CompactFloats? = nil
    ) throws(GridFitError)
        -> GridFit
    {
        try fit(
            envelope, duration: duration, trackerBeats: trackerBeats, levels: levels, lowLevels: lowLevels,
            blockLevels: blockLevels, blockDuration: blockDuration, bandLevels: bandLevels,
            sharedDrums: drums.map(SharedDrumFrames.init), chroma: chroma)
    }

    /// ``fit(_:duration:trackerBeats:levels:lowLevels:blockLevels:blockDuration:bandLevels:drums:)`` with
    /// the drum detector's frames in a box the caller keeps, so that what the drum check computes is
    /// there for the analyzer's own audio check (``AnalysisDrumEvidence``) too.
    func fit(
        _ envelope: OnsetEnvelope, duration: Double, trackerBeats: [Double]?, levels: [Float]?,
        lowLevels: [Float]?, blockLevels: CompactFloats?, blockDuration: Double, bandLevels: [UInt8]?,
        sharedDrums: SharedDrumFrames?, chroma: CompactFloats?
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
        // A steady tone's onset novelty is the ripple of its analysis frames, which can repeat exactly
        // and stand out as a beat would; it is told by how little it changes for its loudness. A tempo
        // the user gives is mapped all the same.
        // How much the audio changes for its loudness: its mean onset novelty per unit of RMS level.
        let change = levels.flatMap { Self.loudness($0, hopDuration: envelope.hopDuration, over: span) }
            .flatMap { $0 > 0 ? novelty.mean(in: span) / $0 : nil }
        var steadySound: Double?
        if options.forcedBPM == nil, let change {
            if change < Self.steadyTone { throw .steadyTone(change: change) }
            // Between a tone and music (a drone, a held chord): mapped if its beats stand out, with a
            // warning.
            if change < Self.steadySound { steadySound = change }
        }

        // The song's tempo and metric level over the whole span, then the beats tracked through it and
        // the simplest model of them (steps 3 to 6 of docs/analyze.md).
        let lowBand = lowLevels.flatMap { LowBand.novelty(levels: $0, like: envelope) }
        guard let global = fitSegment(novelty: novelty, matcher: matcher, span: span, lowBand: lowBand) else {
            throw .noPeriodicity
        }
        // A recording that ends in its own noise sounds only until the music stops; a first note that
        // fades or swells in sounds from where its rise begins, at most two of the song's beats before
        // it reaches the sounding level.
        let sounding = levels.flatMap {
            soundingSpan(
                $0, hopDuration: envelope.hopDuration, readingNoise: true,
                risingWithin: Self.riseReach * global.grid.period)
        }
        let context = TrackingContext(
            novelty: novelty, peaks: peaks, matcher: matcher, span: span, lowBand: lowBand,
            setAside: global.setAside, change: change)
        let choice = try chosenModel(
            from: global.grid, score: global.score, context, envelope: envelope, lowLevels: lowLevels,
            bandLevels: bandLevels, drums: sharedDrums)

        // The model laid over the music (step 7), the beats put on their transients and, where the
        // drums sit clearly between them, moved onto the drums (step 8).
        let hop = envelope.hopDuration
        let globalFit = (global.grid, global.score, global.alternatives)
        var laid = Self.withDrums(sharedDrums, hop: hop) {
            laidOut(choice, global: globalFit, context, sounding: sounding, duration: duration, drums: $0)
        }
        let placement = TransientPlacement(blockLevels: blockLevels, blockDuration: blockDuration, duration: duration)
        laid.segments = placement.aligned(laid.segments)
        if let sharedDrums {
            laid.segments = sharedDrums.reading { frames in
                drumChecked(
                    laid.segments, choice, frames: &frames, hopDuration: envelope.hopDuration, span: span,
                    sounding: sounding, duration: duration, placement: placement)
            }
            // Followed beats through a drumless passage half a beat off the drums around it move onto
            // the drums' beat (step 8).
            if case .follow = choice.model {
                let beats = laid.segments.flatMap(\.beats)
                if let moved = Self.withDrums(
                    sharedDrums, hop: hop, { Self.drumlessPassagesOnTheDrums(beats, drums: $0) })
                {
                    laid.segments = placement.aligned(followed(moved, duration: duration))
                }
                // And a passage whose chord changes clearly count another number of beats than the
                // tracker's gets that many, spread between the drums on either side (session 93).
                if let chroma {
                    let read = laid.segments.flatMap(\.beats)
                    if let counted = Self.withDrums(
                        sharedDrums, hop: hop,
                        {
                            Self.drumlessPassagesCountedByHarmony(
                                read, drums: $0, chroma: chroma, hopDuration: hop)
                        })
                    {
                        laid.segments = placement.aligned(followed(counted, duration: duration))
                    }
                }
            }
            // One grid whose snare falls on one beat in four, or on every point between its beats, at
            // the level the tempo prior prefers (step 8). The map's score is the new level's; the
            // level it was read at is its one alternative.
            if case .grid(let pieces) = choice.model, pieces.count <= 1,
                let switched = sharedDrums.reading({
                    snareLevel(laid.segments, frames: &$0, frameDuration: envelope.hopDuration)
                })
            {
                let old = MetricAlternative(
                    ratio: switched.level.inverse, bpm: laid.segments.first?.bpm ?? 0, score: laid.score)
                if let new = laid.alternatives.first(where: { $0.ratio == switched.level }) { laid.score = new.score }
                laid.alternatives = [old]
                laid.segments = [switched.segment]
            }
            // Tempo segments too, each piece of music as one (a step within the tracker's reach is the
            // same song at its same level; a medley's next song is its own).
            if case .grid(let pieces) = choice.model, pieces.count > 1,
                let switched = sharedDrums.reading({
                    snareLevel(ofSegments: laid.segments, frames: &$0, frameDuration: envelope.hopDuration)
                })
            {
                if let level = switched.level, let bpm = laid.segments.first?.bpm {
                    laid.alternatives = [MetricAlternative(ratio: level.inverse, bpm: bpm, score: laid.score)]
                }
                laid.segments = switched.segments
            }
            // A ramp's beats likewise: one tempo curve is one piece of music. Followed beats too
            // (session 66), where the tempo prior decides alike along them.
            if choice.model.followsBeatByBeat {
                let beats = laid.segments.flatMap(\.beats)
                if let switched = sharedDrums.reading({
                    snareLevel(
                        pieceBeats: beats, frames: &$0, frameDuration: envelope.hopDuration,
                        holdingAlong: !choice.model.isRamp)
                }) {
                    // A level switched: the beats' median interval is positive.
                    let bpm = 60 / BeatSequence(beats: beats).medianInterval
                    laid.alternatives = [MetricAlternative(ratio: switched.level.inverse, bpm: bpm, score: laid.score)]
                    laid.segments = followed(switched.beats, duration: duration)
                }
            }
        }
        if case .grid(let pieces) = choice.model, pieces.count > 1 {
            // A tempo change within the tracker's reach keeps the beat: a segment the tracker took up
            // a fraction of a beat away from its neighbour (a bossa's quarter beat, which the drum
            // check does not try) continues it, unless its onsets clearly say otherwise.
            let continued = continuingTheBeat(laid.segments, novelty: novelty, duration: duration)
            if continued.moved { laid.segments = placement.aligned(continued.segments) }
            laid.segments = Self.holesAtChangesFilled(Self.sharedBeatsStartingSegments(laid.segments))
            // A short end segment where no drums play is no tempo change: once the fit has decided, the
            // drummed grid beside it carries on over it.
            // Only where the drum detector runs, as before.
            if sharedDrums != nil,
                let kept = Self.withDrums(
                    sharedDrums, hop: hop,
                    { drums in
                        Self.withoutDrumlessEnds(
                            laid.segments, span: span, sounding: sounding, duration: duration, drums: drums)
                    })
            {
                laid.segments = kept
            }
        }
        let beats = laid.segments.flatMap(\.beats)
        let confidence = matchedFraction(beats, matcher: matcher, tolerance: 0.05)
        return GridFit(
            segments: laid.segments, beats: beats, method: method(of: choice.model, segments: laid.segments),
            confidence: confidence, score: laid.score, alternatives: laid.alternatives, span: span,
            weakBeat: choice.weakBeat, steadySound: steadySound, sounding: sounding)
    }

    /// How many of the song's beats before the first hop within 30 dB of the loud level the sound's
    /// rise may start (``soundingSpan(_:hopDuration:readingNoise:risingWithin:)``): 2. A whole song
    /// faded in over seconds would otherwise get beats where nothing is heard yet; two beats cover a
    /// pad's or a string section's swell.
    static let riseReach = 2.0

    // MARK: Tracking

    /// How far the tracker's tempi may stray from the song's, as a factor either way: 1.3. Within it
    /// the metric level stays the song's (the nearest other levels, ×4⁄3 and ×3⁄2, lie outside); the
    /// ramps carried beyond the tracked beats keep to it too (``TempoRamp/staysInTrackerRange``).
    static let trackerRange = 1.3

    /// Beats tracked through the whole song at tempi within ``trackerRange`` of `period` (so the metric
    /// level stays the song's; `range` gives another factor), in seconds. Inside `regions` the range
    /// is centred on the region's own tempo instead (``allowedIntervals(at:period:range:regions:)``).
    func trackBeats(
        novelty: Novelty, peaks: [OnsetPeak], period: Double, span: ClosedRange<Double>, range: Double = trackerRange,
        regions: [TempoRegion] = []
    ) -> [Double] {
        let envelope = novelty.envelope
        // The activation: novelty over the strong onsets' level, clipped to 0…1.
        let inSpan = peaks.lazy.filter { span.contains($0.time) }.map(\.strength)
        guard let scale = RankSelection.value(atFraction: 0.9, of: inSpan), scale > 0 else { return [] }
        let values = envelope.values
        let level = Float(scale)
        // Long tracks are tracked in chunks of about four minutes with 30 s of context on either side,
        // so the tracker's memory stays bounded (one byte per tempo and frame of a chunk); each chunk
        // keeps the beats of its own four minutes. The activation is made chunk by chunk too: a whole
        // song's at once was 1.2 MB more at the analysis's peak on an hour of audio.
        let hop = envelope.hopDuration
        let chunk = Int((240 / hop).rounded())
        let context = Int((30 / hop).rounded())
        var beats: [Double] = []
        var start = 0
        repeat {
            let lower = max(0, start - context)
            let upper = values.count - start <= chunk + context ? values.count : start + chunk + context
            let keepUpper = upper == values.count ? Double.infinity : Double(start + chunk)
            let startTime = envelope.startTime
            let allowed: ((Int) -> ClosedRange<Double>)? =
                regions.isEmpty
                ? nil
                : { frame in
                    let time = startTime + Double(lower + frame) * hop
                    return Self.allowedIntervals(at: time, period: period, range: range, regions: regions)
                }
            let shortest = regions.reduce(period / range) { min($0, $1.period / range) }
            let longest = regions.reduce(period * range) { max($0, $1.period * range) }
            let frames = BeatTracker().track(
                activation: values[lower..<upper].map { min(1, $0 / level) }, frameDuration: hop,
                shortest: shortest,
                longest: longest, preferred: period, allowed: allowed)
            for frame in frames {
                let position = Double(lower) + frame
                guard position >= Double(start) || start == 0, position < keepUpper else { continue }
                let time = envelope.startTime + position * hop
                if let last = beats.last, time - last < 0.5 * period { continue }
                beats.append(time)
            }
            start = upper == values.count ? upper : start + chunk
        } while start < values.count
        return beats.filter { $0 >= span.lowerBound - 0.5 * period && $0 <= span.upperBound + 0.5 * period }
    }

    /// The grid of a run of observations, refined against the onsets over the time they cover, and how
    /// many tracked beats there it explains: lies within 15 ms of (about where two sounds meant together
    /// start to be heard apart). Distances are taken to the nearest grid point, so a beat the tracker
    /// slipped costs one beat, not the rest of the song; a tempo that drifts away from the grid costs
    /// every beat it drifts over. Of the clearest stretch's phase and the one half a beat from it, the
    /// grid takes the one that explains more tracked beats.
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
        func fitted(_ seed: Grid) -> (grid: Grid, explained: Int) {
            grownGrid(seed, from: window, over: span, tracked: tracked, matcher: matcher)
        }
        // The grid is a fit through the tracker's beats, so its phase is the one most of them share:
        // the clearest stretch may be one the tracker followed on the off-beats (a bossa's), so the
        // phase half a beat from its own is grown too, and the grid through more tracked beats kept.
        var best = fitted(Grid(anchor: anchor, period: period))
        let other = fitted(Grid(anchor: anchor + period / 2, period: period))
        if other.explained > best.explained { best = other }
        return (GridPiece(span: span, grid: best.grid), best.explained)
    }

    /// `piece`'s grid grown from its own span over the span of all `observations` (as
    /// ``piece(_:line:observations:tracked:matcher:novelty:)`` grows a grid from its clearest
    /// window), with the number of tracked beats it explains; `nil` when the observations span
    /// nothing beyond the piece.
    func grown(
        _ piece: GridPiece, over observations: [BeatObservation], tracked: [Double], matcher: PeakMatcher
    ) -> (piece: GridPiece, explained: Int)? {
        guard let first = observations.first, let last = observations.last else { return nil }
        let lower = first.time - 0.5 * piece.grid.period
        let upper = last.time + 0.5 * piece.grid.period
        guard upper > lower, lower < piece.span.lowerBound || upper > piece.span.upperBound else { return nil }
        let span = lower...upper
        let grown = grownGrid(piece.grid, from: piece.span, over: span, tracked: tracked, matcher: matcher)
        return (GridPiece(span: span, grid: grown.grid), grown.explained)
    }

    /// `seed` grown from `window` over `span` and refined there by least squares against the onsets,
    /// with the number of `tracked` beats in `span` it explains.
    func grownGrid(
        _ seed: Grid, from window: ClosedRange<Double>, over span: ClosedRange<Double>, tracked: [Double],
        matcher: PeakMatcher
    ) -> (grid: Grid, explained: Int) {
        let grid = refine(
            grow(seed, from: window, over: span, matcher: matcher, fixedPeriod: false), over: span, matcher: matcher,
            fixedPeriod: false)
        return (grid, Self.explained(tracked, by: grid, in: span))
    }

    /// How many of `tracked` in `span` `grid` explains: each lies within
    /// ``GridModelSelector/explainTolerance`` of a point of the grid, and the tracked beat before it or
    /// the one after it lies as near the point next to that one, so that its interval is the grid's
    /// too. Beats of another tempo meet a grid's points now and then (every fourth beat of a stretch at
    /// 120 BPM is every third point of a 90 BPM grid); one at a time, they are chance, not the grid.
    /// Counted, they made one grid explain 56 of the 79 beats tracked through a song that steps from
    /// 90 to 120 BPM (71 %, over the two thirds below which beats are followed), where it explains
    /// the 49 of the song's first tempo.
    static func explained(_ tracked: [Double], by grid: Grid, in span: ClosedRange<Double>) -> Int {
        // The grid point tracked beat `index` lies on, if it lies on one.
        func point(_ index: Int) -> Int? {
            guard tracked.indices.contains(index), grid.explains(tracked[index]) else { return nil }
            return grid.nearestIndex(to: tracked[index])
        }
        var count = 0
        for index in tracked.indices where span.contains(tracked[index]) {
            guard let own = point(index) else { continue }
            if point(index - 1) == own - 1 || point(index + 1) == own + 1 { count += 1 }
        }
        return count
    }

    /// How many beats either side of a beat place it in ``trackedScore(_:novelty:span:)``: four.
    static let salienceRadius = 4

    /// The fewest beats either side that place a beat in ``trackedScore(_:novelty:span:)`` when the
    /// audio holds too few beats for ``salienceRadius``: two, a line through four beats (a short jingle
    /// of five to eight beats is scored so instead of not at all).
    static let shortestSalienceRadius = 2

    /// The fewest tracked beats ``trackedScore(_:novelty:span:)`` scores at all: one beat and
    /// ``shortestSalienceRadius`` either side of it (five). Fewer, and the audio is too short to tell.
    static let fewestScoredBeats = 2 * shortestSalienceRadius + 1

    /// The RMS level of `levels` (mean squares per hop of `hopDuration` seconds, hop `i` from
    /// `i × hopDuration`) over `span`; `nil` when no hop lies in it.
    static func loudness(_ levels: [Float], hopDuration: Double, over span: ClosedRange<Double>) -> Double? {
        guard hopDuration > 0 else { return nil }
        let first = max(0, Int((span.lowerBound / hopDuration).rounded(.down)))
        let last = min(levels.count, Int((span.upperBound / hopDuration).rounded(.up)))
        guard last > first else { return nil }
        var sum = 0.0
        for index in first..<last { sum += Double(levels[index]) }
        return (sum / Double(last - first)).squareRoot()
    }

    /// How much audio must change for its loudness to hold onsets at all: its mean onset novelty over the
    /// span per unit of its RMS level, 1. A sine gives 0.04 to 0.34 (440 Hz at −63 to −10 dBFS, 1 kHz at
    /// −6 dBFS; the onset novelty is compressed, so a louder sound gives less); the corpus's drone 2.2,
    /// and every music file of the train sets 11.9 and up (241 files). Below it the audio is a steady
    /// sound with no beat.
    static let steadyTone = 1.0

    /// The least ``trackedScore(_:novelty:span:)`` of music.
    static let minimumSalience = 3.5

    /// How clearly the tracked beats stand out: the mean novelty at each beat as its neighbours place
    /// it — a straight line through the four beats before and the four after, the beat itself left out
    /// — over the mean novelty of the music. Left out, a beat cannot chase a peak of its own, so noise,
    /// where the tracker finds a "beat" in random onsets, scores about 1, while music whose tempo
    /// drifts still scores high (unlike a single grid's score, which drift pulls down).
    func trackedScore(_ beats: [Double], novelty: Novelty, span: ClosedRange<Double>) -> Double {
        let base = novelty.mean(in: span)
        let radius = min(Self.salienceRadius, (beats.count - 1) / 2)
        guard radius >= Self.shortestSalienceRadius, base > 0 else { return 0 }
        var sum = 0.0
        var count = 0
        for index in radius..<(beats.count - radius) {
            var sx = 0.0
            var sy = 0.0
            var sxx = 0.0
            var sxy = 0.0
            var n = 0.0
            for offset in -radius...radius where offset != 0 {
                let x = Double(offset)
                let y = beats[index + offset]
                sx += x
                sy += y
                sxx += x * x
                sxy += x * y
                n += 1
            }
            let slope = (n * sxy - sx * sy) / (n * sxx - sx * sx)
            let intercept = (sy - slope * sx) / n
            sum += novelty.value(at: intercept)
            count += 1
        }
        return sum / Double(count) / base
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
    func followed(_ tracked: [Double], duration: Double) -> [FittedSegment] {
        // A beat a hair before 0 s is kept for ``startingAtZero(_:)`` to settle.
        perBeatSegments(spaced(tracked, duration: duration, earliest: -Self.startReach))
    }

    /// `beats` inside the audio (from `earliest` seconds on), in time order and at most 400 BPM apart
    /// (a beat closer than 0.15 s to the one kept before it is dropped).
    func spaced(_ beats: [Double], duration: Double, earliest: Double = 0) -> [Double] {
        var result: [Double] = []
        for beat in beats where beat >= earliest && beat < duration {
            if let last = result.last, beat - last < 0.15 { continue }
            result.append(beat)
        }
        return result
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
        for level in MetricLevel.allCases {
            let candidate = novelty.levelGrid(grid, tempoFactor: level.factor, in: span)
            alternatives.append(
                MetricAlternative(ratio: level, bpm: 60 / candidate.grid.period, score: candidate.score / base))
        }
        alternatives.sort { $0.score > $1.score }
        return (chosenScore, alternatives)
    }
}
