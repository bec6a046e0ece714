// SPDX-License-Identifier: GPL-3.0-or-later

import BeatMapKit
import Foundation

// Laying the beats of one or more grids over the music.
extension GridFitter {
    /// The beats of each segment over its span, the first segment reaching back to the start of the
    /// music and the last to its end, with the change between two segments placed where the onsets
    /// fit best.
    ///
    /// `drums` reads the kick plus snare at a time (``DrumDetector/strength(_:at:frameDuration:)``,
    /// `nil` where the drum frames do not reach): a change the onsets put inside a drumless passage
    /// goes to the drums' return where both grids meet (``drumsReturn(from:since:to:change:over:drums:)``).
    func layOut(
        _ segments: [SegmentFit], novelty: Novelty, span: ClosedRange<Double>, sounding: ClosedRange<Double>?,
        duration: Double, drums: (Double) -> Float? = { _ in nil }
    ) -> [FittedSegment] {
        let start = Self.layoutStart(span: span, sounding: sounding, firstPeriod: segments.first?.grid.period)
        let end = Self.layoutEnd(
            span: span, sounding: sounding, lastPeriod: segments.last?.grid.period, duration: duration)
        // Change times: where segment i+1's grid takes over.
        var cuts: [Double] = []
        for index in 0..<(segments.count - 1) {
            cuts.append(bestCut(segments[index], segments[index + 1], novelty: novelty, drums: drums))
        }
        let earliest = Self.earliestBeat(start: start)
        var result: [FittedSegment] = []
        var previousBeat = -Double.infinity
        for (index, segment) in segments.enumerated() {
            let grid = segment.grid
            // Beats strictly after the previous segment's last beat, at least a third of a beat on.
            let lower = max(
                index == 0 ? earliest : cuts[index - 1], previousBeat + grid.period / 3)
            let upper = index + 1 < segments.count ? cuts[index] - 0.5 * grid.period : end
            let first = grid.firstIndex(atOrAfter: lower)
            let last = grid.lastIndex(atOrBefore: upper)
            guard last >= first else { continue }
            let beats = (first...last).map { grid.time($0) }.filter { $0 >= earliest && $0 < duration }
            if let lastBeat = beats.last { previousBeat = lastBeat }
            guard let firstBeat = beats.first else { continue }
            result.append(FittedSegment(bpm: 60 / grid.period, firstBeat: firstBeat, beats: beats))
        }
        return result
    }

    /// Where the first segment's beats start: 50 ms before the first onset of the music's span, and a
    /// beatless intro that already sounds gets beats from a quarter beat before it starts (`sounding`,
    /// with `firstPeriod` the first segment's beat), never before 0 s.
    static func layoutStart(span: ClosedRange<Double>, sounding: ClosedRange<Double>?, firstPeriod: Double?) -> Double {
        let start = max(0, span.lowerBound - 0.05)
        guard let sounding, let firstPeriod else { return start }
        return max(0, min(start, sounding.lowerBound - 0.25 * firstPeriod))
    }

    /// Where the last segment's beats end: 50 ms after the last onset of the music's span, and a ringing
    /// ending (`sounding`, with `lastPeriod` the last segment's beat) gets beats up to two beats before
    /// the sound dies away (a drum's or a pad's own decay adds none), never past `duration`.
    static func layoutEnd(
        span: ClosedRange<Double>, sounding: ClosedRange<Double>?, lastPeriod: Double?, duration: Double
    ) -> Double {
        let end = min(duration, span.upperBound + 0.05)
        guard let sounding, let lastPeriod else { return end }
        return min(duration, max(end, sounding.upperBound - 2 * lastPeriod))
    }

    /// The earliest beat the layout keeps when its first segment starts at `start`
    /// (``layoutStart(span:sounding:firstPeriod:)``): music that starts at the file's start keeps grid
    /// points a little before 0 s for now (``startReach``), so that the transients can still move them,
    /// and ``startingAtZero(_:)`` settles them.
    static func earliestBeat(start: Double) -> Double {
        start <= 0 ? -startReach : start
    }

    /// How far before 0 s a beat may lie and still be the music's first beat, put at 0 s: 2 ms, the
    /// precision the beats are placed to on their transients (step 8 of docs/analyze.md). A song whose
    /// first hit starts the file has its first grid point at 0 s give or take the fit's error; where that
    /// error put it before the file's start (19 of the corpus's 233 maps, 0.1 to 17 ms early), it was
    /// dropped, and the song's first beat (and often its first downbeat) went missing from the map. At
    /// 0 s the beat is at most this far off its segment's grid, well inside `validate`'s `off-grid`
    /// tolerance (5 ms).
    static let startTolerance = 0.002
    /// How far before 0 s ``layOut(_:novelty:span:sounding:duration:drums:)`` keeps grid points, for the
    /// transient alignment to move (by up to 25 ms earlier or 12 ms later): ``startTolerance`` plus
    /// the most that alignment can move a beat later.
    static let startReach = startTolerance + TransientAlignment.searchRange.upperBound

    /// `segments` with every beat of segment `i` moved `fractions[i]` of its segment's beat later (a
    /// grid keeps its tempo and moves its phase; followed beats, a segment each, move that far towards
    /// the next), `nil` leaving a segment where it is. Beats moved to the end of the audio or past it,
    /// or to within a third of their own beat of the next segment's first beat, are dropped, and a
    /// segment left without beats goes. A first segment that is a grid (two beats or more) and moved
    /// later gets the grid points it now has room for before its first beat, from `earliest` on (the
    /// layout's ``earliestBeat(start:)``): moved half a beat later, a grid whose first beat was half a
    /// beat into the music would otherwise leave the music's first beat out.
    static func shifted(
        _ segments: [FittedSegment], by fractions: [Double?], duration: Double, earliest: Double = .infinity
    ) -> [FittedSegment] {
        let moved = zip(segments, fractions).enumerated().map { index, pair -> FittedSegment in
            let (segment, fraction) = pair
            guard let fraction, segment.bpm > 0 else { return segment }
            let period = 60 / segment.bpm
            var beats = segment.beats.map { $0 + fraction * period }
            if index == 0, fraction > 0, segment.beats.count >= 2, var before = beats.first.map({ $0 - period }) {
                while before >= earliest {
                    beats.insert(before, at: 0)
                    before -= period
                }
            }
            return FittedSegment(bpm: segment.bpm, firstBeat: beats.first ?? segment.firstBeat, beats: beats)
        }
        return moved.indices.compactMap { index in
            let segment = moved[index]
            var end = duration
            if index + 1 < moved.count, let next = moved[index + 1].beats.first, segment.bpm > 0 {
                end = min(end, next - 60 / segment.bpm / 3)
            }
            let beats = segment.beats.filter { $0 < end }
            guard let first = beats.first else { return nil }
            return FittedSegment(bpm: segment.bpm, firstBeat: first, beats: beats)
        }
    }

    /// Grid tempo segments (in time order) with each beat that lies on both of two neighbours' grids
    /// given to the later one. Where a segment's last beat is also the point of the next segment's
    /// grid one beat before its first (within ``GridModelSelector/explainTolerance``), the tempo
    /// changes at that beat: the first interval at the new tempo starts there, so it is the next
    /// segment's first beat (put on its grid), and the first bar of a medley's next song starts on it
    /// (``MeterEstimator/segmentSections(_:features:estimate:)``). Which of the two grids the layout
    /// gave it to depends on a hair's difference in the onsets' fit.
    static func sharedBeatsStartingSegments(_ segments: [FittedSegment]) -> [FittedSegment] {
        var result = segments
        for index in result.indices.dropFirst() {
            let next = result[index]
            guard next.bpm > 0, result[index - 1].beats.count >= 2, let end = result[index - 1].beats.last else {
                continue
            }
            let shared = next.firstBeat - 60 / next.bpm
            guard abs(end - shared) <= GridModelSelector.explainTolerance, shared >= 0 else { continue }
            result[index - 1].beats.removeLast()
            result[index] = FittedSegment(bpm: next.bpm, firstBeat: shared, beats: [shared] + next.beats)
        }
        return result
    }

    /// Grid tempo segments (in time order) with a hole at a change filled: where more than 1.5 beats
    /// of both neighbours' tempi lie between the earlier one's last beat and the later one's first,
    /// the later grid's points before its first beat are added, one at a time, until they do not.
    /// The layout places a change at a beat and can leave that beat to neither grid (a stepped copy
    /// lost the beat at its step, and every bar line after it was a beat out); a segment never covers
    /// a hole (docs/analyze.md, step 7), and from the change the music goes on at the later tempo.
    static func holesAtChangesFilled(_ segments: [FittedSegment]) -> [FittedSegment] {
        var result = segments
        for index in result.indices.dropFirst() {
            let earlier = result[index - 1]
            let later = result[index]
            guard earlier.bpm > 0, later.bpm > 0, let end = earlier.beats.last, var first = later.beats.first else {
                continue
            }
            let longest = max(60 / earlier.bpm, 60 / later.bpm)
            var added: [Double] = []
            while first - end > 1.5 * longest {
                first -= 60 / later.bpm
                added.append(first)
            }
            guard !added.isEmpty else { continue }
            result[index] = FittedSegment(bpm: later.bpm, firstBeat: first, beats: added.reversed() + later.beats)
        }
        return result
    }

    /// `segments` with beats before 0 s settled: a beat within ``startTolerance`` of 0 s is put at
    /// 0 s, one earlier is dropped (a segment left without beats goes too).
    static func startingAtZero(_ segments: [FittedSegment]) -> [FittedSegment] {
        segments.compactMap { segment in
            guard let first = segment.beats.first, first < 0 else { return segment }
            let beats = segment.beats.compactMap { beat -> Double? in
                guard beat < 0 else { return beat }
                return beat >= -startTolerance ? 0 : nil
            }
            guard let firstBeat = beats.first else { return nil }
            return FittedSegment(bpm: segment.bpm, firstBeat: firstBeat, beats: beats)
        }
    }

    /// The beat of `next`'s grid, near the two segments' boundary, from which on the beats fit the
    /// onsets best (``bestChange(from:to:over:novelty:)``), or where the drums return after it, when it
    /// lies in a drumless passage (``drumsReturn(from:since:to:change:over:drums:)``).
    func bestCut(
        _ current: SegmentFit, _ next: SegmentFit, novelty: Novelty, drums: (Double) -> Float? = { _ in nil }
    ) -> Double {
        let boundary = current.span.upperBound
        // Within 6 s of the boundary, and not beyond the middle of either segment.
        let lower = max(boundary - 6, (current.span.lowerBound + boundary) / 2)
        let upper = min(boundary + 6, (boundary + next.span.upperBound) / 2)
        let zone = min(lower, boundary)...max(upper, boundary)
        guard let change = Self.bestChange(from: current.grid, to: next.grid, over: zone, novelty: novelty)?.change
        else { return next.grid.time(next.grid.firstIndex(atOrAfter: boundary)) }
        return Self.drumsReturn(
            from: current.grid, since: current.span.lowerBound, to: next.grid, change: change, over: zone,
            drums: drums) ?? change
    }

    /// Kick plus snare (``DrumDetector/strength(_:at:frameDuration:)``) at which a drum is heard: the
    /// detector's two probabilities sum to at least one half.
    static let drumHeard: Float = 0.5

    /// Where the drums return after `change` (a point of `after`'s grid in `zone`), when the change lies
    /// in a drumless passage of music whose drums play at `before`'s tempo (session 69): the first
    /// point of `after`'s grid in `zone` where `drums` hears a drum (``drumHeard``), when every point of
    /// both grids from `change` to it hears none, `before`'s grid has a point there too (within
    /// ``GridModelSelector/explainTolerance``: the beat continues across it, as across a real step), and
    /// `before`'s points from `start` (its segment's) to the change hear a drum at
    /// ``DrumDetector/minimumBeats`` or more (a drumless intro read at a tempo of its own is not the
    /// drums' tempo); `nil` otherwise, or where the drum frames do not reach. In a drumless passage the
    /// sparse instruments say little of which tempo plays, and the onsets' best change can land seconds
    /// from the music's; where the drums come back on a beat both tempi share, the new tempo can start
    /// without a jump.
    static func drumsReturn(
        from before: Grid, since start: Double, to after: Grid, change: Double, over zone: ClosedRange<Double>,
        drums: (Double) -> Float?
    ) -> Double? {
        let last = after.lastIndex(atOrBefore: zone.upperBound)
        var index = after.nearestIndex(to: change)
        var silent = 0
        while index <= last {
            let time = after.time(index)
            guard let heard = drums(time) else { return nil }
            if heard < drumHeard {
                silent += 1
                index += 1
                continue
            }
            // At least the change and the point after it are drumless: the change lies in a passage.
            guard silent >= 2 else { return nil }
            let meeting = before.nearestIndex(to: time)
            guard abs(before.time(meeting) - time) <= GridModelSelector.explainTolerance else { return nil }
            let earlier = before.firstIndex(atOrAfter: change)
            if meeting > earlier {
                for point in earlier..<meeting {
                    guard let heard = drums(before.time(point)), heard < drumHeard else { return nil }
                }
            }
            // The earlier tempo is the drums' too: they are heard at enough of its points before the
            // change.
            var heardBefore = 0
            var point = before.firstIndex(atOrAfter: start)
            while point < earlier, heardBefore < DrumDetector.minimumBeats {
                if (drums(before.time(point)) ?? 0) >= drumHeard { heardBefore += 1 }
                point += 1
            }
            return heardBefore >= DrumDetector.minimumBeats ? time : nil
        }
        return nil
    }

    /// The onset strength `grid`'s points in `range` carry: the novelty at each, less `base`.
    static func carried(_ grid: Grid, over range: ClosedRange<Double>, base: Double, novelty: Novelty) -> Double {
        let first = grid.firstIndex(atOrAfter: range.lowerBound)
        let last = grid.lastIndex(atOrBefore: range.upperBound)
        guard last >= first else { return 0 }
        return (first...last).reduce(0.0) { $0 + novelty.value(at: grid.time($1)) - base }
    }

    /// Over `zone`: the change, at a point of `after`'s grid, where `before`'s grid up to half its beat
    /// before it and `after`'s from it on carry the most onset strength (``carried(_:over:base:novelty:)``,
    /// less the zone's mean), and that strength, the earliest such change on a tie; `nil` where `after`
    /// has no point in the zone.
    static func bestChange(from before: Grid, to after: Grid, over zone: ClosedRange<Double>, novelty: Novelty)
        -> (score: Double, change: Double)?
    {
        let base = novelty.mean(in: zone)
        let first = after.firstIndex(atOrAfter: zone.lowerBound)
        let last = after.lastIndex(atOrBefore: zone.upperBound)
        guard last >= first else { return nil }
        var best: (score: Double, change: Double)?
        for candidate in first...last {
            let change = after.time(candidate)
            let end = change - 0.5 * before.period
            let score =
                (end >= zone.lowerBound
                    ? carried(before, over: zone.lowerBound...end, base: base, novelty: novelty) : 0)
                + carried(after, over: change...zone.upperBound, base: base, novelty: novelty)
            // The earliest of changes that carry the same (a change at a beat both grids share
            // gives the same beats a point later).
            if best.map({ score > $0.score + 1e-9 }) ?? true { best = (score, change) }
        }
        return best
    }

    /// Fraction of `beats` with an onset within `tolerance`.
    func matchedFraction(_ beats: [Double], matcher: PeakMatcher, tolerance: Double) -> Double {
        guard !beats.isEmpty else { return 0 }
        let matched = beats.filter { matcher.nearest(to: $0, within: tolerance) != nil }.count
        return (Double(matched) / Double(beats.count) * 1000).rounded() / 1000
    }
}

// Where followed and ramped beats start.
extension GridFit {
    /// How far before 0 s, in first intervals, a point put before followed or ramped beats may lie and
    /// still be the file's first beat, put at 0 s, where the music sounds from the file's start: a
    /// quarter, step 7's own bound for a first beat before the sound it belongs to
    /// (``GridFitter/layoutStart(span:sounding:firstPeriod:)``). A grid keeps
    /// ``GridFitter/startTolerance`` (its beat must stay within `validate`'s 5 ms of its grid); a point
    /// one interval extrapolated back from followed beats is uncertain by the drift and the tracker's
    /// timing, and each followed beat is a segment of its own (session 81's trial FZ).
    static let startReach = 0.25

    /// Followed or ramped beats with beats put before their first, one first interval apart, back to
    /// where step 7 lays a grid's first beat for that interval
    /// (``GridFitter/layoutStart(span:sounding:firstPeriod:)``; where that is the file's start, a
    /// point less than ``startReach`` of the interval before 0 s at 0 s), each a tempo segment of its
    /// own as followed beats are; and how many were put there. Other methods, and beats that already
    /// start there, are returned as they are, with 0.
    ///
    /// A grid's beats run from the music's first onset; the tracker's path, and a ramp's points in
    /// the span, can start a beat or more later, so a game's first notes would be missing. The beats
    /// are added after the audio check and the bar estimate (``BeatMapAnalyzer``), which read the
    /// beats the tracker found: with the added beats, both decided differently on songs they were
    /// right on (session 79's trial FB).
    func reachingTheStart() -> (fit: GridFit, added: Int) {
        guard method == .follow || method == .ramp, beats.count >= 2 else { return (self, 0) }
        let interval = beats[1] - beats[0]
        guard interval > 0 else { return (self, 0) }
        let start = GridFitter.layoutStart(span: span, sounding: sounding, firstPeriod: interval)
        let earliest = start <= 0 ? -Self.startReach * interval : start
        var added: [Double] = []
        var point = beats[0] - interval
        while point >= earliest {
            added.append(max(0, point))
            point -= interval
        }
        guard !added.isEmpty else { return (self, 0) }
        added.reverse()
        let bpm = min(TempoLimits.maximumBPM, max(TempoLimits.minimumBPM, 60 / interval))
        var reached = self
        reached.beats = added + beats
        reached.segments = added.map { FittedSegment(bpm: bpm, firstBeat: $0, beats: [$0]) } + segments
        return (reached, added.count)
    }
}
