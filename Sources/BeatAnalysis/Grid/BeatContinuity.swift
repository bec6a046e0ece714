// SPDX-License-Identifier: GPL-3.0-or-later

import Foundation

// A tempo change keeps the beat: music that speeds up or slows down within the tracker's reach does not
// skip a fraction of a beat where it does. A medley's next song (a tempo change beyond that reach) may
// start anywhere.
extension GridFitter {
    /// The fraction of a beat, from −½ to ½, by which `next`'s beats would move to continue `previous`'s:
    /// its first beat one interval — between the two segments' own — after the last of `previous`, or
    /// two where the beat at the change itself is missing from the layout. `nil` when they continue it
    /// already (within ``GridModelSelector/explainTolerance``), when either has fewer than two beats,
    /// or when the tempo changes beyond ``trackerRange``.
    static func phaseJump(from previous: FittedSegment, to next: FittedSegment) -> Double? {
        guard previous.beats.count >= 2, next.beats.count >= 2, previous.bpm > 0, next.bpm > 0,
            let last = previous.beats.last
        else { return nil }
        let before = 60 / previous.bpm
        let after = 60 / next.bpm
        guard max(before, after) < trackerRange * min(before, after) else { return nil }
        let gap = next.firstBeat - last
        let tolerance = GridModelSelector.explainTolerance
        for intervals in 1...2 {
            let count = Double(intervals)
            if gap >= count * min(before, after) - tolerance, gap <= count * max(before, after) + tolerance {
                return nil
            }
        }
        let fraction = (last + after - next.firstBeat) / after
        return fraction - fraction.rounded()
    }

    /// How much stronger `novelty` is at `beats` each moved `fraction` of its interval towards the next
    /// than at the beats themselves: a paired t statistic over the beats (``PairedT``, each read at
    /// its strongest within a hop); 0 for fewer than three beats.
    static func movedSupport(_ beats: [Double], by fraction: Double, novelty: Novelty) -> Double {
        guard beats.count >= 3 else { return 0 }
        let differences = zip(beats, beats.dropFirst()).map { beat, following in
            novelty.strongest(near: beat + fraction * (following - beat)) - novelty.strongest(near: beat)
        }
        return PairedT.of(differences)
    }

    /// `segments` (grid tempo segments, in time order) with each tempo change within the tracker's reach
    /// keeping the beat (``phaseJump(from:to:)``). Where two segments jump, the later one moves to
    /// continue the earlier — or, when the earlier is the first segment, the earlier one moves to
    /// continue the later, whichever the onsets support more — unless the onsets clearly say the
    /// segment's beats are where they are: moved, they would be weaker by a paired t statistic
    /// (``movedSupport(_:by:novelty:)``) of ``DrumDetector/minimumT`` or more, the margin the drum
    /// check asks before it moves beats. Returns the moved segments and whether any moved.
    func continuingTheBeat(
        _ segments: [FittedSegment], novelty: Novelty, duration: Double
    ) -> (segments: [FittedSegment], moved: Bool) {
        var current = segments
        var moved = false
        var index = 1
        while index < current.count {
            defer { index += 1 }
            guard let jump = Self.phaseJump(from: current[index - 1], to: current[index]) else { continue }
            let support = Self.movedSupport(current[index].beats, by: jump, novelty: novelty)
            var best = (index: index, fraction: jump, support: support)
            if index == 1, let first = current[1].beats.first, let last = current[0].beats.last {
                let before = 60 / current[0].bpm
                let back = (first - before - last) / before
                let fraction = back - back.rounded()
                let support = Self.movedSupport(current[0].beats, by: fraction, novelty: novelty)
                if support > best.support { best = (0, fraction, support) }
            }
            guard best.support > -DrumDetector.minimumT else { continue }
            let fractions = current.indices.map { $0 == best.index ? best.fraction : nil }
            // The earlier segment loses a beat the move brings within a third of a beat of the later
            // one's first (``shifted(_:by:duration:)``): a later segment under half a beat after it
            // moves back onto its last beat, which then starts the later segment.
            current = Self.shifted(current, by: fractions, duration: duration)
            moved = true
        }
        return (current, moved)
    }
}
