// SPDX-License-Identifier: GPL-3.0-or-later

import BeatMapKit
import Foundation
import Testing

/// The edits on the shapes of map `analyze` writes besides one grid: followed beats (a tempo segment
/// per beat, bars on the segments that start on a downbeat) and grids whose tempo changes, where the
/// interval across the change is neither segment's beat. Every edited map must pass `validate`
/// (session 98: `--shift-bar` and `--beats-per-bar` put a followed map's segments out of order,
/// `--metric ×2` put beats off a changing grid, and `--nudge` left a first beat at 0 s before the track).
@Suite("Edits on followed maps and tempo changes")
struct EditShapesTests {
    /// A followed map: `count` beats drifting around 120 BPM from `start`, each its own segment, bars
    /// of 4 from beat `firstDownbeat` (a pickup before it), as `analyze` lays them out.
    static func followed(count: Int = 24, start: Double = 0.4, firstDownbeat: Int = 2) -> BeatMap {
        var beats: [Double] = []
        var t = start
        for index in 0..<count {
            beats.append(NumberFormatting.roundedToMicroseconds(t))
            t += 0.5 + 0.02 * sin(Double(index) * 0.7)
        }
        let tempo = beats.indices.map { index in
            let next = index + 1 < beats.count ? beats[index + 1] : beats[index] + 0.5
            let perBar: Int? = index >= firstDownbeat && (index - firstDownbeat) % 4 == 0 ? 4 : nil
            return TempoSegment(
                time: beats[index], bpm: NumberFormatting.roundedToMicroseconds(60 / (next - beats[index])),
                beatsPerBar: perBar)
        }
        return BeatMap(audio: AudioReference(duration: t + 1), tempo: tempo, beats: beats)
    }

    /// A grid at 120 BPM from 0.5 s in bars of four whose tempo changes to 150 BPM after `count` beats
    /// (eight by default), at `start` (4.56 s: the interval across the change 0.56 s, the later grid's
    /// first beat where the music put it, not one beat on), the later segment in bars of `meter` (none:
    /// it counts on), ten beats long.
    static func changing(after count: Int = 8, at start: Double = 4.56, meter: Int? = 4) -> BeatMap {
        let first = (0..<count).map { 0.5 + Double($0) * 0.5 }
        let second = (0..<10).map { start + Double($0) * 0.4 }
        return BeatMap(
            audio: AudioReference(duration: 9),
            tempo: [
                TempoSegment(time: 0.5, bpm: 120, beatsPerBar: 4),
                TempoSegment(time: start, bpm: 150, beatsPerBar: meter),
            ],
            beats: (first + second).map(NumberFormatting.roundedToMicroseconds))
    }

    /// The indices of `map`'s downbeats (``BarPositions``).
    static func downbeats(_ map: BeatMap) -> [Int] {
        BarPositions.positions(of: map).enumerated().filter { $0.element == 1 }.map(\.offset)
    }

    /// The messages of the errors `validate` with its default settings finds in `map`.
    static func errors(_ map: BeatMap) throws -> [String] {
        let text = try BeatMapCodec.encode(map)
        let report = Validator().validate(bytes: Array(text.utf8), path: "edited.beatmap.json")
        return report.findings.filter { $0.severity == .error }.map(\.message)
    }

    @Test("the followed map and the changing grid pass validate as made")
    func shapesAreValid() throws {
        #expect(try Self.errors(Self.followed()) == [])
        #expect(try Self.errors(Self.changing()) == [])
        #expect(BarPositions.positions(of: Self.followed()).prefix(7) == [nil, nil, 1, 2, 3, 4, 1])
    }

    @Test("a followed map's bars move by whole beats, the beats unchanged", arguments: [1, 2, 3, -1, 5])
    func followedShiftBars(beats: Int) throws {
        let map = Self.followed()
        let moved = try BeatMapEditor.apply(.shiftBars(beats: beats, segment: .all), to: map).map
        #expect(try Self.errors(moved) == [])
        #expect(moved.beats == map.beats)
        let positions = BarPositions.positions(of: moved)
        // The first downbeat moves from beat 2 to beat 2 + beats, taken round the bar.
        let first = try #require(positions.firstIndex(of: 1))
        #expect(first == ((2 + beats) % 4 + 4) % 4)
        let downbeats = positions.indices.filter { positions[$0] == 1 }
        #expect(downbeats.allSatisfy { ($0 - first) % 4 == 0 })
        #expect(downbeats.count == (map.beats.count - first + 3) / 4)
    }

    @Test("a followed map takes another meter from its first downbeat")
    func followedMeter() throws {
        let map = Self.followed(firstDownbeat: 1)
        let waltz = try BeatMapEditor.apply(.beatsPerBar(3, segment: .all), to: map).map
        #expect(try Self.errors(waltz) == [])
        let positions = BarPositions.positions(of: waltz)
        #expect(positions.prefix(8) == [nil, 1, 2, 3, 1, 2, 3, 1])
    }

    /// Eight beats on one grid at 120 BPM from 0.5 s in bars of 4, then 16 followed beats from 4.5 s,
    /// each its own segment (bars of 4 on the segments that start a bar): a band that drifts after a
    /// steady intro.
    static func steadyThenFollowed() -> BeatMap {
        var map = followed(count: 16, start: 4.5, firstDownbeat: 0)
        map.beats = (0..<8).map { 0.5 + Double($0) * 0.5 } + map.beats
        map.tempo = [TempoSegment(time: 0.5, bpm: 120, beatsPerBar: 4)] + (map.tempo ?? [])
        return map
    }

    @Test("a bar move at a time in followed beats moves the bars of the whole run, not of one beat's segment")
    func shiftBarsAtATimeInARun() throws {
        let map = Self.steadyThenFollowed()
        #expect(try Self.errors(map) == [])
        // The studio's bars buttons send the playhead's time; the segment there is one beat long.
        let moved = try BeatMapEditor.apply(.shiftBars(beats: 1, segment: .at(7.0)), to: map).map
        #expect(try Self.errors(moved) == [])
        #expect(moved.beats == map.beats)
        #expect(moved.tempo?.first == map.tempo?.first)
        let positions = BarPositions.positions(of: moved)
        #expect(positions.prefix(8) == [1, 2, 3, 4, 1, 2, 3, 4])
        // The run's first beat counts on from the intro's bars; its downbeats are one beat later.
        #expect(positions.dropFirst(8).prefix(6) == [1, 1, 2, 3, 4, 1])
        let runDownbeats = (8..<24).filter { positions[$0] == 1 && $0 > 8 }
        #expect(runDownbeats == [9, 13, 17, 21])
    }

    @Test("a meter set at a time in followed beats applies to the whole run from its first downbeat")
    func meterAtATimeInARun() throws {
        let map = Self.steadyThenFollowed()
        let waltz = try BeatMapEditor.apply(.beatsPerBar(3, segment: .at(7.0)), to: map).map
        #expect(try Self.errors(waltz) == [])
        let positions = BarPositions.positions(of: waltz)
        #expect(positions.prefix(8) == [1, 2, 3, 4, 1, 2, 3, 4])
        #expect(Array(positions.dropFirst(8)) == (0..<16).map { $0 % 3 + 1 })
        #expect(waltz.tempo?.first == map.tempo?.first)
    }

    @Test("a bar move at a time in a followed run whose bars count on from the segment before it")
    func shiftBarsInARunCountingOn() throws {
        var map = Self.steadyThenFollowed()
        map.tempo = map.tempo?.enumerated().map { index, segment in
            var copy = segment
            if index > 0 { copy.beatsPerBar = nil }
            return copy
        }
        #expect(BarPositions.positions(of: map) == (0..<24).map { $0 % 4 + 1 })
        let moved = try BeatMapEditor.apply(.shiftBars(beats: -1, segment: .at(7.0)), to: map).map
        #expect(try Self.errors(moved) == [])
        #expect(Array(BarPositions.positions(of: moved).dropFirst(8).prefix(5)) == [1, 2, 3, 1, 2])
    }

    @Test("a bar move at a time in a steady segment moves that segment's anchor only")
    func shiftBarsAtATimeInASteadySegment() throws {
        let map = Self.steadyThenFollowed()
        let moved = try BeatMapEditor.apply(.shiftBars(beats: 1, segment: .at(1.0)), to: map).map
        #expect(moved.tempo?.first?.time == 1.0)
        #expect(moved.tempo?.dropFirst() == map.tempo?.dropFirst())
        // The first segment holds the beat before its anchor too: the last of a bar.
        #expect(BarPositions.positions(of: moved).prefix(8) == [4, 1, 2, 3, 4, 1, 2, 3])
    }

    @Test("validate --fix's bar shift is the edit's: a followed map's bars two beats later")
    func followedShiftFromTheStart() throws {
        // The first downbeat on beat 0 with the map starting near 0 s: bars two beats later cannot be
        // counted back from before the track, so they start on the first segment anchored on one.
        let map = Self.followed(start: 0.05, firstDownbeat: 0)
        let moved = try BeatMapEditor.apply(.shiftBars(beats: 2, segment: .all), to: map).map
        #expect(try Self.errors(moved) == [])
        #expect(moved.tempo?.first?.beatsPerBar == nil)
        #expect(BarPositions.positions(of: moved).prefix(4) == [nil, nil, 1, 2])
    }

    @Test(
        "×2, 3⁄2, ⅔ and ½ across a tempo change put every beat on its segment's grid",
        arguments: zip([MetricLevel.double, .threeHalves, .twoThirds, .half], [36, 27, 12, 9]))
    func metricAcrossAChange(level: MetricLevel, count: Int) throws {
        let map = Self.changing()
        let switched = try BeatMapEditor.apply(.metricLevel(level), to: map).map
        #expect(try Self.errors(switched) == [])
        #expect(switched.beats.count == count)
    }

    @Test("×2 then ½ across a tempo change gives the beats back")
    func doubleThenHalfAcrossAChange() throws {
        let map = Self.changing()
        let doubled = try BeatMapEditor.apply(.metricLevel(.double), to: map).map
        // The point between the last 120 BPM beat (4.0 s) and the first 150 BPM one (4.56 s) lies a
        // quarter second after 4.0 s, on the earlier grid, not halfway (4.28 s, 30 ms off it).
        #expect(doubled.beats.contains(4.25))
        let back = try BeatMapEditor.apply(.metricLevel(.half), to: doubled).map
        #expect(back.beats == map.beats)
    }

    @Test("×2 leaves out the point of an interval across a tempo change too short for either grid's")
    func metricAcrossAShortChange() throws {
        // A stepped song's later grid starting 0.2 s after the earlier one's last beat: half a beat of
        // either tempo does not fit in it, and a point between would be off both grids.
        let map = Self.changing(at: 4.2, meter: nil)
        #expect(try Self.errors(map) == [])
        let doubled = try BeatMapEditor.apply(.metricLevel(.double), to: map).map
        #expect(try Self.errors(doubled) == [])
        #expect(doubled.beats.count == 35)
        #expect(!doubled.beats.contains { $0 > 4.0 + 1e-9 && $0 < 4.2 - 1e-9 })
    }

    @Test("a level past 400 BPM is refused with the segment and its tempo")
    func metricPastTheRange() throws {
        let map = BeatMapEditorTests.grid(count: 16, bpm: 240)
        #expect {
            try BeatMapEditor.apply(.metricLevel(.double), to: map)
        } throws: { error in
            (error as? BeatMapEditError)?.localizedDescription.contains(
                "metric level ×2 would put tempo segment 1 at 480 BPM, outside the 20–400 BPM a map may have") == true
        }
        // Just past the bound, the tempo is printed with the digits that show it.
        let edge = BeatMap(
            audio: AudioReference(duration: 10), tempo: [TempoSegment(time: 0.5, bpm: 200.000008)],
            beats: (0..<20).map { NumberFormatting.roundedToMicroseconds(0.5 + Double($0) * 60 / 200.000008) })
        #expect {
            try BeatMapEditor.apply(.metricLevel(.double), to: edge)
        } throws: { error in
            (error as? BeatMapEditError)?.localizedDescription.contains("at 400.000016 BPM, outside") == true
        }
    }

    @Test("×2 on a followed map stays on each beat's own segment grid")
    func metricOnFollowed() throws {
        let map = Self.followed()
        let doubled = try BeatMapEditor.apply(.metricLevel(.double), to: map).map
        #expect(try Self.errors(doubled) == [])
        #expect(doubled.beats.count >= 2 * map.beats.count - 1)
    }

    @Test(
        "½ on a followed map gives a segment per kept beat, none of them holding no beat",
        arguments: [0.9999, 1.0, 1.0001])
    func halfOnFollowed(scale: Double) throws {
        // Each segment's tempo a little slower, as written, or a little faster than its interval says:
        // an odd beat's grid then puts the point after it just after or just before the next beat.
        var map = Self.followed()
        map.tempo = map.tempo?.map { TempoSegment(time: $0.time, bpm: $0.bpm * scale, beatsPerBar: $0.beatsPerBar) }
        let halved = try BeatMapEditor.apply(.metricLevel(.half), to: map).map
        #expect(try Self.errors(halved) == [])
        #expect(halved.beats.count == 12)
        // Session 99: each odd beat's segment moved back onto the even beat before it, a fraction of a
        // millisecond after that beat's own segment, or on to the next, just before that one's: 23
        // segments for 12 beats, 11 of them empty.
        // (The last odd beat's segment still moves on to the point after the last beat.)
        let last = try #require(halved.beats.last)
        let tempo = try #require(halved.tempo).filter { $0.time <= last }
        #expect(tempo.count == halved.beats.count)
        #expect(zip(tempo, halved.beats).allSatisfy { abs($0.time - $1) < 1e-6 })
        let back = try BeatMapEditor.apply(.metricLevel(.double), to: halved).map
        #expect(try Self.errors(back) == [])
    }

    @Test(
        "½ and ⅔ of a map followed in segments of three beats start each new segment on its beat, not a microsecond after",
        arguments: [MetricLevel.half, .twoThirds])
    func anchorsOnTheirBeats(level: MetricLevel) throws {
        // A segment every three beats from the second, its tempo its first interval as written and
        // a microsecond and a half longer: its grid's next point lies a microsecond or two after the
        // next beat, as on a Freedoom map followed in segments of two and three beats (session 100).
        var beats = [0.4]
        var intervals: [Double] = []
        for index in 0..<30 {
            let interval = 0.5 + 0.02 * sin(Double(index / 3) * 0.7)
            intervals.append(interval)
            beats.append(NumberFormatting.roundedToMicroseconds(beats[index] + interval))
        }
        let segments = stride(from: 1, to: beats.count - 1, by: 3).map { index in
            TempoSegment(
                time: beats[index], bpm: NumberFormatting.roundedToMicroseconds(60 / (intervals[index] + 1.5e-6)))
        }
        let map = BeatMap(audio: AudioReference(duration: 20), tempo: segments, beats: beats)
        #expect(try Self.errors(map) == [])
        let switched = try BeatMapEditor.apply(.metricLevel(level), to: map).map
        #expect(try Self.errors(switched) == [])
        let last = try #require(switched.beats.last)
        let tempo = try #require(switched.tempo).filter { $0.time <= last }
        try #require(tempo.count >= 8)
        // Until session 100 an anchor moved onto an old beat along its segment's grid sat there plus
        // the grid's microsecond, leaving the beat in the segment before: a segment of no beats.
        for segment in tempo.dropFirst() {
            #expect(switched.beats.contains(segment.time), "anchor \(segment.time) is not a beat")
        }
    }

    @Test(
        "a bar move in a segment whose bars count on from the one before moves the bars of both",
        arguments: [SegmentChoice.at(5), .index(1)])
    func countedOnBars(choice: SegmentChoice) throws {
        // Six beats at 120 BPM in bars of four, then 150 BPM from the seventh beat, mid-bar: the
        // second segment gives no meter (its anchor is no downbeat) and counts on.
        let map = Self.changing(after: 6, at: 3.56, meter: nil)
        #expect(try Self.errors(map) == [])
        #expect(Self.downbeats(map) == [0, 4, 8, 12])
        // Until session 100: refused, "the map gives no beats per bar in tempo segment 2".
        let moved = try BeatMapEditor.apply(.shiftBars(beats: 1, segment: choice), to: map).map
        #expect(try Self.errors(moved) == [])
        #expect(moved.beats == map.beats)
        #expect(moved.tempo?.map(\.bpm) == [120, 150])
        #expect(Self.downbeats(moved) == [1, 5, 9, 13])
    }

    @Test(
        "½ and ⅔ that leave out a followed map's pickup start its tempo map on the first beat kept",
        arguments: [MetricLevel.half, .twoThirds])
    func pickupLeftOut(level: MetricLevel) throws {
        // A pickup a beat before the first downbeat, a second into the track: the new level keeps the
        // downbeat, not the pickup, and the pickup's segment went to the point before it (session 100).
        let map = Self.followed(start: 1.0, firstDownbeat: 1)
        let switched = try BeatMapEditor.apply(.metricLevel(level), to: map).map
        #expect(try Self.errors(switched) == [])
        let first = try #require(switched.beats.first)
        try #require(map.beats.count > 1)
        #expect(first == map.beats[1])
        #expect(switched.tempo?.first?.time == first)
    }

    @Test("a bar move in the later segment of a tempo change keeps the change and starts a segment at the new downbeat")
    func barMoveAtATempoChange() throws {
        let map = Self.changing()
        let moved = try BeatMapEditor.apply(.shiftBars(beats: 1, segment: .index(1)), to: map).map
        // Until session 100 the later segment's anchor moved a beat on, handing the beat at 4.56 s to
        // the 120 BPM grid, 60 ms off it: refused as invalid.
        #expect(try Self.errors(moved) == [])
        #expect(moved.beats == map.beats)
        #expect(moved.tempo?.map(\.bpm) == [120, 150, 150])
        #expect(moved.tempo?.map(\.time) == [0.5, 4.56, 4.96])
        #expect(Self.downbeats(moved) == [0, 4, 8, 9, 13, 17])
    }

    @Test("a nudge drops the beats it moves out of the track, as a beat shift does")
    func nudgeAtTheStart() throws {
        let map = Self.followed(start: 0, firstDownbeat: 0)
        let nudged = try BeatMapEditor.apply(.nudge(seconds: -0.012), to: map)
        #expect(try Self.errors(nudged.map) == [])
        #expect(nudged.map.beats.count == map.beats.count - 1)
        let first = try #require(nudged.map.beats.first)
        try #require(map.beats.count > 1)
        #expect(abs(first - (map.beats[1] - 0.012)) < 1e-9)
        #expect(nudged.map.tempo?.first?.time == first)
        #expect(
            nudged.changes.contains {
                $0.hasPrefix("beats: 24 moved by -12.0 ms, 1 of them out of the track and dropped: 23")
            })
        let grid = BeatMapEditorTests.grid(count: 16, start: 0.005)
        let early = try BeatMapEditor.apply(.nudge(seconds: -0.012), to: grid).map
        #expect(try Self.errors(early) == [])
        // The grid's anchor goes on by a bar, and its bars stay where they were.
        #expect(early.tempo?.first?.time == 1.993)
        #expect(BarPositions.positions(of: early).prefix(4) == [2, 3, 4, 1])
    }
}
