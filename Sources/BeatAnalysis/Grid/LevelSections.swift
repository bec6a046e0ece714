// SPDX-License-Identifier: GPL-3.0-or-later

import BeatMapKit
import Foundation

// Followed beats that the tracker took at another pulse for a section: a dotted rhythm (three of its
// beats against four of the music's) holds it for a while, and it comes back.
extension GridFitter {
    /// Intervals either side of a beat that give the local tempo (``localIntervals(_:radius:)``): two
    /// bars of 4/4.
    static let sectionContext = 8
    /// The tempo ratios a section at another pulse runs at against the song's pulse: the only
    /// metrical ratios within the tracker's 30 % (``trackBeats(novelty:peaks:period:span:range:)``).
    static let sectionRatios: [Double] = [4.0 / 3.0, 0.75]
    /// How close (in log ratio) the two local tempi must come to one of ``sectionRatios``.
    static let sectionRatioTolerance = 0.04

    /// `tracked` with the sections the tracker took at another pulse replaced by the beats of a
    /// tracker held at the song's pulse.
    ///
    /// The tracker's tempi may wander 30 % from the song's, so that a drift, a ramp or a step can be
    /// followed; within that range the only metrical ratios are 4⁄3 and ¾, and a dotted figure (three
    /// of its beats against four of the music's) can hold it there for a while. A tracker held within
    /// √(4⁄3) of the followed beats' median tempo (``sameLevelRatio``, halfway in log tempo to the
    /// nearest other level) cannot be at another pulse; where the followed beats' local tempo (from the
    /// ``sectionContext`` intervals either side, ``localIntervals(_:radius:)``) runs at 4⁄3 or ¾ of the held beats' at
    /// the same time, within 4 %, for at least ``sectionContext`` beats, and the held beats there lie
    /// on an onset at least as often as the followed ones, the followed beats took another pulse, and
    /// the held beats replace them. A song whose tempo really changes by 4⁄3 keeps its beats: the
    /// held tracker, which cannot reach the new tempo, finds an onset under only one beat in three
    /// there. Elsewhere the two trackers agree or the held one cannot follow (a tempo that moves by
    /// more than √(4⁄3)), and the followed beats stay. The fitter reads the kick along the beats
    /// afterwards (``onTheKick(tracked:lowBand:)``): the held tracker chose its own phase.
    func repairingLevelSections(
        _ tracked: [Double], novelty: Novelty, peaks: [OnsetPeak], span: ClosedRange<Double>,
        regions: [TempoRegion] = []
    ) -> [Double] {
        let context = Self.sectionContext
        guard tracked.count >= 6 * context else { return tracked }
        let held = trackBeats(
            novelty: novelty, peaks: peaks, period: BeatSequence(beats: tracked).medianInterval, span: span,
            range: Self.sameLevelRatio, regions: regions)
        guard held.count >= 2 * context else { return tracked }
        func localTempo(_ beats: [Double]) -> [Double] {
            Self.localIntervals(zip(beats.dropFirst(), beats).map { $0 - $1 }, radius: context)
        }
        let followedLocal = localTempo(tracked)
        let heldLocal = localTempo(held)
        // The held beats' local interval at `time`: the one from the last held beat at or before it
        // (the first interval before the first held beat).
        func heldInterval(at time: Double) -> Double {
            heldLocal[SortedSearch.lastIndex(in: held[..<heldLocal.count], atOrBefore: time) { $0 }]
        }
        // Each followed beat is marked where its local interval is at a section ratio of the held
        // beats' local interval at the same time.
        let marked = followedLocal.indices.map { index in
            let ratio = heldInterval(at: tracked[index]) / followedLocal[index]
            return Self.sectionRatios.contains { abs(log(ratio / $0)) < Self.sectionRatioTolerance }
        }
        // Runs of at least `context` marked beats are sections, from the run's first beat to the beat
        // after its last.
        var sections: [ClosedRange<Double>] = []
        var start = 0
        while start < marked.count {
            guard marked[start] else {
                start += 1
                continue
            }
            var end = start
            while end < marked.count, marked[end] { end += 1 }
            if end - start >= context { sections.append(tracked[start]...tracked[end]) }
            start = end
        }
        let matcher = PeakMatcher(peaks: peaks)
        let tolerance = GridModelSelector.explainTolerance
        let replaced = sections.filter { section in
            let old = tracked.filter { section.contains($0) }
            let new = held.filter { section.contains($0) }
            return matchedFraction(new, matcher: matcher, tolerance: tolerance)
                >= matchedFraction(old, matcher: matcher, tolerance: tolerance)
        }
        guard !replaced.isEmpty else { return tracked }
        func inside(_ time: Double) -> Bool { replaced.contains { $0.contains(time) } }
        let merged = (tracked.filter { !inside($0) } + held.filter(inside)).sorted()
        // At a section's edges, of two beats closer than half a beat the followed one is kept; a gap
        // of over one and a half beats gets beats evenly spaced across it. A beat is the held beats'
        // local interval there: inside a tempo region the song's median interval is not the beat.
        var result: [Double] = []
        result.reserveCapacity(merged.count + 4)
        for beat in merged {
            let interval = heldInterval(at: beat)
            if let last = result.last {
                let gap = beat - last
                if gap < 0.5 * interval {
                    if inside(beat) { continue }
                    result.removeLast()
                } else if gap > 1.5 * interval {
                    let missing = Int((gap / interval).rounded()) - 1
                    for k in 0..<max(0, missing) {
                        result.append(last + gap * Double(k + 1) / Double(missing + 1))
                    }
                }
            }
            result.append(beat)
        }
        return result
    }
}

extension GridFitter {
    /// `tracked` (beats tracked from `period`), or the beats of a tracker held at `period`'s level when
    /// the tracker left that level for the pulse 4⁄3 or ¾ from it and the held beats stand out more.
    ///
    /// The level was chosen before the tracking (the whole-song estimate and its level rules, or
    /// ``levelChange(_:novelty:lowBand:)`` along beats already tracked); the tracker's 30 % are there
    /// to follow a drift, a ramp or a step, not to choose another level. But 4⁄3 lies just beyond its
    /// reach, within a frame of its fastest tempo, and a dotted figure (three rows of a tracker module,
    /// three sixteenths: a beat of 4⁄3) can draw it there for a whole song, where
    /// ``repairingLevelSections(_:novelty:peaks:span:regions:)``, which reads sections against the
    /// song's own median, finds none. So where the tracked beats' median tempo lies at 4⁄3 or ¾ of the
    /// level they were tracked from (``sectionRatios``, within ``sectionRatioTolerance``), a tracker
    /// held within ``sameLevelRatio`` of that level is run too, and the two compete as the other
    /// readings of a song's beats do: the beats that stand out more (``trackedScore(_:novelty:span:)``,
    /// step 9's salience) are kept. A song really at 4⁄3 of the level chosen keeps its beats: held at
    /// that level, the tracker's beats fall between its onsets two times in three.
    func heldAtItsLevel(
        _ tracked: [Double], period: Double, _ context: TrackingContext, regions: [TempoRegion]
    ) -> [Double] {
        let interval = BeatSequence(beats: tracked).medianInterval
        guard interval > 0, tracked.count >= 2 * Self.sectionContext else { return tracked }
        let ratio = period / interval
        guard Self.sectionRatios.contains(where: { abs(log(ratio / $0)) < Self.sectionRatioTolerance }) else {
            return tracked
        }
        let held = trackBeats(
            novelty: context.novelty, peaks: context.peaks, period: period, span: context.span,
            range: Self.sameLevelRatio, regions: regions)
        guard held.count >= 2 * Self.sectionContext else { return tracked }
        let heldSalience = trackedScore(held, novelty: context.novelty, span: context.span)
        let trackedSalience = trackedScore(tracked, novelty: context.novelty, span: context.span)
        return heldSalience > trackedSalience ? held : tracked
    }
}
