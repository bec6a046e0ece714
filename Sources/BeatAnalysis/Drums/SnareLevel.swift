// SPDX-License-Identifier: GPL-3.0-or-later

import BeatMapKit
import Foundation

// The snare as evidence of the metric level: a back-beat (the snare on beats 2 and 4) marks the beat
// level itself; a snare on one beat in four is a back-beat at half the tempo or a half-time feel at
// this one, and a snare on every point between the beats a back-beat at twice the tempo or a snare on
// the "and" at this one; the tempo estimate's prior chooses (docs/analyze.md, step 8, "The snare on
// one beat in four"). Where the snare says nothing, a kick alone on one beat in eight (a one-drop's,
// a half-time feel's at half the tempo) is read alike (session 71).
extension DrumDetector {
    /// The learned detector's snare at each of `beats` (seconds, increasing) of the first
    /// ``DrumBands/span`` seconds, as ``snare(_:at:frameDuration:)`` reads it.
    static func snares(of beats: [Double], frames: inout DrumFrames, frameDuration: Double) -> [Float?] {
        guard frameDuration > 0, frames.count > 0 else { return [] }
        return beats.prefix { $0 < DrumBands.span }.map { snare(&frames, at: $0, frameDuration: frameDuration) }
    }

    /// The beat (0…3) of each four of `snares` on which the snare stands out alone: over the fours
    /// from that beat on, its snare less the strongest of the other three, by a paired t of at least
    /// ``minimumT`` (the drum check's margin) over at least ``BackBeat/minimumBars`` fours; the one of
    /// the largest t, or `nil` where none reaches it.
    static func oneInFour(_ snares: [Float?]) -> Int? {
        standingOutAlone(snares, every: 4)
    }

    /// The beat (0 up to `group` − 1) of each `group` of `values` whose value stands out alone: over
    /// the groups from that beat on whose values were all read (and, with `heard`, in which at least
    /// one value reaches it), its value less the strongest of the others, by a paired t of at least
    /// ``minimumT`` over at least ``BackBeat/minimumBars`` groups; the one of the largest t (the first
    /// of equals), or `nil` where none reaches it.
    static func standingOutAlone(_ values: [Float?], every group: Int, heardFrom heard: Float? = nil) -> Int? {
        guard group >= 2 else { return nil }
        var best: (t: Double, phase: Int)?
        for phase in 0..<group {
            let differences = stride(from: phase, to: values.count - (group - 1), by: group).compactMap {
                start -> Double? in
                let read = values[start..<(start + group)].compactMap { $0 }
                guard read.count == group, let first = read.first, let others = read.dropFirst().max() else {
                    return nil
                }
                if let heard, max(first, others) < heard { return nil }
                return Double(first - others)
            }
            guard differences.count >= BackBeat.minimumBars else { continue }
            let t = PairedT.of(differences)
            if best.map({ t > $0.t }) ?? true { best = (t, phase) }
        }
        guard let best, best.t >= minimumT else { return nil }
        return best.phase
    }

    /// The learned detector's kick at each of `beats` (seconds, increasing) of the first
    /// ``DrumBands/span`` seconds, the strongest within ``reach`` hops, as ``snares(of:frames:frameDuration:)``
    /// reads the snare.
    static func kicks(of beats: [Double], frames: inout DrumFrames, frameDuration: Double) -> [Float?] {
        guard frameDuration > 0, frames.count > 0 else { return [] }
        return beats.prefix { $0 < DrumBands.span }.map { kick(&frames, at: $0, frameDuration: frameDuration) }
    }

    /// The beat (0…7) of each eight of `kicks` on which the kick stands out alone: over the eights
    /// from that beat on whose beats were all read, its kick less the strongest of the other seven, by
    /// a paired t of at least ``minimumT`` (the drum check's margin) over at least
    /// ``BackBeat/minimumBars`` eights; the one of the largest t, or `nil` where none reaches it.
    ///
    /// A kick alone once in eight beats is a kick once in two bars of 4/4 at this level, which no
    /// common groove plays; at half the tempo it falls once a bar (a one-drop, a half-time feel), at a
    /// quarter twice. Where the snare gives a parity too, it is read as the snare is, and the tempo
    /// prior chooses; where the snare gives none, it halves the level whenever half lies within the
    /// limits (``GridFitter/halvedOnTheSnare(_:frames:frameDuration:)``, session 76).
    ///
    /// Only the eights in which a kick is heard (one of them at ``GridFitter/drumHeard`` or more) are
    /// read, as only those whose beats were all read are: a passage without the kick, a drumless
    /// intro or a break, says nothing of where the kick stands in the groove, and its eights would
    /// only dilute the groove's (session 76: two one-drop reggae songs at 68 and 73 BPM, t 3.0 and
    /// 4.3 over every eight, 6.6 over those with a kick).
    static func aloneInEight(_ kicks: [Float?]) -> Int? {
        standingOutAlone(kicks, every: 8, heardFrom: GridFitter.drumHeard)
    }

    /// `beats` (seconds, increasing) with the point halfway between each two added: the same beats
    /// read at twice their tempo.
    static func withMidpoints(_ beats: [Double]) -> [Double] {
        zip(beats, beats.dropFirst()).flatMap { [$0, ($0 + $1) / 2] } + beats.suffix(1)
    }

    /// Half a beat (0.5) where `beats` (seconds, increasing) sit between the kicks of a groove whose
    /// only marked beat is a kick alone once a bar: read at twice their tempo (the points halfway
    /// between them added), the snare gives no parity (``oneInFourOrFewer(_:)``) and the kick stands
    /// alone once in eight of those points (``aloneInEight(_:)``) on a point halfway between two of
    /// `beats`; `nil` otherwise.
    ///
    /// Why: it is the reading that halves a grid at twice a one-drop's tempo
    /// (``GridFitter/halvedOnTheSnare(_:frames:frameDuration:)``), which keeps the kick's beats; a
    /// grid found at the one-drop's own tempo is held to the same parity. Found on the skank's
    /// off-beat chops (a reggae guitar), it sits half a beat from the kick, and the drum check's
    /// paired t over every beat (``betterShift(of:frames:frameDuration:phaseUnchosen:)``) does not
    /// reach its margin with one drum hit a bar (docs/analyze-log.md, session 79).
    static func kickParityShift(of beats: [Double], frames: inout DrumFrames, frameDuration: Double) -> Double? {
        guard beats.count >= 8 else { return nil }
        let doubled = withMidpoints(beats)
        guard oneInFourOrFewer(snares(of: doubled, frames: &frames, frameDuration: frameDuration)) == nil,
            let kick = aloneInEight(kicks(of: doubled, frames: &frames, frameDuration: frameDuration)), kick % 2 == 1
        else { return nil }
        return 0.5
    }

    /// The parity (0 or 1) of `snares`' beats on which the snare falls on one beat in four or fewer:
    /// the parity of the beat ``oneInFour(_:)`` finds, or else the one
    /// ``everyOtherOfOneParity(_:)`` finds; `nil` where neither holds. This is what the analyzer
    /// halves a grid on (``GridFitter/halvedOnTheSnare(_:frames:frameDuration:)``) and what
    /// `audio-metric-level` asks before it names twice the tempo.
    static func oneInFourOrFewer(_ snares: [Float?]) -> Int? {
        if let phase = oneInFour(snares) { return phase % 2 }
        return everyOtherOfOneParity(snares)
    }

    /// The parity (0 or 1) of `snares`' beats on which the snare falls, and there on every other beat
    /// or fewer, wherever that puts it in a four and however that changes from section to section;
    /// `nil` where no parity shows both.
    ///
    /// A song at twice its tempo has its snare on the beats of one parity, the music's own beats, and
    /// on every other one of them (a back-beat) or every fourth (a half-time feel), and a song often
    /// changes between the two: a hip-hop song read at 194 BPM had its snare on the third of every four
    /// beats in one section and on the first of every eight in the next, so that no one beat of the
    /// four stood out over the song (``oneInFour(_:)``). Read here by two paired t statistics, each
    /// held to ``minimumT`` (the drum check's margin) over at least twice ``BackBeat/minimumBars``
    /// values:
    /// - the parity: the snare at each beat of the parity less the snare at the other beat of its
    ///   pair;
    /// - every other beat of it: along the parity's own beats, the squared difference from the next
    ///   one less the squared difference from the one four on. A snare on each of them (a back-beat at
    ///   the beats' own tempo) makes both differences small; one on every other or every fourth makes
    ///   the first large and leaves the second small; noise adds to both alike.
    static func everyOtherOfOneParity(_ snares: [Float?]) -> Int? {
        let fewest = 2 * BackBeat.minimumBars
        for parity in 0..<2 {
            let sides = stride(from: 0, to: snares.count - 1, by: 2).compactMap { index -> Double? in
                guard let own = snares[index + parity], let other = snares[index + 1 - parity] else { return nil }
                return Double(own - other)
            }
            guard sides.count >= fewest, PairedT.of(sides) >= minimumT else { continue }
            let own = stride(from: parity, to: snares.count, by: 2).map { snares[$0] }
            let contrasts = (0..<max(0, own.count - 4)).compactMap { index -> Double? in
                guard let beat = own[index], let next = own[index + 1], let later = own[index + 4] else { return nil }
                return Double((beat - next) * (beat - next) - (beat - later) * (beat - later))
            }
            guard contrasts.count >= fewest, PairedT.of(contrasts) >= minimumT else { continue }
            return parity
        }
        return nil
    }
}

extension GridFitter {
    /// `segments` at the level the snare asks for, and that level against theirs: half
    /// (``halvedOnTheSnare(_:frames:frameDuration:)``), else twice
    /// (``doubledOnTheSnare(_:frames:frameDuration:)``); `nil` to keep them.
    /// Only a map of one grid is read (a map of tempo segments keeps the levels its pieces were given),
    /// and not a tempo the user gave.
    func snareLevel(_ segments: [FittedSegment], frames: inout DrumFrames, frameDuration: Double)
        -> (segment: FittedSegment, level: MetricLevel, againstThePrior: Bool)?
    {
        guard options.forcedBPM == nil, segments.count == 1, let segment = segments.first, segment.beats.count >= 8
        else { return nil }
        if let halved = halvedOnTheSnare(segment, frames: &frames, frameDuration: frameDuration) {
            return (halved.segment, .half, halved.againstThePrior)
        }
        return doubledOnTheSnare(segment, frames: &frames, frameDuration: frameDuration).map { ($0, .double, false) }
    }

    /// One piece of music's beats (a ramp's, or a step's segments joined) at the level the snare asks
    /// for, read as ``snareLevel(_:frames:frameDuration:)`` reads one grid: their median interval
    /// stands for the grid's period, every other beat (of the snare's parity) is kept to halve them,
    /// the midpoints are put in to double them. The beats and the level against theirs; `nil` to keep
    /// them.
    ///
    /// `holdingAlong` (followed beats, sessions 66 and 67): the tempo prior that chooses between the
    /// snare's two readings must choose alike at the slow and the fast end of the beats' local tempi
    /// (``localTempoSpread(_:)``), not only at their median; where a drifting tempo lies across the
    /// prior's boundary (at the default limits 154.9 BPM for halving, 77.4 for doubling), the beats
    /// keep their level. Where the kick alone halves them (the prior not asked), half the tempo must
    /// lie within the limits at both ends. A ramp's and a step's beats are read at their median alone.
    func snareLevel(
        pieceBeats beats: [Double], frames: inout DrumFrames, frameDuration: Double, holdingAlong: Bool = false
    ) -> (beats: [Double], level: MetricLevel)? {
        guard options.forcedBPM == nil, beats.count >= 8, let first = beats.first else { return nil }
        let interval = BeatSequence(beats: beats).medianInterval
        guard interval > 0 else { return nil }
        let segment = FittedSegment(bpm: 60 / interval, firstBeat: first, beats: beats)
        guard let switched = snareLevel([segment], frames: &frames, frameDuration: frameDuration) else { return nil }
        // The tempo prior chooses between the two readings of the snare; for followed beats it must
        // choose alike at the slow and the fast end of their local tempi.
        // Where the kick alone chose against the prior, the level must lie within the limits alike.
        if holdingAlong, let spread = Self.localTempoSpread(beats) {
            let factor = switched.level.factor
            func holds(_ bpm: Double) -> Bool {
                switched.againstThePrior
                    ? levelTempoLimits.contains(bpm * factor) : prefers(bpm * factor, to: bpm)
            }
            guard holds(spread.slow), holds(spread.fast) else { return nil }
        }
        return (switched.segment.beats, switched.level)
    }

    /// The slow and the fast end of the local tempi of `beats` (``localTempi(_:)``): their
    /// ``localTempoPercentile``-th and its complement's percentiles, nearest rank; `nil` for fewer
    /// beats than one whole window (ten).
    ///
    /// Not their extremes: where the tracker ran at another level for a few bars, or doubled a fill,
    /// those bars' local tempi lie an octave away from the drift, and would hold the beats at a level
    /// the rest of the piece does not ask for (session 67).
    static func localTempoSpread(_ beats: [Double]) -> (slow: Double, fast: Double)? {
        let tempi = localTempi(beats).sorted()
        guard !tempi.isEmpty else { return nil }
        let last = Double(tempi.count - 1)
        let slow = Int((last * localTempoPercentile / 100).rounded())
        let fast = Int((last * (100 - localTempoPercentile) / 100).rounded())
        return (tempi[slow], tempi[fast])
    }

    /// The percentile (of a hundred) that stands for the slow end of a piece's local tempi in
    /// ``localTempoSpread(_:)``: a tenth of the piece may lie beyond each end. Chosen on the train
    /// split's count of session 66: the followed copies that the extremes held at a level their truth
    /// is not, by stretches an octave away, against those whose drift lies across the boundary.
    static let localTempoPercentile = 10.0

    /// The tempo (BPM) around each beat interval of `beats` whose window of ``localTempoRadius``
    /// intervals on either side lies within them, by the window's median interval
    /// (``localMedians(_:radius:)``): the piece's local tempi, a slip's single long or short
    /// interval left out.
    static func localTempi(_ beats: [Double]) -> [Double] {
        let intervals = zip(beats.dropFirst(), beats).map { $0 - $1 }
        let radius = localTempoRadius
        guard intervals.count > 2 * radius else { return [] }
        return localMedians(intervals, radius: radius)[radius..<(intervals.count - radius)].compactMap {
            $0 > 0 ? 60 / $0 : nil
        }
    }

    /// The intervals on either side of one that its local tempo is read over: with it, nine, about
    /// two bars of 4/4.
    static let localTempoRadius = 4

    /// Tempo segments (grids, in time order) at the level the snare asks for, with that level where
    /// every piece of music among them moved alike; `nil` where none moved. A tempo change within the
    /// tracker's reach (``GridFitter/trackerRange``) does not change a song's level: the segments on
    /// either side of one are a single piece of music, and are read as one sequence, as
    /// ``snareLevel(_:frames:frameDuration:)`` reads one grid, so that they keep one level and one
    /// parity; a change beyond it is a medley's next song, read on its own.
    func snareLevel(ofSegments segments: [FittedSegment], frames: inout DrumFrames, frameDuration: Double)
        -> (segments: [FittedSegment], level: MetricLevel?)?
    {
        guard options.forcedBPM == nil, segments.count > 1 else { return nil }
        // The pieces: runs of segments whose neighbours' tempi lie within the tracker's reach.
        var pieces: [Range<Int>] = []
        var start = 0
        for index in 1...segments.count {
            if index < segments.count, segments[index].bpm > 0, segments[index - 1].bpm > 0,
                max(segments[index].bpm, segments[index - 1].bpm)
                    < Self.trackerRange * min(segments[index].bpm, segments[index - 1].bpm)
            {
                continue
            }
            pieces.append(start..<index)
            start = index
        }
        var result: [FittedSegment] = []
        var levels: [MetricLevel?] = []
        for piece in pieces {
            let joint = segments[piece].flatMap(\.beats)
            let owner = piece.flatMap { index in [Int](repeating: index, count: segments[index].beats.count) }
            guard let switched = snareLevel(pieceBeats: joint, frames: &frames, frameDuration: frameDuration) else {
                result += segments[piece]
                levels.append(nil)
                continue
            }
            // Each beat to the segment of the last of the piece's beats at or before it.
            var beats = [[Double]](repeating: [], count: segments.count)
            var cursor = 0
            for beat in switched.beats {
                while cursor + 1 < joint.count, joint[cursor + 1] <= beat { cursor += 1 }
                beats[owner[cursor]].append(beat)
            }
            for index in piece {
                guard let first = beats[index].first else { continue }
                result.append(
                    FittedSegment(
                        bpm: segments[index].bpm * switched.level.factor, firstBeat: first, beats: beats[index]))
            }
            levels.append(switched.level)
        }
        guard levels.contains(where: { $0 != nil }) else { return nil }
        let level = levels.first ?? nil
        return (result, levels.allSatisfy { $0 == level } ? level : nil)
    }

    /// `segment`, one grid, at half its tempo when its snare falls on one beat in four or fewer, on one
    /// parity (``DrumDetector/oneInFourOrFewer(_:)``), or else its kick alone on one beat in eight
    /// (``DrumDetector/aloneInEight(_:)``, session 71); the beats kept are those of the snare's parity,
    /// or the kick's. The snare's reading halves where half the tempo lies nearer the tempo
    /// estimate's prior within the limits (``prefers(_:to:)``); the kick's alone wherever half the
    /// tempo lies within the limits (session 76). `nil` to keep it; with the halved grid, whether it
    /// was chosen against the prior (by the kick alone).
    ///
    /// A snare on one beat in four is a back-beat at half the tempo (hip-hop at 81 BPM read at 162,
    /// its snare on 2 and 4) or a half-time feel at this one (trap at 140, its snare on 3): the drums
    /// alone cannot tell which, but the tempo estimate's own prior can (the comb's, centred on the
    /// limits' geometric mean: centred on the ``preferredTempo``, it doubled eleven songs at 78–84 BPM
    /// that were right, docs/analyze-log.md, session 56). At either reading the snare is on a beat,
    /// so the beats kept are its parity's. A snare on one beat in eight (a half-time feel at half the
    /// tempo) is read alike.
    ///
    /// A kick alone on one beat in eight where the snare gives no parity is another matter: then no
    /// drum marks a bar of this level at all, and the only one that marks anything falls once in two
    /// of its bars, which no groove plays. At half the tempo it falls once a bar (a one-drop reggae's
    /// kick and cross-stick on beat 3), so this level is not the beat's and the prior has no choice
    /// to make between the two (a one-drop at 72 BPM read at 144 was kept there by the prior).
    func halvedOnTheSnare(_ segment: FittedSegment, frames: inout DrumFrames, frameDuration: Double)
        -> (segment: FittedSegment, againstThePrior: Bool)?
    {
        let half = segment.bpm / 2
        guard levelTempoLimits.contains(half) else { return nil }
        let withThePrior = prefers(half, to: segment.bpm)
        let parity: Int
        // The snare first, the prior choosing; where it gives no parity, a kick alone once in eight
        // beats, against the prior too.
        if let snare = DrumDetector.oneInFourOrFewer(
            DrumDetector.snares(of: segment.beats, frames: &frames, frameDuration: frameDuration))
        {
            guard withThePrior else { return nil }
            parity = snare
        } else {
            guard
                let kick = DrumDetector.aloneInEight(
                    DrumDetector.kicks(of: segment.beats, frames: &frames, frameDuration: frameDuration))
            else { return nil }
            parity = kick % 2
        }
        let kept = segment.beats.enumerated().filter { $0.offset % 2 == parity }.map(\.element)
        guard let first = kept.first, kept.count >= 2 else { return nil }
        return (FittedSegment(bpm: half, firstBeat: first, beats: kept), !withThePrior)
    }

    /// `segment`, one grid, at twice its tempo when its snare falls clearly on the points
    /// halfway between its beats as a back-beat (two of each four points of the doubled grid, a half
    /// bar apart: ``BackBeat/onTheDownbeats(_:phase:)`` on the midpoints' parity) and twice the tempo
    /// lies nearer the tempo estimate's prior within the limits (``prefers(_:to:)``). `nil` to keep
    /// it. The mirror of ``halvedOnTheSnare(_:frames:frameDuration:)``: a grid at half a rock song's
    /// tempo has the kick on its beats and the snare on every point between them.
    func doubledOnTheSnare(_ segment: FittedSegment, frames: inout DrumFrames, frameDuration: Double)
        -> FittedSegment?
    {
        let bpm = segment.bpm
        guard prefers(bpm * 2, to: bpm) else { return nil }
        let beats = segment.beats
        let doubled = DrumDetector.withMidpoints(beats)
        let snares = DrumDetector.snares(of: doubled, frames: &frames, frameDuration: frameDuration)
        // The midpoints are the odd points: a back-beat on them is bars from an even point whose
        // second and fourth points carry it, i.e. "downbeats" (as the rule names them) at odd points.
        guard BackBeat.onTheDownbeats(snares, phase: 1) || BackBeat.onTheDownbeats(snares, phase: 3) else {
            return nil
        }
        return FittedSegment(bpm: bpm * 2, firstBeat: doubled[0], beats: doubled)
    }

    /// Whether the tempo estimate's prior prefers `candidate` to `bpm` (both BPM): `candidate` lies
    /// within the tempo limits (``levelTempoLimits``) and nearer the prior's centre, the limits'
    /// geometric mean (109.5 BPM for 60–200), in octaves.
    func prefers(_ candidate: Double, to bpm: Double) -> Bool {
        let centre = limitsCentre
        return levelTempoLimits.contains(candidate) && abs(log(candidate / centre)) < abs(log(bpm / centre))
    }
}
