// SPDX-License-Identifier: GPL-3.0-or-later

import Foundation

// Followed beats that left the tempo for 4⁄3 or ¾ of it and came back to it: a tracker's detour
// through a dotted figure, which the beats on either side pin down.
extension GridFitter {
    /// `tracked` with each detour the tracker took to 4⁄3 or ¾ of the tempo and back replaced by
    /// beats that carry the tempo on either side through it.
    ///
    /// A dotted figure (three sixteenths, three of its beats against four of the music's) can draw a
    /// followed tracker to 4⁄3 of the tempo for a section where nothing else marks the beat: a
    /// breakdown of plucks. ``repairingLevelSections(_:novelty:peaks:span:regions:)`` puts such a
    /// section back only where a tracker held at the song's level finds onsets at least as often as
    /// the followed beats, and only where that tracker was not itself drawn there by a tempo region
    /// the dotted figure made. And in such a section the held tracker finds the tempo but not the
    /// phase: the dotted figure meets every phase of the beat alike. What does fix the phase is the
    /// music on either side: the tracker left the beat and came back to it.
    ///
    /// So a section is a detour where:
    /// - the median of the ``sectionContext`` intervals after a beat lies over ``localIntervalBand``
    ///   from the median of those before it, and a later median of as many comes back within it:
    ///   the tempo the tracker came back to is the tempo it left (a drift moves it by a few percent,
    ///   a real change stays changed);
    /// - the beats before and after it lie on lines (least squares through eight beats clear of the
    ///   section) that the section's edge beats still meet within
    ///   ``GridModelSelector/explainTolerance``: there the tracker left and there it came back, with
    ///   at least ``sectionContext`` beats between;
    /// - the section runs at 4⁄3 or ¾ of the tempo either side (``sectionRatios``, within
    ///   ``sectionRatioTolerance``): another pulse of the same music, not a tempo of its own.
    ///
    /// How many beats the section holds is the one thing the edges cannot tell: at a drift of a few
    /// percent, thirty beats may hold one more or one fewer. A tracker held within
    /// ``sameLevelRatio`` of the song's tempo, with no tempo regions, reads it from the onsets, as the
    /// number of its median intervals the section spans, taken when it lies within a quarter of a beat
    /// of a whole number. The beats are then laid between the edge beats, their intervals changing
    /// evenly from the tempo before to the tempo after. A section that fails any of these keeps its
    /// beats.
    func repairingDetours(
        _ tracked: [Double], novelty: Novelty, peaks: [OnsetPeak], span: ClosedRange<Double>
    ) -> [Double] {
        let context = Self.sectionContext
        guard tracked.count >= 6 * context else { return tracked }
        let intervals = zip(tracked.dropFirst(), tracked).map { $0 - $1 }
        let band = log(1 + Self.localIntervalBand)
        // The median of the `context` intervals from each index on (the last ones: of those left).
        let ahead = intervals.indices.map { Self.median(intervals[$0..<min(intervals.count, $0 + context)]) }
        // Departures and returns: a start where the tempo ahead leaves the tempo behind, and its end
        // where the tempo ahead is back within the band of it.
        var sections: [(start: Int, end: Int)] = []
        var index = context
        while index + context <= intervals.count {
            let behind = ahead[index - context]
            let departure = log(ahead[index] / behind)
            guard Self.sectionRatios.contains(where: { abs(departure - log($0)) < band }) else {
                index += 1
                continue
            }
            var end = index + 1
            while end + context <= intervals.count, abs(log(ahead[end] / behind)) > band { end += 1 }
            guard end + context <= intervals.count else {
                index += 1
                continue
            }
            sections.append((index, end))
            index = end + context
        }
        var held: [Double]?
        var result = tracked
        // Last first, so that replacing one leaves the indices of those before it as they were; a
        // detour whose beats would reach into one replaced already (two within a few beats of each
        // other) is left as it is.
        var untouched = tracked.count
        for section in sections.reversed() {
            guard
                let detour = detour(
                    section, beats: tracked, intervals: intervals,
                    held: {
                        if held == nil {
                            held = trackBeats(
                                novelty: novelty, peaks: peaks,
                                period: BeatSequence(beats: tracked).medianInterval, span: span,
                                range: Self.sameLevelRatio)
                        }
                        return held ?? []
                    })
            else { continue }
            guard detour.replacing.upperBound < untouched else { continue }
            result.replaceSubrange(detour.replacing, with: detour.beats)
            untouched = detour.replacing.lowerBound
        }
        return result
    }

    /// The beats that replace the detour between the departure at `section.start` and the return at
    /// `section.end` (indices of `intervals`, the intervals of `beats`), and the indices of `beats`
    /// they replace; `nil` where it is no detour (``repairingDetours(_:novelty:peaks:span:)``).
    private func detour(
        _ section: (start: Int, end: Int), beats: [Double], intervals: [Double], held: () -> [Double]
    ) -> (replacing: Range<Int>, beats: [Double])? {
        let context = Self.sectionContext
        let band = log(1 + Self.localIntervalBand)
        let behind = Self.median(intervals[(section.start - context)..<section.start])
        let beyond = Self.median(intervals[section.end..<(section.end + context)])
        // The first and last intervals away from the tempo on their side.
        guard
            let first = (section.start..<(section.end + context)).first(where: {
                abs(log(intervals[$0] / behind)) > band
            }),
            let last = (section.start..<(section.end + context)).last(where: {
                abs(log(intervals[$0] / beyond)) > band
            }), last >= first
        else { return nil }
        // Lines through eight beats clear of each edge (five beats from the section's edge beats),
        // and the beats still on them nearest the section.
        let clear = context / 2 + 1
        let (edgeBefore, edgeAfter) = (first, last + 1)
        guard edgeBefore - clear - context + 1 >= 0, edgeAfter + clear + context <= beats.count else { return nil }
        let tolerance = GridModelSelector.explainTolerance
        guard
            let before = Self.beatLine(beats, (edgeBefore - clear - context + 1)..<(edgeBefore - clear + 1)),
            let after = Self.beatLine(beats, (edgeAfter + clear)..<(edgeAfter + clear + context))
        else { return nil }
        var left = edgeBefore - clear
        while left + 1 < beats.count, abs(beats[left + 1] - before(left + 1)) < tolerance { left += 1 }
        var right = edgeAfter + clear
        while right - 1 > left, abs(beats[right - 1] - after(right - 1)) < tolerance { right -= 1 }
        guard right - left >= context, left >= context, right + context < beats.count else { return nil }
        // The tempo it left and the tempo it came back to, and the section's against them.
        let leaving = Self.median(intervals[(left - context)..<left])
        let returning = Self.median(intervals[right..<(right + context)])
        guard abs(log(leaving / returning)) < band else { return nil }
        let home = (leaving * returning).squareRoot()
        let pulse = Self.median(intervals[first...last])
        guard Self.sectionRatios.contains(where: { abs(log(home / pulse / $0)) < Self.sectionRatioTolerance })
        else { return nil }
        // How many beats: the held tracker's median interval over the section.
        let gap = beats[right] - beats[left]
        let inside = held().filter { $0 > beats[left] && $0 < beats[right] }
        guard inside.count >= context else { return nil }
        let heldInterval = BeatSequence(beats: inside).medianInterval
        let count = (gap / heldInterval).rounded()
        guard count >= 2, abs(gap / heldInterval - count) <= 0.25 else { return nil }
        let weights = (0..<Int(count)).map { leaving + (returning - leaving) * (Double($0) + 0.5) / count }
        let scale = gap / weights.reduce(0, +)
        var placed: [Double] = []
        var time = beats[left]
        for weight in weights.dropLast() {
            time += weight * scale
            placed.append(time)
        }
        return ((left + 1)..<right, placed)
    }

    /// The least-squares line of beat time against beat index through `beats[range]`, as a function of
    /// the index; `nil` for fewer than two beats.
    static func beatLine(_ beats: [Double], _ range: Range<Int>) -> ((Int) -> Double)? {
        guard range.count >= 2 else { return nil }
        let count = Double(range.count)
        let meanIndex = Double(range.lowerBound + range.upperBound - 1) / 2
        let meanTime = range.reduce(0) { $0 + beats[$1] } / count
        let spread = range.reduce(0) { $0 + (Double($1) - meanIndex) * (Double($1) - meanIndex) }
        let slope = range.reduce(0) { $0 + (Double($1) - meanIndex) * (beats[$1] - meanTime) } / spread
        return { meanTime + slope * (Double($0) - meanIndex) }
    }

    /// The median of `values` (the upper one of an even count, as ``BeatSequence/medianInterval``
    /// takes it); 0 for none.
    static func median(_ values: ArraySlice<Double>) -> Double {
        RankSelection.value(atFraction: 0.5, of: values) ?? 0
    }
}
