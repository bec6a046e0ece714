// SPDX-License-Identifier: GPL-3.0-or-later

import BeatMapKit
import BeatStudio
import Testing

@Suite("studio edits")
struct MapEditingTests {
    let map = BeatMap(
        audio: AudioReference(duration: 10), tempo: [TempoSegment(time: 0.5, bpm: 120, beatsPerBar: 4)],
        beats: (0..<16).map { 0.5 + Double($0) * 0.5 })
    let editor = LibraryMapEditor()

    @Test("×2 then ½ gives the map back")
    func doubleHalve() throws {
        let doubled = try editor.apply(.metricLevel(ratio: "×2"), to: map)
        #expect(doubled.beats.count == 32)
        #expect(doubled.tempo?.first?.bpm == 240)
        #expect(doubled.tempo?.first?.beatsPerBar == 8)
        let back = try editor.apply(.metricLevel(ratio: "½"), to: doubled)
        #expect(back == map)
    }

    @Test("⅔ and 3⁄2 go through the library's editor; an unknown ratio is refused")
    func ternary() throws {
        #expect(editor.metricRatios == ["×2", "½", "⅔", "3⁄2"])
        let twoThirds = try editor.apply(.metricLevel(ratio: "⅔"), to: map)
        #expect(twoThirds.tempo?.first?.bpm == 80)
        #expect(twoThirds.beats.count == 11)
        let back = try editor.apply(.metricLevel(ratio: "3⁄2"), to: twoThirds)
        #expect(back.tempo?.first?.bpm == 120)
        #expect(throws: MapEditError.self) { try editor.apply(.metricLevel(ratio: "⅘"), to: map) }
    }

    @Test("nudge moves beats and anchors; meter and bar phase change the segment")
    func nudgeMeterPhase() throws {
        let nudged = try editor.apply(.nudge(seconds: 0.01), to: map)
        #expect(nudged.beats.first == 0.51)
        #expect(nudged.tempo?.first?.time == 0.51)
        let meter = try editor.apply(.meter(beatsPerBar: 3, at: 2), to: map)
        #expect(meter.tempo?.first?.beatsPerBar == 3)
        let shifted = try editor.apply(.barPhase(beats: 1, at: nil), to: map)
        #expect(shifted.tempo?.first?.time == 1.0)
        let back = try editor.apply(.barPhase(beats: -1, at: nil), to: shifted)
        #expect(back.tempo?.first?.time == 0.5)
        #expect(shifted.beats == map.beats)
    }

    @Test("the bars buttons and the meter at the playhead of a followed map apply to its whole run of beats")
    func followedBars() throws {
        // A segment a beat, bars of 4 on the segments that start one (as `analyze` writes a live band).
        let beats = (0..<16).map { 0.5 + Double($0) * 0.5 }
        let followed = BeatMap(
            audio: AudioReference(duration: 10),
            tempo: beats.indices.map { TempoSegment(time: beats[$0], bpm: 120, beatsPerBar: $0 % 4 == 0 ? 4 : nil) },
            beats: beats)
        let later = try editor.apply(.barPhase(beats: 1, at: 3.2), to: followed)
        // The first beat's segment is one beat long and cannot start a bar: the bars start on the second.
        #expect(BarPositions.positions(of: later) == [nil] + (0..<15).map { $0 % 4 + 1 })
        let waltz = try editor.apply(.meter(beatsPerBar: 3, at: 3.2), to: followed)
        #expect(BarPositions.positions(of: waltz) == (0..<16).map { $0 % 3 + 1 })
    }

    @Test("½ a beat moves every beat and the anchor half a beat later, and −½ back")
    func halfBeat() throws {
        let moved = try editor.apply(.shiftBeats(fraction: 0.5), to: map)
        #expect(moved.beats.first == 0.75)
        #expect(moved.tempo?.first?.time == 0.75)
        let back = try editor.apply(.shiftBeats(fraction: -0.5), to: moved)
        #expect(back.beats.first == 0.5)
        #expect(throws: MapEditError.self) { try editor.apply(.shiftBeats(fraction: 1), to: map) }
    }

    @Test("a tapped tempo lays the segment out again through the tap")
    func tempo() throws {
        let laid = try editor.apply(.tempo(bpm: 100, anchor: 1.0), to: map)
        #expect(laid.tempo?.first?.bpm == 100)
        #expect(laid.beats.contains(1.0))
        #expect(laid.beats.contains(1.6))
        #expect(throws: MapEditError.self) { try editor.apply(.tempo(bpm: 1000, anchor: 1), to: map) }
    }

    @Test("a tapped tempo on a followed map lays its whole run out again as one segment")
    func tempoOnFollowed() throws {
        // Eight steady beats, then twelve followed ones speeding up, each its own segment.
        var beats = (0..<8).map { 0.5 + Double($0) * 0.5 }
        var tempo = [TempoSegment(time: 0.5, bpm: 120, beatsPerBar: 4)]
        var t = 4.5
        for index in 0..<12 {
            let bpm = 120 + Double(index)
            tempo.append(TempoSegment(time: t, bpm: bpm, beatsPerBar: index % 4 == 0 ? 4 : nil))
            beats.append(t)
            t = NumberFormatting.roundedToMicroseconds(t + 60 / bpm)
        }
        let followed = BeatMap(audio: AudioReference(duration: 12), tempo: tempo, beats: beats)
        // Session 99: only the one-beat segment at the tap was laid out again, a beat 1 ms from the next.
        let laid = try editor.apply(.tempo(bpm: 126, anchor: 6.0), to: followed)
        let segments = try #require(laid.tempo)
        #expect(segments.count == 2)
        #expect(segments.first == tempo.first)
        #expect(segments.last?.bpm == 126)
        #expect(segments.last?.beatsPerBar == 4)
        #expect(laid.beats.prefix(8) == beats.prefix(8))
        #expect(laid.beats.contains(6.0))
        // Up to where the followed beats ended, not on through the 12 s file.
        let lastBefore = try #require(beats.last)
        let lastLaid = try #require(laid.beats.last)
        #expect(abs(lastLaid - lastBefore) <= 60.0 / 126 / 2 + 1e-9)
        let report = Validator().validate(bytes: Array(try BeatMapCodec.encode(laid).utf8), path: "laid.beatmap.json")
        #expect(report.findings.filter { $0.severity == .error }.isEmpty)
    }
}
