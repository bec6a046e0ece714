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
}
