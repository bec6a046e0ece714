// SPDX-License-Identifier: GPL-3.0-or-later

public import Foundation

/// A map after an edit, with what the edit changed.
public struct EditedMap: Sendable, Equatable {
    /// The edited map.
    public var map: BeatMap
    /// What changed, one sentence each (empty when the edit changed nothing).
    public var changes: [String]
}

/// The map edits a mapper needs, as pure functions on ``BeatMap``: nudge, metric level, a shift by a
/// fraction of a beat, meter, bar phase, trim and a tapped tempo (``BeatMapEdit``). `beatmap edit`, the
/// studio's page and `preview`'s save all go through ``apply(_:to:)``; writing the result is
/// ``MapFileSaver``'s.
///
/// Edits need the beats finite and increasing (what `validate` asks of every map). Times the edits
/// compute are rounded to microseconds, as the file format writes them.
public enum BeatMapEditor {
    /// The tempo edits accept: the validator's range.
    public static let bpmRange = 20.0...400.0
    /// Beats per bar an edit may set.
    public static let beatsPerBarRange = 1...64

    /// `time`, a point an edit computed on a grid, or the beat of `beats` (increasing) within 2 µs of
    /// it: the same point, each written to the microsecond (each rounded by up to half a microsecond,
    /// and a grid's beat length from a tempo rounded to six decimals). A segment anchored a
    /// microsecond after its first beat would leave that beat in the segment before.
    static func onItsBeat(_ time: Double, beats: [Double]) -> Double {
        let nearest = SortedSearch.nearest(beats, time)
        guard beats.indices.contains(nearest.index), nearest.distance <= 2e-6 else { return time }
        return beats[nearest.index]
    }

    /// `map` with `edit` made, and what changed.
    public static func apply(_ edit: BeatMapEdit, to map: BeatMap) throws(BeatMapEditError) -> EditedMap {
        guard zip(map.beats.dropFirst(), map.beats).allSatisfy({ $0 > $1 }), map.beats.allSatisfy(\.isFinite) else {
            throw .wouldBreak("the map's beats are not finite and increasing; fix them first (`validate` lists where)")
        }
        var edited: BeatMap
        switch edit {
        case .nudge(let seconds):
            guard seconds.isFinite, abs(seconds) <= map.audio.duration else {
                throw .invalidValue("a nudge must be a finite time within the track's duration")
            }
            edited = nudged(map, by: seconds)
            guard edited.beats.count >= min(2, map.beats.count) else {
                throw .wouldBreak("the nudge would leave fewer than two beats inside the track")
            }
        case .metricLevel(let level):
            edited = try MetricSwitch.switched(map, to: level)
        case .shiftBeats(let fraction):
            edited = try shifted(map, byFraction: fraction)
        case .beatsPerBar(let perBar, let choice):
            guard beatsPerBarRange.contains(perBar) else {
                throw .invalidValue(
                    "beats per bar must be from \(beatsPerBarRange.lowerBound) to \(beatsPerBarRange.upperBound)")
            }
            edited = try BarEditing.withMeter(map, perBar, segment: choice)
        case .shiftBars(let beats, let choice):
            edited = try BarEditing.shifted(map, by: beats, segment: choice)
        case .trim(let from, let to):
            edited = try trimmed(map, from: from, to: to)
        case .tempo(let bpm, let anchor):
            edited = try retimed(map, bpm: bpm, anchor: anchor)
        }
        return EditedMap(map: edited, changes: EditChanges.describe(edit, from: map, to: edited))
    }

    /// `map` with every beat and tempo anchor moved by `offset` seconds (rounded to microseconds).
    /// Beats moved outside the track (before 0 s or past its end) are dropped, as ``BeatMapEdit/shiftBeats(fraction:)``
    /// drops them; an anchor moved before 0 s goes on by whole bars (or beats) to the first point inside
    /// it, and a segment left with no beats of its own goes.
    public static func nudged(_ map: BeatMap, by offset: TimeInterval) -> BeatMap {
        var moved = map
        let duration = map.audio.duration
        moved.beats = map.beats.map { NumberFormatting.roundedToMicroseconds($0 + offset) }
            .filter { $0 >= 0 && $0 <= duration }
        if let segments = map.tempo {
            moved.tempo = carried(segments, to: { $0.time + offset }, beats: moved.beats, duration: duration)
        }
        return moved
    }

    /// `segments` with each anchor moved to `time(segment)`, kept inside the track as the beats are: an
    /// anchor before 0 s goes on by whole bars of its segment (whole beats without a meter) to the first
    /// point inside it; an anchor past the end is dropped (unless it is the first); and while the first
    /// segment has none of `beats` before the next anchor (a followed map's first beat moved out of the
    /// track, an anchor carried past the next one), the next segment starts the map.
    static func carried(
        _ segments: [TempoSegment], to time: (TempoSegment) -> Double, beats: [Double], duration: Double
    ) -> [TempoSegment] {
        var result: [TempoSegment] = []
        for var segment in segments {
            var moved = time(segment)
            let step = segment.beatLength * Double(segment.beatsPerBar ?? 1)
            // Counted, not stepped: an imported chart's anchor can lie 10^17 s before the track.
            if moved < 0, moved.isFinite, step > 0, step.isFinite {
                moved += (-moved / step).rounded(.up) * step
                if moved < 0 { moved += step }  // rounding left it a hair before 0 s
            }
            segment.time = NumberFormatting.roundedToMicroseconds(moved)
            guard segment.time <= duration || result.isEmpty else { continue }
            result.append(segment)
        }
        while result.count >= 2, result[0].time >= result[1].time || !beats.contains(where: { $0 < result[1].time }) {
            result.removeFirst()
        }
        return result
    }

    /// `map` with every beat moved by `fraction` of its own beat: the length of a beat of its tempo
    /// segment, or without a tempo map the interval to the next beat (the one before, for the last).
    /// Each tempo anchor moves by the same fraction of its own beat, so a grid's beats stay on its grid
    /// and a followed map's anchors on their beats; bars move with their beats (an anchor moved before
    /// the track's start goes on by whole bars, or beats, to the first inside it, and its segment is
    /// dropped when no beat is left before the next anchor). Beats moved outside the track (before 0 s,
    /// or at or after its end, where nothing sounds after them) are dropped, and anchors past its end
    /// with them.
    static func shifted(_ map: BeatMap, byFraction fraction: Double) throws(BeatMapEditError) -> BeatMap {
        guard fraction.isFinite, fraction != 0, abs(fraction) < 1 else {
            throw .invalidValue("a beat shift must be a fraction of a beat between -1 and 1, and not 0")
        }
        let beats = map.beats
        guard beats.count >= 2 else { throw .wouldBreak("the map needs two beats to know how long its beat is") }
        let duration = map.audio.duration
        let grid = map.tempo.flatMap(TempoGrid.init(segments:))
        func length(at index: Int) -> TimeInterval {
            if let grid { return grid.beatLength(at: beats[index]) }
            return index + 1 < beats.count ? beats[index + 1] - beats[index] : beats[index] - beats[index - 1]
        }
        let moved = beats.indices.map { NumberFormatting.roundedToMicroseconds(beats[$0] + fraction * length(at: $0)) }
            .filter { $0 >= 0 && $0 < duration }
        guard moved.count >= 2 else { throw .wouldBreak("the shift would leave fewer than two beats inside the track") }
        guard zip(moved.dropFirst(), moved).allSatisfy({ $0 > $1 }) else {
            throw .wouldBreak("the shift would put beats out of order where the tempo changes")
        }
        var edited = map
        edited.beats = moved
        if let segments = grid?.segments {
            let shifted = carried(
                segments, to: { $0.time + fraction * $0.beatLength }, beats: moved, duration: duration)
            guard zip(shifted.dropFirst(), shifted).allSatisfy({ $0.time > $1.time }) else {
                throw .wouldBreak("the shift would put tempo segments out of order")
            }
            edited.tempo = shifted
        }
        return edited
    }

    /// The beats from `from` to `to`; the tempo segments that cover them, the first one keeping the bars
    /// it had (when it counted on from an earlier segment, it gets that segment's beats per bar and its
    /// first downbeat as anchor).
    static func trimmed(_ map: BeatMap, from: TimeInterval, to: TimeInterval) throws(BeatMapEditError) -> BeatMap {
        guard from.isFinite, to.isFinite, from >= 0, from < to else {
            throw .invalidValue("the trim needs a start ≥ 0 s before its end")
        }
        let positions = BarPositions.positions(of: map)
        let kept = map.beats.indices.filter { map.beats[$0] >= from && map.beats[$0] <= to }
        guard kept.count >= 2 else { throw .wouldBreak("the trim would leave fewer than two beats") }
        var edited = map
        edited.beats = kept.map { map.beats[$0] }
        guard let segments = map.tempo, let grid = TempoGrid(segments: segments) else { return edited }
        let firstBeat = edited.beats[0]
        let lastBeat = edited.beats[edited.beats.count - 1]
        let firstIndex = grid.segmentIndex(at: firstBeat)
        let lastIndex = grid.segmentIndex(at: lastBeat)
        var segmentsKept = Array(grid.segments[firstIndex...lastIndex])
        if segmentsKept[0].beatsPerBar == nil,
            let meter = grid.segments[...firstIndex].last(where: { $0.beatsPerBar != nil })?
                .beatsPerBar
        {
            // The first kept segment counted on from an earlier one: anchor it on its first downbeat.
            let end = firstIndex + 1 < grid.segments.count ? grid.segments[firstIndex + 1].time : .infinity
            if let downbeat = kept.first(where: { positions[$0] == 1 && map.beats[$0] < end }) {
                segmentsKept[0].time = map.beats[downbeat]
                segmentsKept[0].beatsPerBar = meter
            }
        }
        edited.tempo = segmentsKept
        return edited
    }

    /// The tempo at `anchor` laid out again: its beats replaced by a grid of `bpm` through `anchor`.
    /// The tempo there is the segment at `anchor`, or, when that segment is one of a run of segments
    /// each shorter than a bar (a tempo followed beat by beat, ``TempoStretch``), the whole run, which
    /// becomes one segment. The span is the same: from its first anchor (the track's start for the
    /// first segment, or a map without a tempo map) to the next segment, or for the last tempo to its
    /// last beat, within half a new beat (where `analyze` found the music's end; the track's end when
    /// it has no beats). The new segment's anchor is the first new beat (the grid point nearest the old
    /// anchor, or the run's first downbeat, for the map's first segment); it keeps the segment's beats
    /// per bar (a run's first).
    static func retimed(_ map: BeatMap, bpm: Double, anchor: TimeInterval) throws(BeatMapEditError) -> BeatMap {
        guard bpm.isFinite, bpmRange.contains(bpm) else {
            throw .invalidValue("the tempo must be from \(Int(bpmRange.lowerBound)) to \(Int(bpmRange.upperBound)) BPM")
        }
        guard anchor.isFinite, anchor >= 0, anchor <= map.audio.duration else {
            throw .invalidValue("the tempo's anchor must be inside the track")
        }
        let length = 60 / bpm
        let grid = map.tempo.flatMap(TempoGrid.init(segments:))
        let segments = grid?.segments ?? []
        let index = grid?.segmentIndex(at: anchor) ?? 0
        let run = grid.map { TempoStretch.run(containing: index, of: $0, beats: map.beats) } ?? index...index
        let spanStart = run.lowerBound > 0 ? segments[run.lowerBound].time : 0
        var spanEnd = run.upperBound + 1 < segments.count ? segments[run.upperBound + 1].time : map.audio.duration
        if run.upperBound + 1 >= segments.count, let last = map.beats.last(where: { $0.isFinite && $0 >= spanStart }) {
            // The last tempo's new beats end where its beats did, not at the end of the file.
            spanEnd = min(spanEnd, last + length / 2)
        }
        let kept = map.beats.filter { $0 < spanStart || $0 >= spanEnd }
        var first = anchor - ((anchor - spanStart) / length).rounded(.down) * length
        if first < spanStart { first += length }
        var laid: [TimeInterval] = []
        var t = first
        while t < spanEnd - 1e-9, laid.count < 1_000_000 {
            laid.append(NumberFormatting.roundedToMicroseconds(t))
            t += length
        }
        guard let firstLaid = laid.first else {
            throw .wouldBreak("no beat of that tempo falls inside the segment")
        }
        var edited = map
        edited.beats = (kept + laid).sorted()
        if segments.isEmpty {
            edited.tempo = [TempoSegment(time: firstLaid, bpm: bpm)]
        } else {
            let members = segments[run]
            var segment = segments[run.lowerBound]
            let metered = members.first { $0.beatsPerBar != nil }
            let old = metered?.time ?? segment.time
            let nearest = laid.min { abs($0 - old) < abs($1 - old) } ?? firstLaid
            segment.time = run.lowerBound > 0 ? firstLaid : nearest
            segment.bpm = NumberFormatting.roundedToMicroseconds(bpm)
            segment.beatsPerBar = metered?.beatsPerBar
            edited.tempo = Array(segments[..<run.lowerBound]) + [segment] + Array(segments[(run.upperBound + 1)...])
        }
        return edited
    }
}
