// SPDX-License-Identifier: GPL-3.0-or-later

import BeatMapKit
import Testing

@testable import BeatAnalysis

/// Where one grid tempo segment ends and the next begins: a beat that lies on both grids is the
/// later segment's first (the change is at the beat that starts the first interval at the new tempo).
@Suite("The beat where the tempo changes")
struct SegmentJoinTests {
    @Test("a beat on both grids at a tempo change starts the later segment; a beat on one grid stays")
    func sharedBeatStartsTheNextSegment() throws {
        // 150 BPM from 1 s to 4.6 s, then 120 BPM from 5.1 s: 4.6 s is also the 120 BPM grid's point
        // one beat before 5.1 s, so the change is there.
        let before = FittedSegment(bpm: 150, firstBeat: 1, beats: (0..<10).map { 1 + Double($0) * 0.4 })
        let after = FittedSegment(bpm: 120, firstBeat: 5.1, beats: (0..<8).map { 5.1 + Double($0) * 0.5 })
        let moved = GridFitter.sharedBeatsStartingSegments([before, after])
        try #require(moved.count == 2)
        #expect(moved[0].beats.count == 9)
        #expect(abs((moved[0].beats.last ?? 0) - 4.2) < 1e-9)
        #expect(abs(moved[1].firstBeat - 4.6) < 1e-9)
        #expect(moved[1].beats.count == 9 && abs(moved[1].beats[0] - moved[1].firstBeat) < 1e-9)
        #expect(moved.flatMap { $0.beats }.count == 18)
        // From 5.0 s on instead, its grid's point before is 4.5 s, 100 ms from the last 150 BPM beat.
        let apart = FittedSegment(bpm: 120, firstBeat: 5.0, beats: (0..<8).map { 5.0 + Double($0) * 0.5 })
        #expect(GridFitter.sharedBeatsStartingSegments([before, apart]) == [before, apart])
    }

    @Test("a beat left to neither grid at a tempo change is the later grid's; a change without a hole stays")
    func holeAtTheChangeFilled() throws {
        // 126 BPM to 31.907 s, then 137 BPM from 32.783 s (as song-0082's stepped copy): 0.876 s between
        // them is more than 1.5 beats at either tempo, and the later grid's point before its first beat
        // (32.345 s) is the beat the layout left out.
        let earlier = FittedSegment(
            bpm: 126, firstBeat: 30, beats: (0..<5).map { 31.907 - Double(4 - $0) * 60 / 126 })
        let later = FittedSegment(bpm: 137, firstBeat: 32.783, beats: (0..<6).map { 32.783 + Double($0) * 60 / 137 })
        let filled = GridFitter.holesAtChangesFilled([earlier, later])
        try #require(filled.count == 2)
        #expect(filled[0] == earlier)
        #expect(filled[1].beats.count == 7)
        let first = try #require(filled[1].beats.first)
        #expect(abs(first - (32.783 - 60 / 137)) < 1e-9)
        #expect(filled[1].firstBeat == first)
        // Two beats missing: both come back, one interval of the later tempo apart.
        let further = FittedSegment(
            bpm: 137, firstBeat: 32.783 + 60 / 137, beats: (1..<6).map { 32.783 + Double($0) * 60 / 137 })
        #expect(GridFitter.holesAtChangesFilled([earlier, further])[1].beats.count == 7)
        // A slowing change whose interval (0.843 s) is 1.77 of the earlier beats but 1.4 of the later
        // ones keeps its beats: no beat is missing at the later tempo.
        let slow = FittedSegment(bpm: 100, firstBeat: 32.75, beats: (0..<6).map { 32.75 + Double($0) * 0.6 })
        #expect(GridFitter.holesAtChangesFilled([earlier, slow]) == [earlier, slow])
    }
}
