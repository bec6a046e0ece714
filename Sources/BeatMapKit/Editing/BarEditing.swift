// SPDX-License-Identifier: GPL-3.0-or-later

import Foundation

/// Meter and bar-phase edits (``BeatMapEditor``'s `beatsPerBar` and `shiftBars`), written the way the
/// format defines bars (``BarPositions``): a segment with `beatsPerBar` has a downbeat at its `time`.
enum BarEditing {
    /// The segments `choice` names in `grid`, as indices (`nil`: the whole map). A time names the tempo
    /// playing then: its segment, or the whole run when that segment is one of a run of short ones
    /// (a tempo followed beat by beat, ``TempoStretch``), whose bars are one thing to a mapper.
    static func range(_ choice: SegmentChoice, in grid: TempoGrid, beats: [Double]) throws(BeatMapEditError)
        -> ClosedRange<Int>?
    {
        switch choice {
        case .all: return nil
        case .index(let index):
            guard grid.segments.indices.contains(index) else {
                throw .noSuchSegment(index: index, count: grid.segments.count)
            }
            return index...index
        case .at(let time):
            guard time.isFinite else { throw .invalidValue("the time must be a finite number of seconds") }
            return TempoStretch.run(containing: grid.segmentIndex(at: time), of: grid, beats: beats)
        }
    }

    /// The number of the first downbeat among the beats of segments `range` (``BarPositions``).
    static func firstDownbeat(of map: BeatMap, in range: ClosedRange<Int>, grid: TempoGrid, numbered: NumberedBeats)
        -> Int?
    {
        let positions = BarPositions.positions(of: map)
        return firstNumber(in: range, grid: grid, numbered: numbered) { positions[$0] == 1 }
    }

    /// The number of the first beat of segments `range`, or where the first segment's anchor falls.
    static func firstBeat(in range: ClosedRange<Int>, grid: TempoGrid, numbered: NumberedBeats) -> Int {
        firstNumber(in: range, grid: grid, numbered: numbered) { _ in true }
            ?? Int(numbered.number(at: grid.segments[range.lowerBound].time).rounded())
    }

    /// The number of the first beat of segments `range` whose index `accepts`.
    private static func firstNumber(
        in range: ClosedRange<Int>, grid: TempoGrid, numbered: NumberedBeats, where accepts: (Int) -> Bool
    ) -> Int? {
        for (index, time) in numbered.times.enumerated() where time.isFinite && accepts(index) {
            let segment = grid.segmentIndex(at: time)
            if segment > range.upperBound { break }
            if range.contains(segment) { return numbered.numbers[index] }
        }
        return nil
    }

    /// The map's tempo map, sorted, or an error saying what needs one.
    static func grid(_ map: BeatMap, for what: String) throws(BeatMapEditError) -> TempoGrid {
        guard let segments = map.tempo, let grid = TempoGrid(segments: segments) else { throw .noTempoMap(what) }
        return grid
    }

    /// Bars of `perBar` beats: in the chosen segment (its anchor becomes a downbeat), or over the whole
    /// map from its first downbeat (from the first segment's anchor when it has none).
    static func withMeter(_ map: BeatMap, _ perBar: Int, segment choice: SegmentChoice) throws(BeatMapEditError)
        -> BeatMap
    {
        let grid = try grid(map, for: "it has no bars to set")
        var edited = map
        let range = try range(choice, in: grid, beats: map.beats)
        if let range, range.count == 1 {
            edited.tempo = grid.segments
            edited.tempo?[range.lowerBound].beatsPerBar = perBar
            return edited
        }
        let numbered = NumberedBeats(map)
        guard !numbered.times.isEmpty else { throw .wouldBreak("the map has no beats to lay bars over") }
        let downbeat: Int
        if let range {
            // A run of short segments: bars from its first downbeat, or from its first beat.
            downbeat =
                firstDownbeat(of: map, in: range, grid: grid, numbered: numbered)
                ?? firstBeat(in: range, grid: grid, numbered: numbered)
        } else {
            downbeat =
                numbered.firstDownbeat(of: map) ?? Int(numbered.number(at: grid.segments[0].time).rounded())
        }
        edited.tempo = try barred(grid.segments, numbered: numbered, perBar: perBar, downbeat: downbeat, within: range)
        return edited
    }

    /// Bar lines `beats` whole beats later (earlier when negative): in the chosen segment (its anchor
    /// moves along its grid, the other way round the bar when the requested way would leave the
    /// segment; for a segment that counts its bars on from an earlier one, that one's anchor), in the
    /// chosen run, or over the whole map (every bar, laid out again from the moved first downbeat).
    static func shifted(_ map: BeatMap, by beats: Int, segment choice: SegmentChoice) throws(BeatMapEditError)
        -> BeatMap
    {
        let grid = try grid(map, for: "it has no bar lines to move")
        let range = try range(choice, in: grid, beats: map.beats)
        if let chosen = range, chosen.count == 1 {
            // A segment whose bars count on from an earlier one (it starts inside a bar, so the format
            // cannot give it a meter of its own): its bar lines are that segment's, and move with them.
            let index =
                grid.segments[chosen.lowerBound].beatsPerBar == nil
                ? grid.segments[..<chosen.lowerBound].lastIndex { $0.beatsPerBar != nil } ?? chosen.lowerBound
                : chosen.lowerBound
            return try shifted(map, grid, segment: index, by: beats)
        }
        let chosen = range.map { Array(grid.segments[$0]) } ?? grid.segments
        var meters = Set(chosen.compactMap(\.beatsPerBar))
        if meters.isEmpty, let range,
            let counted = grid.segments[..<range.lowerBound].last(where: { $0.beatsPerBar != nil })?.beatsPerBar
        {
            // A run whose bars count on from the segment before it.
            meters = [counted]
        }
        let place = range == nil ? "" : " in the tempo at that time"
        guard let perBar = meters.first else { throw .noMeter("to move\(place): set the meter first") }
        guard meters.count == 1 else {
            throw .invalidValue(
                "the \(range == nil ? "map's segments" : "segments there") have different meters (\(meters.sorted().map(String.init).joined(separator: ", "))); move the bars of one segment"
            )
        }
        let numbered = NumberedBeats(map)
        let first =
            range.map { firstDownbeat(of: map, in: $0, grid: grid, numbered: numbered) }
            ?? numbered.firstDownbeat(of: map)
        guard let downbeat = first else { throw .noMeter("to move\(place): set the meter first") }
        guard beats % perBar != 0 else { return map }
        var edited = map
        edited.tempo = try barred(
            grid.segments, numbered: numbered, perBar: perBar, downbeat: downbeat + beats, within: range)
        return edited
    }

    /// ``laidOut(_:numbered:perBar:downbeat:within:)``, or an error when no segment can carry the bars
    /// (none anchored on a downbeat, and the first too short to anchor on one of its own).
    static func barred(
        _ segments: [TempoSegment], numbered: NumberedBeats, perBar: Int, downbeat: Int,
        within range: ClosedRange<Int>? = nil
    ) throws(BeatMapEditError) -> [TempoSegment] {
        let result = laidOut(segments, numbered: numbered, perBar: perBar, downbeat: downbeat, within: range)
        let laid = range.map { Array(result[$0]) } ?? result
        guard laid.contains(where: { $0.beatsPerBar != nil }) else {
            throw .wouldBreak(
                "no tempo segment would start on a downbeat, so the map could not say where its bars are; set the meter of one segment instead"
            )
        }
        return result
    }

    /// Segment `index`'s bar lines `beats` later (modulo its bar): its anchor moved along its grid by
    /// that much, or the other way round the bar, when that keeps the anchor inside the segment and the
    /// beats it hands to the neighbouring segment on that segment's grid (``handsBeatsOnGrid``).
    /// Otherwise the tempo change stays where it is: the segment gives up its meter and counts its
    /// first beats on from the segment before, and a segment of its own tempo and meter starts at its
    /// first downbeat after the move (how an osu! mapper moves a measure: a new timing point, the same
    /// tempo). Until session 100 such a move was made and then refused as invalid: a beat handed from
    /// a segment at 90 BPM to one at 150 lay 6 to 207 ms off the other's grid (4 of 660 corpus maps).
    static func shifted(_ map: BeatMap, _ grid: TempoGrid, segment index: Int, by beats: Int) throws(BeatMapEditError)
        -> BeatMap
    {
        let segment = grid.segments[index]
        guard let perBar = segment.beatsPerBar, perBar > 0 else {
            throw .noMeter("in \(Describe.segment(index)), so it has no bar lines to move")
        }
        let step = beats % perBar
        guard step != 0 else { return map }
        let lower = index > 0 ? grid.segments[index - 1].time : -Double.infinity
        let upper = index + 1 < grid.segments.count ? grid.segments[index + 1].time : map.audio.duration
        for candidate in [step, step > 0 ? step - perBar : step + perBar] {
            let moved = NumberFormatting.roundedToMicroseconds(segment.time + Double(candidate) * segment.beatLength)
            if moved > lower, moved < upper, moved >= 0, handsBeatsOnGrid(map.beats, grid, index, to: moved) {
                var edited = map
                edited.tempo = grid.segments
                edited.tempo?[index].time = moved
                return edited
            }
        }
        // The first downbeat after the move, a point of the segment's grid after its anchor; the new
        // segment starts on the beat there (the same point, written to the microsecond).
        let offset = (step + perBar) % perBar
        let point = segment.time + Double(offset) * segment.beatLength
        let start = NumberFormatting.roundedToMicroseconds(BeatMapEditor.onItsBeat(point, beats: map.beats))
        guard start < upper - 1e-6 else {
            throw .wouldBreak("\(Describe.segment(index)) is too short to move its bar lines")
        }
        var tempo = grid.segments
        tempo[index].beatsPerBar = nil
        tempo.insert(TempoSegment(time: start, bpm: segment.bpm, beatsPerBar: perBar), at: index + 1)
        var edited = map
        edited.tempo = tempo
        return edited
    }

    /// Whether moving segment `index`'s anchor to `time` hands the beats between to a segment whose grid
    /// they lie on: each beat that changes segment lies within the validator's default grid tolerance
    /// (5 ms) of its new segment's grid, or no further from it than from its old one.
    static func handsBeatsOnGrid(_ beats: [Double], _ grid: TempoGrid, _ index: Int, to time: Double) -> Bool {
        var moved = grid.segments
        moved[index].time = time
        guard let after = TempoGrid(segments: moved) else { return false }
        let tolerance = ValidationConfiguration().gridTolerance
        let (low, high) = (min(time, grid.segments[index].time), max(time, grid.segments[index].time))
        for beat in beats where beat >= low - 1e-6 && beat <= high + 1e-6 {
            let old = grid.segmentIndex(at: beat)
            let new = after.segmentIndex(at: beat)
            guard old != new else { continue }
            let before = abs(grid.nearestPoint(to: beat, inSegment: old, subdivision: 1).error)
            let now = abs(after.nearestPoint(to: beat, inSegment: new, subdivision: 1).error)
            if now > max(tolerance, before) + 1e-9 { return false }
        }
        return true
    }

    /// `segments` (those of `range` only, when given; the rest unchanged) with bars of `perBar` beats
    /// whose downbeats are the beats numbered `downbeat` + k ·
    /// `perBar`: the first segment anchored on its first downbeat (or the downbeat its grid puts before
    /// its first beat, when it has none; with none before 0 s nor inside it, the first segment gets no
    /// bars), a later one given `perBar` when its anchor is a downbeat beat and none otherwise (it
    /// counts on).
    static func laidOut(
        _ segments: [TempoSegment], numbered: NumberedBeats, perBar: Int, downbeat: Int,
        within range: ClosedRange<Int>? = nil
    ) -> [TempoSegment] {
        func isDownbeat(_ index: Int) -> Bool {
            let offset = numbered.numbers[index] - downbeat
            return (offset % perBar + perBar) % perBar == 0
        }
        var result = segments
        let times = numbered.times
        for index in range.map({ Array($0) }) ?? Array(result.indices) {
            let start = index == 0 ? -Double.infinity : segments[index].time - 1e-6
            let end = index + 1 < segments.count ? segments[index + 1].time - 1e-6 : Double.infinity
            let first = SortedSearch.lowerBound(times, start)
            let inside = (first..<SortedSearch.lowerBound(times, end))
            if index == 0 {
                if let beat = inside.first(where: isDownbeat) {
                    result[0].time = times[beat]
                } else if let beat = inside.first ?? times.indices.first {
                    // No downbeat among its beats: the one its grid puts before its first beat, or the
                    // one after it when that is before 0 s. When that one is not the segment's either
                    // (a followed map, a segment a beat long), the segment has no bars: they start at
                    // the first later segment anchored on a downbeat, as `analyze` lays them out.
                    let offset = ((numbered.numbers[beat] - downbeat) % perBar + perBar) % perBar
                    var time = times[beat] - Double(offset) * segments[0].beatLength
                    if time < 0 { time += Double(perBar) * segments[0].beatLength }
                    let next = segments.count > 1 ? segments[1].time : Double.infinity
                    guard time < next - 1e-6 else {
                        result[0].beatsPerBar = nil
                        continue
                    }
                    result[0].time = NumberFormatting.roundedToMicroseconds(time)
                }
                result[0].beatsPerBar = perBar
            } else if let beat = inside.first, abs(times[beat] - segments[index].time) < 0.001, isDownbeat(beat) {
                result[index].beatsPerBar = perBar
            } else {
                result[index].beatsPerBar = nil
            }
        }
        return result
    }
}
