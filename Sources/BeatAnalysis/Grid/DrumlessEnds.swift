// SPDX-License-Identifier: GPL-3.0-or-later

import Foundation

// A short tempo segment at either end of the map, where no drums play, is no tempo change (session 82):
// the drummed grid beside it carries on over it.

extension GridFitter {
    /// Laid-out grid segments (`segments`, in order, as the fit hands them out) with the first or the
    /// last replaced by its neighbour's beats carried on, when that end is a short passage where no
    /// drum plays beside drums; `nil` when neither end goes. `span` and `sounding` are the layout's
    /// (step 7: the music's onsets and where the audio sounds), `duration` the audio's; `drums` reads
    /// the kick plus snare at a time (``DrumDetector/strength(_:at:frameDuration:)``, `nil` where the
    /// detector's frames do not reach).
    ///
    /// Why: a piece needs ``GridModelSelector/minimumPieceBeats`` tracked beats to be chosen (step 6),
    /// but the change between two pieces is placed afterwards by the onsets, within 6 s of the boundary
    /// and never past the middle of either piece, so an end piece can be laid out with as few as half
    /// as many beats. Where that end plays without drums (an intro, an outro), the piece is what the
    /// tracker followed there — a bass's octaves, a comp's syncopation — at a tempo the music does not
    /// have, and the sparse instruments say little of which tempo plays (as for a change in a drumless
    /// passage, ``drumsReturn(from:since:to:change:over:drums:)``). Issue 11 asks that a tempo change
    /// have many beats on both sides and that a quiet intro not be one. A real step near a short song's
    /// end has drums on both sides and stays.
    ///
    /// How: the first segment goes when it has fewer than ``GridModelSelector/minimumPieceBeats``
    /// beats, no drum is heard (``drumHeard``) at any of them (a beat whose drums cannot be read
    /// counts as none heard), and the next segment, of ``drumSideBeats`` beats or more, has a drum
    /// heard at half of its beats or more (its tempo is the drums'). The next segment's beats then carry
    /// on back at their own interval (first to last over their count) to the layout's start for that
    /// interval (``layoutStart(span:sounding:firstPeriod:)``, a beat within ``startTolerance`` before
    /// 0 s at 0 s). The last segment likewise, the previous one's beats carried on to the layout's end
    /// (``layoutEnd(span:sounding:lastPeriod:duration:)``).
    /// A segment whose drums come back inside it is no drumless end: session 82's first form took one
    /// with drums at fewer than half of its beats, and a held-out copy's real step, begun inside a drum
    /// break, went. It runs after the fit's own decisions, which read the segments as they were: its
    /// second form removed the piece before step 8, whose snare reading then took a held-out song's
    /// one remaining segment to twice its tempo.
    static func withoutDrumlessEnds(
        _ segments: [FittedSegment], span: ClosedRange<Double>, sounding: ClosedRange<Double>?, duration: Double,
        drums: (Double) -> Float?
    ) -> [FittedSegment]? {
        guard segments.count > 1 else { return nil }
        let fewest = GridModelSelector().minimumPieceBeats
        func heard(_ beats: [Double]) -> Int {
            beats.reduce(0) { $0 + ((drums($1).map { $0 >= drumHeard } ?? false) ? 1 : 0) }
        }
        /// Whether `end` is a short passage where no drum plays, beside a segment whose beats are the
        /// drums' (`side`, its beats).
        func goes(_ end: [Double], beside side: [Double]) -> Bool {
            guard end.count < fewest, side.count >= drumSideBeats else { return false }
            return heard(end) == 0 && 2 * heard(side) >= side.count
        }
        /// The beats' own interval, first to last over their count.
        func interval(_ beats: [Double]) -> Double? {
            guard let first = beats.first, let last = beats.last, beats.count > 1, last > first else { return nil }
            return (last - first) / Double(beats.count - 1)
        }
        var result = segments
        if goes(segments[0].beats, beside: segments[1].beats), let period = interval(segments[1].beats),
            let first = segments[1].beats.first
        {
            let start = layoutStart(span: span, sounding: sounding, firstPeriod: period)
            let earliest = start <= 0 ? -startTolerance : start
            var before: [Double] = []
            var beat = first - period
            while beat >= earliest - 1e-9 {
                before.append(max(0, beat))
                beat -= period
            }
            let beats = before.reversed() + segments[1].beats
            result.removeFirst()
            result[0] = FittedSegment(bpm: segments[1].bpm, firstBeat: beats[0], beats: beats)
        }
        if result.count > 1, let last = result.last, goes(last.beats, beside: result[result.count - 2].beats),
            let period = interval(result[result.count - 2].beats), let from = result[result.count - 2].beats.last
        {
            let end = layoutEnd(span: span, sounding: sounding, lastPeriod: period, duration: duration)
            var after: [Double] = []
            var beat = from + period
            while beat <= end, beat < duration {
                after.append(beat)
                beat += period
            }
            result.removeLast()
            let index = result.count - 1
            let previous = result[index]
            result[index] = FittedSegment(
                bpm: previous.bpm, firstBeat: previous.firstBeat, beats: previous.beats + after)
        }
        return result.count < segments.count ? result : nil
    }
}
