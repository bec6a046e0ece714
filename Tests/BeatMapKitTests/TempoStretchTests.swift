// SPDX-License-Identifier: GPL-3.0-or-later

import BeatMapKit
import Foundation
import Testing

@Suite("Tempo stretches")
struct TempoStretchTests {
    /// 8 beats at 120 BPM from 0 s, then `followed` beats each a segment of its own, speeding up by
    /// 0.5 BPM a beat, then 8 beats at the last tempo in one segment; a track 2 s past the last beat.
    static func followedMap(followed: Int = 12) -> BeatMap {
        var beats: [Double] = []
        var tempo = [TempoSegment(time: 0, bpm: 120, beatsPerBar: 4)]
        var time = 0.0
        for _ in 0..<8 {
            beats.append(time)
            time += 0.5
        }
        var bpm = 120.0
        for _ in 0..<followed {
            bpm += 0.5
            tempo.append(TempoSegment(time: time, bpm: bpm))
            beats.append(time)
            time += 60 / bpm
        }
        tempo.append(TempoSegment(time: time, bpm: bpm))
        for _ in 0..<8 {
            beats.append(time)
            time += 60 / bpm
        }
        return BeatMap(audio: AudioReference(duration: time + 2), tempo: tempo, beats: beats)
    }

    @Test("a run of one-beat segments is one moving stretch between the steady ones")
    func followedRun() throws {
        let map = Self.followedMap()
        let stretches = TempoStretch.stretches(of: map, until: map.audio.duration)
        try #require(stretches.count == 3)
        #expect(!stretches[0].isMoving)
        #expect(stretches[0].from == 0)
        #expect(stretches[0].meters == [4])
        #expect(stretches[1].isMoving)
        #expect(stretches[1].segments.count == 12)
        #expect(stretches[1].from == 4.0)
        #expect(stretches[1].lowestBPM == 120.5)
        #expect(stretches[1].highestBPM == 126)
        #expect(stretches[1].meters.isEmpty)
        #expect(!stretches[2].isMoving)
        #expect(stretches[2].from == stretches[1].to)
        #expect(stretches[2].to == map.audio.duration)
    }

    @Test("a single short segment between steady ones stays a tempo change of its own")
    func singleShortSegment() throws {
        let map = Self.followedMap(followed: 1)
        let stretches = TempoStretch.stretches(of: map, until: map.audio.duration)
        try #require(stretches.count == 3)
        #expect(stretches.allSatisfy { !$0.isMoving })
        #expect(stretches[1].segments.first?.bpm == 120.5)
    }

    @Test("a map whose every beat is a segment is one moving stretch; unusable segments are left out")
    func everyBeatFollowed() throws {
        var map = Self.followedMap()
        map.tempo = Array((map.tempo ?? []).dropFirst().dropLast())
        map.beats = Array(map.beats.dropFirst(8).prefix(12))
        map.tempo?.append(TempoSegment(time: .nan, bpm: 130))
        map.tempo?.append(TempoSegment(time: 3, bpm: 0))
        let stretches = TempoStretch.stretches(of: map, until: map.audio.duration)
        try #require(stretches.count == 1)
        #expect(stretches[0].isMoving)
        #expect(stretches[0].segments.count == 12)
        #expect(stretches[0].from == 0)
        #expect(
            TempoStretch.stretches(of: BeatMap(audio: AudioReference(duration: 3), beats: [1, 2]), until: 3).isEmpty)
    }
}
