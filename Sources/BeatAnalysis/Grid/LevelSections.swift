// SPDX-License-Identifier: GPL-3.0-or-later

import Foundation

// Followed beats that the tracker took at another pulse for a section: a dotted rhythm (three of its
// beats against four of the music's) holds it for a while, and it comes back.
extension GridFitter {
    /// Intervals read either side of a beat for the tempo on that side: two bars of 4/4.
    static let sectionContext = 8
    /// The tempo ratios a section at another pulse sits at against the beats around it: the only
    /// metrical ratios within the tracker's 30 % (``trackBeats(novelty:peaks:period:span:range:)``).
    static let sectionRatios: [Double] = [4.0 / 3.0, 0.75]
    /// How close (in log ratio) a jump in tempo must come to one of ``sectionRatios``.
    static let sectionRatioTolerance = 0.04
    /// The tempo range, as a factor either way, of the tracking a section is tried again with: room
    /// for a drift or a ramp within it, none for another pulse.
    static let sectionTrackingRange = 1.15

    /// `tracked` with the sections the tracker took at another pulse tracked again at the pulse
    /// around them, where those beats stand out more.
    ///
    /// A section starts and ends where the tempo jumps by 4⁄3 or ¾ (within 4 %): the median of the
    /// ``sectionContext`` intervals after a beat against the median of those before. Music does
    /// change tempo by such a ratio now and then; a tracker does it whenever a dotted figure outweighs
    /// the beat for a while, and it cannot go further (its tempi stay within 30 % of the song's). So
    /// the jumps only propose: the section whose tempo is at a ratio to the song's longest section is
    /// tracked again with the tempo held within 15 % of that section's, and the new beats replace the
    /// old ones there only when they stand out more (``trackedScore(_:novelty:span:)`` over the
    /// section) — a real change of tempo keeps its beats, which the held tracker cannot match. The
    /// fitter reads the kick along the beats again afterwards (``onTheKick(tracked:lowBand:)``): the
    /// held tracker chose its own phase.
    func repairingLevelSections(
        _ tracked: [Double], novelty: Novelty, peaks: [OnsetPeak], span: ClosedRange<Double>
    ) -> [Double] {
        let context = Self.sectionContext
        let count = tracked.count
        guard count >= 6 * context else { return tracked }
        let intervals = zip(tracked.dropFirst(), tracked).map { $0 - $1 }
        func median(_ range: Range<Int>) -> Double {
            let sorted = intervals[range].sorted()
            return sorted[sorted.count / 2]
        }
        // Jumps: beat i where the intervals after it run at a section ratio of those before. Around a
        // jump the medians give that ratio for several beats in a row (the windows change their
        // majority a few beats either side of it); the jump is the middle of such a run.
        func ratio(at index: Int) -> Double {
            median((index - context)..<index) / median(index..<(index + context))
        }
        var runs: [ClosedRange<Int>] = []
        for index in context...(intervals.count - context) {
            let value = ratio(at: index)
            guard Self.sectionRatios.contains(where: { abs(log($0 / value)) < Self.sectionRatioTolerance }) else {
                continue
            }
            if let last = runs.last, index - last.upperBound < context {
                runs[runs.count - 1] = last.lowerBound...index
            } else {
                runs.append(index...index)
            }
        }
        // Within a run, the jump is where the intervals before it lie nearest the tempo before and those
        // after it nearest the tempo after (least absolute deviation, in log ratio).
        let jumps = runs.map { run -> (beat: Int, ratio: Double) in
            let middle = (run.lowerBound + run.upperBound) / 2
            let before = median((middle - context)..<middle)
            let after = median(middle..<(middle + context))
            func deviation(_ index: Int) -> Double {
                var sum = 0.0
                for j in (index - context)..<index { sum += abs(log(intervals[j] / before)) }
                for j in index..<(index + context) { sum += abs(log(intervals[j] / after)) }
                return sum
            }
            let beat = run.min { deviation($0) < deviation($1) } ?? middle
            return (beat, before / after)
        }
        guard !jumps.isEmpty else { return tracked }
        // Sections (beat ranges) and each one's pulse against the first's: the product of the jumps.
        var sections: [(beats: Range<Int>, level: Double)] = []
        var start = 0
        var level = 1.0
        for jump in jumps {
            sections.append((start..<jump.beat, level))
            level *= jump.ratio
            start = jump.beat
        }
        sections.append((start..<count, level))
        // The song's pulse: that of its longest section in time.
        func duration(_ beats: Range<Int>) -> Double { tracked[beats.upperBound - 1] - tracked[beats.lowerBound] }
        guard let main = sections.max(by: { duration($0.beats) < duration($1.beats) }), main.beats.count >= 3 else {
            return tracked
        }
        let offPulse = sections.filter { abs(log($0.level / main.level)) > 0.1 }
        guard !offPulse.isEmpty else { return tracked }
        let held = trackBeats(
            novelty: novelty, peaks: peaks, period: median(main.beats.lowerBound..<(main.beats.upperBound - 1)),
            span: span, range: Self.sectionTrackingRange)
        guard held.count >= 2 else { return tracked }
        var result = tracked
        // Each section is found in the result by its time, so replacing one leaves the others in place.
        for section in offPulse.reversed() {
            // The section's time: from halfway to the beat before it to halfway to the beat after it.
            let first = section.beats.lowerBound
            let last = section.beats.upperBound - 1
            let lower = first > 0 ? (tracked[first - 1] + tracked[first]) / 2 : -Double.infinity
            let upper = last + 1 < count ? (tracked[last] + tracked[last + 1]) / 2 : Double.infinity
            let old = Array(tracked[section.beats])
            let new = held.filter { $0 > lower && $0 < upper }
            guard new.count >= 9, old.count >= 9 else { continue }
            let from = max(span.lowerBound, tracked[first])
            let to = min(span.upperBound, tracked[last])
            guard from < to,
                trackedScore(new, novelty: novelty, span: from...to)
                    > trackedScore(old, novelty: novelty, span: from...to)
            else { continue }
            guard let replaced = result.firstIndex(where: { $0 > lower }) else { continue }
            let kept = result.firstIndex(where: { $0 >= upper }) ?? result.count
            result.replaceSubrange(replaced..<kept, with: new)
        }
        return result
    }
}
