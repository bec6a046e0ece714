// SPDX-License-Identifier: GPL-3.0-or-later

import Foundation

/// Tracked beats as a function of a fractional beat number: beat `k + f` lies the fraction `f` of the
/// way from beat `k` to beat `k + 1` (extrapolated by the nearest interval beyond the ends). It lets the
/// metrical levels above and below the tracked one be read off a song whose tempo changes or drifts,
/// where no single grid would fit.
struct BeatSequence: Sendable {
    /// The tracked beats in seconds, increasing.
    let beats: [Double]

    /// The time of fractional beat number `u`.
    func time(at u: Double) -> Double {
        let count = beats.count
        guard count >= 2 else { return beats.first ?? 0 }
        let index = min(count - 2, max(0, Int(u.rounded(.down))))
        let fraction = u - Double(index)
        return beats[index] + fraction * (beats[index + 1] - beats[index])
    }

    /// The beats of `grid` within `span`.
    init(_ grid: GridFitter.Grid, in span: ClosedRange<Double>) {
        let first = grid.firstIndex(atOrAfter: span.lowerBound)
        let last = grid.lastIndex(atOrBefore: span.upperBound)
        beats = last >= first ? (first...last).map { grid.time($0) } : []
    }

    /// The tracked beats `beats`.
    init(beats: [Double]) {
        self.beats = beats
    }

    /// The median interval between beats, in seconds.
    var medianInterval: Double {
        guard beats.count >= 2 else { return 0 }
        var intervals = zip(beats.dropFirst(), beats).map { $0 - $1 }
        intervals.sort()
        return intervals[intervals.count / 2]
    }
}

extension Novelty {
    /// The mean, over beat numbers `offset`, `offset + step`, …, of the strongest value within a hop of
    /// each point (for a curve as coarse as the low band's energy, whose rise may fall a hop either way).
    func meanStrongest(of sequence: BeatSequence, step: Double, offset: Double) -> Double {
        average(along: sequence, step: step, offset: offset) { strongest(near: $0) }
    }

    /// The strongest value within a hop of `t`.
    func strongest(near t: Double) -> Double {
        max(value(at: t - hop), value(at: t), value(at: t + hop))
    }

    /// The mean value at beat numbers `offset`, `offset + step`, `offset + 2·step`, … of `sequence`.
    func mean(of sequence: BeatSequence, step: Double, offset: Double) -> Double {
        average(along: sequence, step: step, offset: offset) { value(at: $0) }
    }

    /// The mean of `sample` at the times of beat numbers `offset`, `offset + step`, … of `sequence`.
    private func average(
        along sequence: BeatSequence, step: Double, offset: Double, _ sample: (Double) -> Double
    ) -> Double {
        let end = Double(sequence.beats.count - 1)
        var u = offset
        var sum = 0.0
        var count = 0
        while u <= end + 1e-9 {
            sum += sample(sequence.time(at: u))
            count += 1
            u += step
        }
        return count > 0 ? sum / Double(count) : 0
    }
}

extension GridFitter {
    /// The low band's weaker parity over its stronger one below which the beats alternate kick and
    /// snare (a back-beat): half, a kick on every other beat with little low energy on the rest.
    static let backBeatParity = 0.5

    /// The weaker over the stronger of `curve`'s means at the points `step` beats apart and at those
    /// halfway between them (1 when alike, near 0 when one set is empty), or `nil` when both are empty.
    func parityRatio(_ curve: Novelty, _ sequence: BeatSequence, step: Double) -> Double? {
        let on = curve.meanStrongest(of: sequence, step: step, offset: 0)
        let off = curve.meanStrongest(of: sequence, step: step, offset: step / 2)
        let strong = max(on, off)
        return strong > 0 ? min(on, off) / strong : nil
    }

    /// Whether `curve` alternates between the points `step` beats apart and those halfway between them:
    /// the weaker set under ``backBeatParity`` of the stronger.
    func alternates(_ curve: Novelty, _ sequence: BeatSequence, step: Double) -> Bool {
        parityRatio(curve, sequence, step: step).map { $0 < Self.backBeatParity } ?? false
    }

    /// The tempo listeners prefer, in BPM: 120, about two beats a second (Moelants's and van Noorden's
    /// studies of preferred tempo; the centre of the tempo prior in Ellis's dynamic-programming tracker
    /// and of librosa's `start_bpm`). Where it lies outside the tempo limits, their geometric mean.
    /// It decides the octave of the tempo estimate only where the metrical hierarchy does not
    /// (``fitSegment(novelty:matcher:span:lowBand:)``).
    var preferredTempo: Double {
        let limits = options.minimumBPM...options.maximumBPM
        return limits.contains(Self.preferredBPM) ? Self.preferredBPM : limitsCentre
    }

    /// The tempo limits' geometric mean, in BPM (109.5 for 60–200): the centre of the tempo estimate's
    /// own prior (``Novelty/period(in:minimumBPM:maximumBPM:preferredBPM:)``).
    var limitsCentre: Double { (options.minimumBPM * options.maximumBPM).squareRoot() }

    /// 120 BPM: see ``preferredTempo``.
    static let preferredBPM = 120.0

    /// The tempi (BPM) a metric level may be chosen at: the tempo limits, with 3 % slack so that a song
    /// right at a limit is not pushed off it by a hair of tempo estimate.
    var levelTempoLimits: ClosedRange<Double> { (options.minimumBPM * 0.97)...(options.maximumBPM * 1.03) }

    /// The low band's weaker parity over its stronger one at or above which the kick falls alike on
    /// every beat (four on the floor, or a bass note on every beat).
    static let steadyParity = 0.8

    /// Whether `curve` is alike at the points `step` beats apart and those halfway between them: the
    /// weaker set at or above ``steadyParity`` of the stronger.
    func steady(_ curve: Novelty, _ sequence: BeatSequence, step: Double) -> Bool {
        parityRatio(curve, sequence, step: step).map { $0 >= Self.steadyParity } ?? false
    }

    /// How far the points of one class by number modulo 3 must stand out from the other two's mean for
    /// ``thirdStandsOut(_:_:)`` (1.15, the margin by which the ⅔ level's points had to outscore the beats
    /// while a rule chose that level, until session 41).
    static let thirdsMargin = 1.15

    /// Whether one third of the points of `sequence` — those whose number modulo 3 is the same — stands
    /// out from the other two thirds by ``thirdsMargin``. Read along the points of the 3⁄2 level, it
    /// tells a swung beat (the beat, the swung eighth and the triplet in turn: one class weak) from
    /// beats found at ⅔ of the music's tempo, whose 3⁄2 points are all the music's beats, alike. It
    /// compares points with points of the same kind, not one sound with another.
    func thirdStandsOut(_ novelty: Novelty, _ sequence: BeatSequence) -> Bool {
        let classes = (0..<3).map { novelty.mean(of: sequence, step: 3, offset: Double($0)) }
        guard let strongest = classes.max() else { return false }
        let others = (classes.reduce(0, +) - strongest) / 2
        return strongest > Self.thirdsMargin * others
    }

    /// Whether the tracked beats sit half a beat out: the kick drum (the low band) falls clearly (1.5×)
    /// more between the beats than on them, and the broadband onsets there are at least as strong.
    func isOffBeat(_ sequence: BeatSequence, novelty: Novelty, lowBand: Novelty?) -> Bool {
        guard let lowBand, sequence.beats.count >= 16 else { return false }
        let lowOn = lowBand.meanStrongest(of: sequence, step: 1, offset: 0)
        let lowBetween = lowBand.meanStrongest(of: sequence, step: 1, offset: 0.5)
        let on = novelty.mean(of: sequence, step: 1, offset: 0)
        let between = novelty.mean(of: sequence, step: 1, offset: 0.5)
        return lowBetween > 1.5 * lowOn && between >= on
    }
}

extension GridFitter {
    /// Whether the kick drum (the low band) marks the points halfway between the beats of `sequence`
    /// rather than the beats: it alternates between the two sets as a back-beat alternates between the
    /// beats' parities (the weaker under ``backBeatParity`` of the stronger), and the stronger set is the
    /// midpoints. In the music a game maps, the kick falls on the beat; a hi-hat, a bass or a synth
    /// pumping on the off-beats can outweigh it in the broadband onsets, so this reads the low band
    /// alone, over a whole grid piece.
    func kickMarksMidpoints(_ sequence: BeatSequence, lowBand: Novelty?) -> Bool {
        guard let lowBand, sequence.beats.count >= 16 else { return false }
        let on = lowBand.meanStrongest(of: sequence, step: 1, offset: 0)
        let between = lowBand.meanStrongest(of: sequence, step: 1, offset: 0.5)
        return between > 0 && on < Self.backBeatParity * between
    }

    /// `model` with each grid piece whose midpoints carry the kick (``kickMarksMidpoints(_:lowBand:)``)
    /// moved by half a beat and refined there. A model without pieces stands for `global` refined over
    /// `span`; it comes back as that one piece, so the grid is refined once. A ramp whose midpoints
    /// carry the kick moves by half a beat too.
    func onTheKick(
        _ model: GridModel, global: Grid, span: ClosedRange<Double>, matcher: PeakMatcher, lowBand: Novelty?
    ) -> GridModel {
        if lowBand != nil, case .ramp(let ramp) = model {
            let sequence = BeatSequence(beats: ramp.indices.map { ramp.time($0) })
            return kickMarksMidpoints(sequence, lowBand: lowBand) ? .ramp(ramp.halfBeatLater) : model
        }
        guard lowBand != nil, case .grid(let pieces) = model else { return model }
        let original =
            pieces.isEmpty
            ? [GridPiece(span: span, grid: refine(global, over: span, matcher: matcher, fixedPeriod: false))] : pieces
        return .grid(
            original.map { piece in
                guard kickMarksMidpoints(BeatSequence(piece.grid, in: piece.span), lowBand: lowBand) else {
                    return piece
                }
                let half = Grid(anchor: piece.grid.anchor + piece.grid.period / 2, period: piece.grid.period)
                return GridPiece(
                    span: piece.span, grid: refine(half, over: piece.span, matcher: matcher, fixedPeriod: true))
            })
    }
}

extension GridFitter {
    /// How many tracked beats either side of a beat ``onTheKick(tracked:lowBand:)`` reads: four bars
    /// of 4/4 in all, enough for the kick's pattern to show, short enough for a tracker that changed
    /// phase for a section.
    static let kickWindowRadius = 8

    /// The fraction of the median interval under which two followed beats are one beat claimed
    /// twice: the tracker's tempi stay within ``trackerRange`` (1.3) of the song's
    /// (``trackBeats(novelty:peaks:period:span:range:)``), so no interval it follows is shorter than
    /// 1⁄1.3 ≈ 0.77 of it.
    static let seamFraction = 0.75

    /// `tracked` with the beats whose neighbourhood (``kickWindowRadius`` beats either side) has the
    /// kick on its midpoints (``kickMarksMidpoints(_:lowBand:)``) moved to the midpoint after them: a
    /// tracker that slipped onto the off-beats for a section is put back on the kick there. A section
    /// moves only where the tracker slipped at each of its edges inside the song: within
    /// ``kickWindowRadius`` beats of the edge, an interval lies more than ``slipDeviation`` from the
    /// tempo around it (the median of ``slipContextBeats`` intervals either side). A section stays
    /// where the learned drums (`drums`, the detector's kick plus snare at a time) lean
    /// against the move over its beats and towards their own beats over every beat that does not move
    /// (``drumsKeep(_:in:drums:)``): the low band that marked it is then a bass line, and keeping it
    /// leaves the map on one phase. Where the move
    /// leaves a gap of over one and a half beats, the missing beat is put back midway; where it
    /// leaves two beats closer than ``seamFraction`` of one, the kick keeps the one it marks.
    func onTheKick(
        tracked: [Double], lowBand: Novelty?, drums: (Double) -> Float? = { _ in nil }
    ) -> [Double] {
        let count = tracked.count
        guard let lowBand, count >= 2 * Self.kickWindowRadius + 1 else { return tracked }
        var marked = (0..<count).map { index in
            let lower = max(0, min(index - Self.kickWindowRadius, count - 2 * Self.kickWindowRadius - 1))
            let window = BeatSequence(beats: Array(tracked[lower...(lower + 2 * Self.kickWindowRadius)]))
            return kickMarksMidpoints(window, lowBand: lowBand)
        }
        guard marked.contains(true) else { return tracked }
        // A tracker that follows the beat cannot reach the off-beats without a slip: half a beat
        // gained or lost over a few intervals, some of them off the tempo around them. Where the
        // beats run on evenly across a section's edge, they kept their phase there, and a low band
        // that falls between them from there on is a bass line between the beats, not the kick.
        let offTempo = Self.offTempoIntervals(tracked)
        func slipsNear(_ beat: Int) -> Bool {
            let lower = max(0, beat - Self.kickWindowRadius)
            let upper = min(offTempo.count, beat + Self.kickWindowRadius)
            return (lower..<upper).contains { offTempo[$0] }
        }
        Self.unmarkRuns(&marked) { run in
            !((run.lowerBound == 0 || slipsNear(run.lowerBound))
                && (run.upperBound == count || slipsNear(run.upperBound)))
        }
        guard marked.contains(true) else { return tracked }
        // The drums keep a section only where they hold the beats that do not move on theirs too.
        let sequence = BeatSequence(beats: tracked)
        if Self.drumsKeep(marked.indices.filter { !marked[$0] }, in: sequence, drums: drums) {
            Self.unmarkRuns(&marked) { Self.drumsKeep(Array($0), in: sequence, drums: drums) }
            guard marked.contains(true) else { return tracked }
        }
        return movedHalfABeat(tracked, marked: marked, lowBand: lowBand)
    }

    /// `marked` with every run of marked beats (a maximal range of `true`) for which `unmark` holds
    /// set to `false`.
    static func unmarkRuns(_ marked: inout [Bool], where unmark: (Range<Int>) -> Bool) {
        var start = 0
        while start < marked.count {
            guard marked[start] else {
                start += 1
                continue
            }
            var end = start
            while end < marked.count, marked[end] { end += 1 }
            if unmark(start..<end) {
                for index in start..<end { marked[index] = false }
            }
            start = end
        }
    }

    /// `tracked` with each `marked` beat moved half a beat later (to the midpoint before the next
    /// beat), joined where moved and unmoved beats meet: of two beats closer than ``seamFraction`` of
    /// the median interval the one with the stronger low band is kept (the kick marks the beat), and a
    /// gap of over a beat and a half gets a beat in its middle.
    func movedHalfABeat(_ tracked: [Double], marked: [Bool], lowBand: Novelty) -> [Double] {
        let count = tracked.count
        let sequence = BeatSequence(beats: tracked)
        let result = (0..<count).map { marked[$0] ? sequence.time(at: Double($0) + 0.5) : tracked[$0] }
        let interval = sequence.medianInterval
        var filled: [Double] = []
        filled.reserveCapacity(result.count + 8)
        for beat in result {
            if let last = filled.last {
                // Closer than the tracker's tempi allow (``trackerRange``): two claims on one
                // beat where a moved section meets one that stayed. The kick keeps the one it marks.
                if beat - last < Self.seamFraction * interval {
                    if lowBand.strongest(near: beat) > lowBand.strongest(near: last) { filled[filled.count - 1] = beat }
                    continue
                }
                if beat - last > 1.5 * interval { filled.append((last + beat) / 2) }
            }
            filled.append(beat)
        }
        return filled
    }
}

/// A change of metric level: the factor by which the tempo is multiplied.
struct LevelChange: Sendable, Equatable {
    /// The tempo factor: 2, ½ or 3⁄2.
    var factor: Double
}

extension GridFitter {
    /// The metric level the tracked `beats` should move to, by the metrical hierarchy seen in the
    /// onsets, or `nil` to keep them. The same rules as ``chooseLevel(_:novelty:matcher:span:lowBand:)``, read
    /// along the tracked beats instead of a fixed grid so that they hold through tempo changes and drift:
    /// halve when every other beat is nearly empty, or when nothing lies between the beats and the
    /// parities differ; double when the parities are alike and the off-beats strong, or when the
    /// off-beats are nearly as strong as the beats; 3⁄2 when its points carry ¾ of the beats' strength
    /// and none of its thirds stands out (a swung beat's would). Never ⅔ (see
    /// ``chooseLevel(_:novelty:matcher:span:lowBand:)``). The tempo hint bounds them all.
    ///
    /// The low band (kick drum and bass, when known) vetoes doubling where it alternates between the
    /// beats' two parities: kick on one, snare on the other is the back-beat, the mark of the beat level
    /// itself in popular music, however busy the hi-hats between the beats. It vetoes halving where it
    /// falls alike on both parities: a kick on every beat (four on the floor) marks every beat, however
    /// loud the snare on every other one.
    func levelChange(_ sequence: BeatSequence, novelty: Novelty, lowBand: Novelty? = nil) -> LevelChange? {
        let interval = sequence.medianInterval
        guard interval > 0, sequence.beats.count >= 8 else { return nil }
        let bpm = 60 / interval
        let (lowest, highest) = (levelTempoLimits.lowerBound, levelTempoLimits.upperBound)
        let beats = novelty.mean(of: sequence, step: 1, offset: 0)
        guard beats > 0 else { return nil }
        let even = novelty.mean(of: sequence, step: 2, offset: 0)
        let odd = novelty.mean(of: sequence, step: 2, offset: 1)
        let strong = max(even, odd)
        let parity = strong > 0 ? min(even, odd) / strong : 0
        let offBeats = novelty.mean(of: sequence, step: 1, offset: 0.5) / beats
        let between =
            [0.25, 1.0 / 3.0, 0.5, 2.0 / 3.0, 0.75].map { novelty.mean(of: sequence, step: 1, offset: $0) }.max() ?? 0
        var double = (parity >= 0.95 && offBeats >= 0.4) || offBeats >= 0.75
        var halve = parity < 0.3 || (between / beats < 0.1 && parity < 0.7)
        if let lowBand {
            // The kick alternates at this level: it is the beat (or faster), never slower.
            if alternates(lowBand, sequence, step: 2) { double = false }
            // The kick falls alike on every beat: it is the beat (or slower), never faster.
            if steady(lowBand, sequence, step: 2) { halve = false }
        }
        if bpm > highest || (halve && bpm / 2 >= lowest) { return LevelChange(factor: 0.5) }
        if bpm < lowest || (double && bpm * 2 <= highest) { return LevelChange(factor: 2) }
        // The ternary level 3⁄2: points every ⅔ of a beat.
        let fastOffsets = (0..<4).map { Double($0) / 6 }
        let fastMeans = fastOffsets.map { novelty.mean(of: sequence, step: 2.0 / 3.0, offset: $0) }
        let fast = fastMeans.max() ?? 0
        if fast > 0.75 * beats, bpm * 1.5 <= highest {
            let offset = fastOffsets[fastMeans.firstIndex(of: fast) ?? 0]
            let count = Int((Double(sequence.beats.count - 1) - offset) * 1.5) + 1
            let candidate = BeatSequence(beats: (0..<count).map { sequence.time(at: offset + Double($0) * 2 / 3) })
            if !thirdStandsOut(novelty, candidate) { return LevelChange(factor: 1.5) }
        }
        return nil
    }
}
