// SPDX-License-Identifier: GPL-3.0-or-later

import Foundation

// How many beats a drumless passage holds, counted by its chord changes (session 93, trial HC). With
// no drum in a passage, a followed tracker can run on at a tempo of its own (eight bars of a pad,
// the beats 7 % fast, two beats gained), and the tempo of the drums on either side does not say how
// many beats lie between them either: a drift of a few percent moves that count by one or two over
// eight bars. The chords do: a pad's or a band's harmony changes at bar lines. So the count whose
// bar lines fall on the chord changes is the passage's (docs/analyze-log.md, session 93).
extension GridFitter {
    /// Bars a passage must span, at the sides' mean interval, for its chord changes to count its
    /// beats: eight of 4/4. A paired t over four bars is not evidence (a four-bar passage read t 9.1
    /// with the wrong count, session 93).
    static let countedPassageBars = 8

    /// Beats a bar of the count has: 4. The bars are estimated after the beats, so the commonest
    /// meter stands; in 3/4 the bar lines of four beats fall on no chord change and nothing moves.
    static let countedBarBeats = 4

    /// Beats on either side of a bridge beat whose pitch-class profiles are compared: two.
    static let harmonyWidthBeats = 2.0

    /// Followed `beats` with each drumless passage whose chord changes clearly count another number
    /// of beats than the tracker's replaced by that many, evenly spread at a tempo running from the
    /// side before to the side after; `nil` when none is. `drums` reads the kick plus snare at a time
    /// (``DrumDetector/strength(_:at:frameDuration:)``), `chroma` is the pitch-class profile
    /// (``ChromaProfile``: 12 values per frame of ``ChromaProfile/hopsPerFrame`` hops of
    /// `hopDuration` seconds).
    ///
    /// A passage is one of ``drumlessPassages(_:)`` with a drummed side on both sides
    /// (``isDrummedSide(_:of:heard:drums:)``), spanning at least ``countedPassageBars`` bars at the
    /// sides' mean interval. The counts read are the tracker's and the two whole numbers of
    /// intervals around the span over that interval. For each, the beats it lays (the bridge) are
    /// read for the harmonic change at each (1 − the correlation of the profile over
    /// ``harmonyWidthBeats`` beats before and after it), and per bar of ``countedBarBeats`` beats,
    /// at the phase whose mean is largest, the change at its first beat less the mean of the others.
    /// The count with the largest mean difference wins; it replaces the tracker's only where it is
    /// another count and the paired t of its differences over the bars reaches 5, the drum check's
    /// margin.
    static func drumlessPassagesCountedByHarmony(
        _ beats: [Double], drums: (Double) -> Float?, chroma: CompactFloats, hopDuration: Double
    ) -> [Double]? {
        let frameDuration = hopDuration * Double(ChromaProfile.hopsPerFrame)
        guard frameDuration > 0, chroma.count >= 12 else { return nil }
        let heard = beats.map(drums)
        var replaced: [(passage: Range<Int>, beats: [Double])] = []
        for passage in Self.drumlessPassages(heard) {
            let before = (passage.lowerBound - drumSideBeats)..<passage.lowerBound
            let after = passage.upperBound..<(passage.upperBound + drumSideBeats)
            guard Self.isDrummedSide(before, of: beats, heard: heard, drums: drums),
                Self.isDrummedSide(after, of: beats, heard: heard, drums: drums),
                let lineBefore = Self.beatLine(beats, before), let lineAfter = Self.beatLine(beats, after)
            else { continue }
            let periodBefore = lineBefore(1) - lineBefore(0)
            let periodAfter = lineAfter(1) - lineAfter(0)
            let start = beats[passage.lowerBound - 1]
            let end = beats[passage.upperBound]
            let span = (end - start) / ((periodBefore + periodAfter) / 2)
            guard span >= Double(countedPassageBars * countedBarBeats) else { continue }
            let tracked = passage.count + 1
            var best: (count: Int, bridge: [Double], mean: Double, t: Double)?
            for count in Set([tracked, Int(span.rounded(.down)), Int(span.rounded(.up))]).sorted() {
                let bridge = Self.bridge(from: start, to: end, count: count, periods: (periodBefore, periodAfter))
                guard let read = Self.barLineContrast(bridge, chroma: chroma, frameDuration: frameDuration),
                    best.map({ read.mean > $0.mean }) ?? true
                else { continue }
                best = (count, bridge, read.mean, read.t)
            }
            guard let best, best.count != tracked, best.t >= DrumDetector.minimumT else { continue }
            replaced.append((passage, Array(best.bridge.dropFirst().dropLast())))
        }
        guard !replaced.isEmpty else { return nil }
        var result: [Double] = []
        var next = 0
        for part in replaced {
            result += beats[next..<part.passage.lowerBound]
            result += part.beats
            next = part.passage.upperBound
        }
        result += beats[next...]
        return result
    }

    /// `count` + 1 times from `start` to `end`, their intervals running linearly from `periods.0` to
    /// `periods.1` and scaled to fill the span exactly.
    static func bridge(from start: Double, to end: Double, count: Int, periods: (Double, Double)) -> [Double] {
        let intervals = (0..<count).map { index in
            periods.0 + (periods.1 - periods.0) * (Double(index) + 0.5) / Double(count)
        }
        let scale = (end - start) / intervals.reduce(0, +)
        var times = [start]
        var time = start
        for interval in intervals {
            time += interval * scale
            times.append(time)
        }
        times[times.count - 1] = end
        return times
    }

    /// Along `beats` (a bridge: evenly spread), the harmonic change at each beat, and per bar of
    /// ``countedBarBeats`` beats at the phase whose mean is largest, the change at its first beat less
    /// the mean of the others; that mean and the differences' paired t, or `nil` with fewer than
    /// ``countedPassageBars`` bars.
    static func barLineContrast(
        _ beats: [Double], chroma: CompactFloats, frameDuration: Double
    ) -> (mean: Double, t: Double)? {
        guard beats.count >= 2, let first = beats.first, let last = beats.last else { return nil }
        let width = harmonyWidthBeats * (last - first) / Double(beats.count - 1)
        let frames = chroma.count / 12
        // The profile summed over the frames that start in `range`.
        func profile(_ range: Range<Double>) -> [Double] {
            var sums = [Double](repeating: 0, count: 12)
            let low = max(0, Int((range.lowerBound / frameDuration).rounded(.up)))
            let high = min(frames, Int((range.upperBound / frameDuration).rounded(.up)))
            guard low < high else { return sums }
            for frame in low..<high {
                for pc in 0..<12 { sums[pc] += Double(chroma[frame * 12 + pc]) }
            }
            return sums
        }
        let changes = beats.map { beat in
            ChromaProfile.change(from: profile((beat - width)..<beat), to: profile(beat..<(beat + width)))
        }
        var best: (mean: Double, t: Double)?
        for phase in 0..<countedBarBeats {
            let lines = stride(from: phase, to: changes.count, by: countedBarBeats)
            let differences = lines.compactMap { line -> Double? in
                let others = (line + 1)..<min(changes.count, line + countedBarBeats)
                guard !others.isEmpty else { return nil }
                return changes[line] - others.map { changes[$0] }.reduce(0, +) / Double(others.count)
            }
            guard differences.count >= countedPassageBars else { continue }
            let mean = differences.reduce(0, +) / Double(differences.count)
            if best.map({ mean > $0.mean }) ?? true { best = (mean, PairedT.of(differences)) }
        }
        return best
    }
}
