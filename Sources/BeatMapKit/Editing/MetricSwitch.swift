// SPDX-License-Identifier: GPL-3.0-or-later

import Foundation

/// A map's beats with a whole beat number each (consecutive beats differ by one, or by more across a
/// gap of missing beats: ``BeatGridFit``'s numbering, guided by the tempo map), so that an edit can name
/// a point between beats: number `n + f` lies the fraction `f` of the way from beat `n` to beat `n + 1`.
struct NumberedBeats {
    /// The beats, increasing.
    let times: [Double]
    /// Their numbers.
    let numbers: [Int]
    /// The tempo map, if the map has one.
    let grid: TempoGrid?
    private let indexOfNumber: [Int: Int]

    init(_ map: BeatMap) {
        times = map.beats
        grid = map.tempo.flatMap { TempoGrid(segments: $0.filter { $0.bpm.isFinite && $0.bpm > 0 }) }
        numbers = BeatGridFit.number(times, grid: grid)
        var lookup: [Int: Int] = [:]
        for (index, number) in numbers.enumerated() { lookup[number] = index }
        indexOfNumber = lookup
    }

    /// The index of the beat numbered `number`, if the map has it.
    func index(ofNumber number: Int) -> Int? { indexOfNumber[number] }

    /// Seconds per beat at beat `index`: the tempo map's, or the interval to the neighbouring beat.
    func beatLength(at index: Int) -> Double {
        if let grid { return grid.beatLength(at: times[index]) }
        if index + 1 < times.count {
            return (times[index + 1] - times[index]) / Double(numbers[index + 1] - numbers[index])
        }
        if index > 0 { return (times[index] - times[index - 1]) / Double(numbers[index] - numbers[index - 1]) }
        return 0.5
    }

    /// The time of beat number `u` (whole or fractional) when both beats around it are in the map,
    /// the fraction of the way between them; up to one beat beyond the first or last beat, extrapolated
    /// by the beat length there; else `nil` (inside a gap of missing beats).
    func time(at u: Double) -> Double? {
        guard let first = numbers.first, let last = numbers.last else { return nil }
        let whole = u.rounded(.down)
        let fraction = u - whole
        if u < Double(first) {
            guard Double(first) - u <= 1 else { return nil }
            return times[0] - (Double(first) - u) * beatLength(at: 0)
        }
        if u > Double(last) {
            guard u - Double(last) <= 1 else { return nil }
            return times[times.count - 1] + (u - Double(last)) * beatLength(at: times.count - 1)
        }
        guard let low = index(ofNumber: Int(whole)) else { return nil }
        if fraction < 1e-9 { return times[low] }
        guard let high = index(ofNumber: Int(whole) + 1) else { return nil }
        return times[low] + fraction * (times[high] - times[low])
    }

    /// The beat number at time `t` on the grid of the beat nearest it.
    func number(at t: Double) -> Double {
        let nearest = SortedSearch.nearest(times, t).index
        let length = beatLength(at: nearest)
        return Double(numbers[nearest]) + (t - times[nearest]) / (length > 0 ? length : 0.5)
    }

    /// The number of the map's first downbeat (a beat whose bar position is 1), if it gives bars.
    func firstDownbeat(of map: BeatMap) -> Int? {
        BarPositions.positions(of: map).firstIndex { $0 == 1 }.map { numbers[$0] }
    }
}

/// Switching a map to another metric level (``BeatMapEditor``'s `metricLevel`).
///
/// The new beats lie every ``MetricLevel/spacing`` of the old ones, counted from the first downbeat (or
/// the first beat when the map gives no bars), at the old beats or between them (interpolated, so a
/// map on a tempo grid stays on one): ×2 adds the midpoints, ½ keeps every other beat, ⅔ a beat every
/// 1½ and 3⁄2 one every ⅔. Each old beat lasts until the next, so going up a level (×2, 3⁄2) fills
/// the last beat too when that stays inside the music (`analysis.musicalSpan`, or the track): ½ then ×2
/// gives a map on a grid back exactly when its last beat is kept by ½ or lies inside the music. Tempo segments get the new tempo, their anchors
/// moved to the next point of the new level when they are not on one, and their beats per bar scaled
/// when the bar still holds a whole number of beats (a bar of 3 at ½ has none). When
/// `analysis.alternatives` has the level, its tempo and score become the analysis's and the old level
/// takes its place among the alternatives (as the inverse ratio), so switching back reads the same.
enum MetricSwitch {
    static func switched(_ map: BeatMap, to level: MetricLevel) throws(BeatMapEditError) -> BeatMap {
        guard map.beats.count >= 2 else { throw .wouldBreak("the map needs at least two beats to change level") }
        let numbered = NumberedBeats(map)
        let (p, q) = level.spacing
        let reference = numbered.firstDownbeat(of: map) ?? numbered.numbers[0]
        // New beats at reference + m·p/q, over the span the old beats cover: each beat lasts until the
        // next, so going up a level fills the last beat too.
        let span = musicalSpan(map)
        var beats: [Double] = []
        guard let firstNumber = numbered.numbers.first, let lastNumber = numbered.numbers.last else { return map }
        // The tempo segments at the new level first: a new beat between two old ones goes on the grid
        // of the segment it will fall in.
        let anchors = numbered.grid.map {
            Self.anchors($0.segments, numbered: numbered, reference: reference, level: level, map: map)
        }
        let lowest = Double(firstNumber)
        let highest = p < q ? Double(lastNumber) + 1 - 1e-6 : Double(lastNumber)
        var m = Int(((lowest - Double(reference)) * Double(q) / Double(p) - 1e-9).rounded(.up))
        while true {
            let u = Double(reference) + Double(m * p) / Double(q)
            if u > highest + 1e-9 { break }
            m += 1
            guard let time = Self.time(at: u, numbered: numbered, anchors: anchors) else { continue }
            if u > Double(lastNumber), time > span.upperBound { continue }
            beats.append(NumberFormatting.roundedToMicroseconds(time))
            if beats.count > 10_000_000 { throw .wouldBreak("the new level would have too many beats") }
        }
        guard beats.count >= 2 else { throw .wouldBreak("the new level would have fewer than two beats") }
        var edited = map
        edited.beats = beats
        if let anchors {
            var switched = anchors.map(\.segment)
            // A first segment that ends at or before the first beat holds none: the new level left out
            // a pickup, and its anchor went to the point before (session 100: 5 such segments in 2,088
            // metric edits of corpus maps). The next segment, which starts on or before the first beat,
            // governs it; one that gives a meter the next does not is kept, as the bars count from it.
            while switched.count > 1, let first = beats.first, switched[1].time <= first + 1e-9,
                switched[0].beatsPerBar == nil || switched[1].beatsPerBar != nil
            {
                switched.removeFirst()
            }
            if let index = switched.firstIndex(where: { !BeatMapEditor.bpmRange.contains($0.bpm) }) {
                let range = BeatMapEditor.bpmRange
                let bpm = switched[index].bpm
                // Three decimals would print 400.000016 as 400, inside the range; then all six.
                var text = Describe.bpm(bpm)
                if text == Describe.bpm(range.lowerBound) || text == Describe.bpm(range.upperBound) {
                    text = NumberFormatting.decimal(NumberFormatting.roundedToMicroseconds(bpm)) + " BPM"
                }
                throw .wouldBreak(
                    "metric level \(level.label) would put \(Describe.segment(index)) at \(text), outside the \(Int(range.lowerBound))–\(Int(range.upperBound)) BPM a map may have"
                )
            }
            edited.tempo = switched
        }
        edited.analysis = analysis(map.analysis, switchedTo: level)
        return edited
    }

    /// Where beats added after the last may go: `analysis.musicalSpan` (with the analyzer's 50 ms
    /// margin) within the track, or the track.
    static func musicalSpan(_ map: BeatMap) -> ClosedRange<Double> {
        let track = 0...max(map.audio.duration, 0)
        guard let values = map.analysis?.objectValue?["musicalSpan"]?.arrayValue, values.count == 2,
            let low = values[0].doubleValue, let high = values[1].doubleValue, low <= high
        else { return track }
        return max(0, low - 0.05)...min(track.upperBound, max(high + 0.05, max(0, low - 0.05)))
    }

    /// A tempo segment at the new level: the old segment it comes from (its index in the tempo grid),
    /// the beat number of its anchor (a point of the new level), and the segment.
    struct Anchor {
        let old: Int
        let number: Double
        let segment: TempoSegment
    }

    /// The tempo segments at the new level, with the new tempo, anchors moved to the next point of the
    /// new level inside their segment (or the one before, when none is), and beats per bar scaled.
    static func anchors(
        _ segments: [TempoSegment], numbered: NumberedBeats, reference: Int, level: MetricLevel, map: BeatMap
    ) -> [Anchor] {
        let (p, q) = level.spacing
        var result: [Anchor] = []
        for (index, segment) in segments.enumerated() {
            var moved = segment
            let u = numbered.number(at: segment.time)
            // The anchor's position in units of 1/q beat from the reference, and the new grid's step p.
            let units = (u - Double(reference)) * Double(q)
            let steps = units / Double(p)
            var number = Double(reference) + steps.rounded() * Double(p) / Double(q)
            if abs(steps - steps.rounded()) > 1e-6 {
                let next = index + 1 < segments.count ? segments[index + 1].time : map.audio.duration
                let later = segment.time + (steps.rounded(.up) * Double(p) - units) / Double(q) * segment.beatLength
                let earlier = segment.time + (steps.rounded(.down) * Double(p) - units) / Double(q) * segment.beatLength
                let previous = result.last?.segment.time ?? -Double.infinity
                let earlierNumber = Double(reference) + steps.rounded(.down) * Double(p) / Double(q)
                let laterNumber = Double(reference) + steps.rounded(.up) * Double(p) / Double(q)
                // The point after is the next anchor's own when the next segment starts on it; an anchor
                // there, as this segment's grid puts it, would start a segment of no beats just before.
                let nextIsThere =
                    index + 1 < segments.count
                    && abs(numbered.number(at: segments[index + 1].time) - laterNumber) < 1e-6
                // An anchor moved onto an old beat takes that beat's own time: a microsecond after it,
                // it would leave the beat in the segment before and start a segment of no beats
                // (session 100: 24 of 29 such segments in 2,088 metric edits of corpus maps).
                if later < next - 1e-6, !nextIsThere {
                    moved.time = NumberFormatting.roundedToMicroseconds(
                        BeatMapEditor.onItsBeat(later, beats: numbered.times))
                    number = laterNumber
                } else if index == 0 || earlier > previous + 1e-6, earlier >= 0,
                    // The point before is the previous anchor's own (a followed map's odd beat at ½:
                    // its segment holds no point of the new level): an anchor there would start a
                    // segment of no beats a fraction of a millisecond after it.
                    result.last.map({ abs($0.number - earlierNumber) > 1e-9 }) ?? true
                {
                    moved.time = NumberFormatting.roundedToMicroseconds(
                        BeatMapEditor.onItsBeat(earlier, beats: numbered.times))
                    number = earlierNumber
                } else {
                    continue  // no point of the new level inside this segment: the previous one runs on
                }
            }
            moved.bpm =
                p == 1 || q == 1
                ? segment.bpm * Double(q) / Double(p)
                : NumberFormatting.roundedToMicroseconds(segment.bpm * Double(q) / Double(p))
            moved.beatsPerBar = segment.beatsPerBar.flatMap { ($0 * q) % p == 0 ? $0 * q / p : nil }
            result.append(Anchor(old: index, number: number, segment: moved))
        }
        guard !result.isEmpty else {
            return [Anchor(old: 0, number: numbered.number(at: segments[0].time), segment: segments[0])]
        }
        return result
    }

    /// The time of the new level's point `u` (a beat number). At an old beat, that beat; beyond the
    /// first or last, extrapolated (``NumberedBeats/time(at:)``); without a tempo map, interpolated.
    /// Between two old beats, on the grid of the new segment it falls in (the last whose anchor's
    /// number is not after `u`): the fraction of that segment's beat after the earlier old beat when
    /// that beat is in the segment, or before the later one when that one is; at the anchor, the
    /// anchor. Where a tempo changes, the interval from one segment's last beat to the next one's first
    /// is neither segment's beat, and a point the fraction of the way along it would be off both
    /// grids. `nil` where the point does not fall between the two old beats and before the next anchor
    /// (an interval across a change too short for it), or inside a gap of missing beats.
    static func time(at u: Double, numbered: NumberedBeats, anchors: [Anchor]?) -> Double? {
        let whole = u.rounded(.down)
        let fraction = u - whole
        guard let anchors, let grid = numbered.grid, fraction >= 1e-9,
            let low = numbered.index(ofNumber: Int(whole)), let high = numbered.index(ofNumber: Int(whole) + 1)
        else { return numbered.time(at: u) }
        let k = anchors.lastIndex { $0.number <= u + 1e-9 } ?? 0
        let anchor = anchors[k]
        let length = grid.segments[anchor.old].beatLength
        let time: Double
        if abs(anchor.number - u) < 1e-9 {
            time = anchor.segment.time
        } else if grid.segmentIndex(at: numbered.times[low]) == anchor.old {
            time = numbered.times[low] + fraction * length
        } else if grid.segmentIndex(at: numbered.times[high]) == anchor.old {
            time = numbered.times[high] - (1 - fraction) * length
        } else {
            return nil
        }
        let end = k + 1 < anchors.count ? anchors[k + 1].segment.time : Double.infinity
        guard time > numbered.times[low] + 1e-6, time < numbered.times[high] - 1e-6, time < end - 1e-6 else {
            return nil
        }
        return time
    }

    /// `analysis` after the switch: the matching alternative's tempo and score become the analysis's
    /// `bpm` and `score`, and the old level (its `bpm` and `score`) becomes the alternative of the
    /// inverse ratio; the other alternatives, relative to the old level, are dropped. Unchanged when
    /// the alternatives do not have the level.
    static func analysis(_ analysis: JSONValue?, switchedTo level: MetricLevel) -> JSONValue? {
        guard var object = analysis?.objectValue, let alternatives = object["alternatives"]?.arrayValue,
            let entry = alternatives.first(where: { $0.objectValue?["ratio"]?.stringValue == level.label })?
                .objectValue
        else { return analysis }
        var back = JSONObject([("ratio", .string(level.inverse.label))])
        if let bpm = object["bpm"] { back["bpm"] = bpm }
        if let score = object["score"] { back["score"] = score }
        if let bpm = entry["bpm"] { object["bpm"] = bpm }
        if let score = entry["score"] { object["score"] = score }
        object["alternatives"] = .array([.object(back)])
        return .object(object)
    }
}
