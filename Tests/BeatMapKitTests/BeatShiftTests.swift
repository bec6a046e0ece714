// SPDX-License-Identifier: GPL-3.0-or-later

import BeatMapKit
import Foundation
import Testing

/// `beatmap edit --shift-beats`: every beat moved by a fraction of its own beat (``BeatMapEdit/shiftBeats(fraction:)``).
@Suite("Shifting the beats by a fraction of a beat")
struct BeatShiftTests {
    typealias Editor = BeatMapEditorTests

    @Test(
        "½ then −½ gives back the demo maps within 1 µs: a grid, a shuffle, a tempo change, a followed drift",
        arguments: ["demo-120", "demo-95-shuffle", "demo-tempo-change", "demo-drift"])
    func roundTrip(demo: String) throws {
        let map = try Editor.demo(demo)
        let later = try Editor.apply([.shiftBeats(fraction: 0.5)], to: map)
        let back = try Editor.apply([.shiftBeats(fraction: -0.5)], to: later)
        // A beat moved past the track's end is dropped; compare the beats both maps keep.
        let kept = back.beats.count
        try #require(kept >= map.beats.count - 1)
        #expect(try Editor.maximumDifference(back.beats, Array(map.beats.prefix(kept))) <= 1e-6 + 1e-9)
        #expect(back.tempo?.map(\.time) == map.tempo?.map(\.time))
        #expect(back.tempo?.map(\.bpm) == map.tempo?.map(\.bpm))
        #expect(back.tempo?.map(\.beatsPerBar) == map.tempo?.map(\.beatsPerBar))
    }

    @Test("on a grid every beat and the anchor move by the fraction of the grid's beat; bars move with them")
    func grid() throws {
        let map = Editor.grid(count: 16, start: 0.5, bpm: 120)
        let moved = try Editor.apply([.shiftBeats(fraction: 0.5)], to: map)
        #expect(moved.beats.count == 16)
        #expect(try Editor.maximumDifference(moved.beats, map.beats.map { $0 + 0.25 }) <= 1e-9)
        let segment = try #require(moved.tempo?.first)
        #expect(abs(segment.time - 0.75) < 1e-9)
        #expect(segment.bpm == 120)
        #expect(segment.beatsPerBar == 4)
        let third = try Editor.apply([.shiftBeats(fraction: -1.0 / 3.0)], to: map)
        #expect(abs(try #require(third.beats.first) - (0.5 - 1.0 / 6.0)) <= 1e-6)
    }

    @Test("without a tempo map each beat moves by its own interval (the last by the one before it)")
    func beatsOnly() throws {
        let beats = [0.5, 1.0, 1.6, 2.3, 3.0]
        let map = BeatMap(audio: AudioReference(duration: 10), tempo: nil, beats: beats)
        let moved = try Editor.apply([.shiftBeats(fraction: 0.5)], to: map)
        #expect(try Editor.maximumDifference(moved.beats, [0.75, 1.3, 1.95, 2.65, 3.35]) <= 1e-9)
    }

    @Test("beats moved outside the track are dropped; an anchor moved before it goes on by whole bars")
    func edges() throws {
        let map = Editor.grid(count: 12, start: 0.1, bpm: 120)
        let earlier = try Editor.apply([.shiftBeats(fraction: -0.5)], to: map)
        #expect(earlier.beats.count == 11)
        #expect(abs(try #require(earlier.beats.first) - 0.35) < 1e-6)
        // The anchor (a downbeat at 0.1 s) would be at −0.15 s: a bar of 4 later, at 1.85 s.
        #expect(abs(try #require(earlier.tempo?.first?.time) - 1.85) < 1e-6)
        let short = BeatMap(
            audio: AudioReference(duration: 1.1), tempo: [TempoSegment(time: 0.1, bpm: 120)], beats: [0.1, 0.6, 1.1])
        let later = try Editor.apply([.shiftBeats(fraction: 0.5)], to: short)
        #expect(later.beats.count == 2)
    }

    @Test("a followed map (a segment per beat) moves each beat by its own interval; anchors stay on their beats")
    func followed() throws {
        let beats = [0.2, 0.7, 1.22, 1.76, 2.32, 2.9, 3.5]
        let tempo = zip(beats, beats.dropFirst()).map { TempoSegment(time: $0, bpm: 60 / ($1 - $0)) }
        let map = BeatMap(audio: AudioReference(duration: 3.6), tempo: tempo, beats: beats)
        for fraction in [0.5, -0.5] {
            let moved = try Editor.apply([.shiftBeats(fraction: fraction)], to: map)
            let anchors = try #require(moved.tempo).map(\.time)
            // Every anchor is one of the moved beats, and every segment but the last still starts a beat.
            #expect(anchors.allSatisfy { anchor in moved.beats.contains { abs($0 - anchor) < 1e-6 } })
            #expect(zip(anchors.dropFirst(), anchors).allSatisfy { $0 > $1 })
        }
        let earlier = try Editor.apply([.shiftBeats(fraction: -0.5)], to: map)
        // The first beat (0.2 − 0.25 s) leaves the track, and its segment with it.
        #expect(earlier.beats.count == 6)
        #expect(abs(try #require(earlier.tempo?.first?.time) - 0.44) < 1e-6)
        let later = try Editor.apply([.shiftBeats(fraction: 0.5)], to: map)
        #expect(abs(try #require(later.beats.first) - 0.45) < 1e-6)
        #expect(abs(try #require(later.beats.dropFirst().first) - 0.96) < 1e-6)
    }

    @Test("a fraction outside −1…1, or 0, is refused", arguments: [0.0, 1.0, -1.0, 1.5, Double.nan])
    func refused(fraction: Double) {
        #expect(throws: BeatMapEditError.self) {
            try BeatMapEditor.apply(.shiftBeats(fraction: fraction), to: Editor.grid(count: 8))
        }
    }

    @Test("the spellings of a fraction, and its words")
    func spellings() {
        let cases: [(String, Double?)] = [
            ("½", 0.5), ("1/2", 0.5), ("0.5", 0.5), ("-½", -0.5), ("−1/2", -0.5), ("+⅓", 1.0 / 3.0), ("2/3", 2.0 / 3.0),
            ("¾", 0.75), ("-0.25", -0.25), ("1/0", nil), ("half", nil), ("", nil), ("1/2/3", nil),
        ]
        for (spelling, value) in cases {
            let parsed = BeatFraction.value(spelling: spelling)
            #expect(parsed.map { abs($0 - (value ?? .nan)) < 1e-12 } ?? (value == nil), "\(spelling)")
        }
        #expect(BeatFraction.words(-0.5) == "half a beat")
        #expect(BeatFraction.words(2.0 / 3.0) == "two thirds of a beat")
        #expect(BeatFraction.words(0.375) == "0.375 of a beat")
    }

    @Test("the edit says what it moved")
    func changes() throws {
        let edited = try BeatMapEditor.apply(.shiftBeats(fraction: 0.5), to: Editor.grid(count: 8))
        #expect(edited.changes.first == "every beat half a beat later")
        #expect(edited.changes.contains { $0.hasPrefix("beats: 8") })
    }
}
