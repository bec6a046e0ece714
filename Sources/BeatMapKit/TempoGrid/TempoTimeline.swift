// SPDX-License-Identifier: GPL-3.0-or-later

import Foundation

/// Beat number ↔ time on a piecewise-constant tempo, as the tempo-map formats define it.
struct TempoTimeline: Sendable {
    /// Where a tempo starts: from `beat` (at `time`) on, each beat lasts `secondsPerBeat`.
    struct Breakpoint: Sendable, Equatable {
        var beat: Double
        var time: Double
        var secondsPerBeat: Double
    }

    /// Sorted by beat; at least one. Beats before the first follow the first tempo.
    let points: [Breakpoint]

    /// A timeline from tempo changes `(beat, seconds per beat)` sorted by beat, with `beat0` at `time0`.
    /// Beats before the first change follow the first tempo.
    init?(changes: [(beat: Double, secondsPerBeat: Double)], beat0: Double, time0: Double) {
        guard !changes.isEmpty, changes.allSatisfy({ $0.secondsPerBeat > 0 && $0.secondsPerBeat.isFinite }) else {
            return nil
        }
        var raw: [Breakpoint] = []
        var time = 0.0
        for (index, change) in changes.enumerated() {
            if index > 0 { time += (change.beat - changes[index - 1].beat) * changes[index - 1].secondsPerBeat }
            raw.append(Breakpoint(beat: change.beat, time: time, secondsPerBeat: change.secondsPerBeat))
        }
        let unshifted = TempoTimeline(uncheckedPoints: raw)
        let shift = time0 - unshifted.time(ofBeat: beat0)
        points = raw.map { Breakpoint(beat: $0.beat, time: $0.time + shift, secondsPerBeat: $0.secondsPerBeat) }
    }

    private init(uncheckedPoints: [Breakpoint]) { points = uncheckedPoints }

    /// A timeline through explicit breakpoints (sorted by beat).
    init?(points: [Breakpoint]) {
        guard !points.isEmpty, points.allSatisfy({ $0.secondsPerBeat > 0 && $0.secondsPerBeat.isFinite }) else {
            return nil
        }
        self.points = points
    }

    private func index(ofBeat beat: Double) -> Int {
        SortedSearch.lastIndex(in: points, atOrBefore: beat) { $0.beat }
    }

    /// The time of `beat`.
    func time(ofBeat beat: Double) -> Double {
        let point = points[index(ofBeat: beat)]
        return point.time + (beat - point.beat) * point.secondsPerBeat
    }

    /// The beat at time `t` (the inverse of ``time(ofBeat:)``).
    func beat(atTime t: Double) -> Double {
        let point = points[SortedSearch.lastIndex(in: points, atOrBefore: t) { $0.time }]
        return point.beat + (t - point.time) / point.secondsPerBeat
    }

    /// Tempo segments of a beat map: one per tempo change, anchored at the change's first whole beat when
    /// that beat lies inside the change's stretch (else at the change itself). Equal neighbours merge.
    func segments(timeOfBeat: ((Double) -> Double)? = nil, beatsPerBar: (Double) -> Int? = { _ in nil })
        -> [TempoSegment]
    {
        var segments: [TempoSegment] = []
        for (index, point) in points.enumerated() {
            let bpm = 60 / point.secondsPerBeat
            let perBar = beatsPerBar(point.beat)
            if let last = segments.last, abs(last.bpm - bpm) < 1e-9, last.beatsPerBar == perBar { continue }
            let whole = point.beat.rounded(.up)
            let end = index + 1 < points.count ? points[index + 1].beat : Double.infinity
            let anchorBeat = whole < end ? whole : point.beat
            let anchor = timeOfBeat?(anchorBeat) ?? point.time + (anchorBeat - point.beat) * point.secondsPerBeat
            segments.append(
                TempoSegment(time: NumberFormatting.roundedToMicroseconds(anchor), bpm: bpm, beatsPerBar: perBar))
        }
        return segments
    }
}
