// SPDX-License-Identifier: GPL-3.0-or-later

import BeatMapKit
import Foundation
import Testing

@testable import BeatAnalysis

/// Followed and ramped beats reach back to where the music starts, as a grid's do (step 7): the
/// tracker's path can start a beat or more after the music, and a game's first notes would be
/// missing (session 80's trial FB2, adopted in session 81).
@Suite("Followed beats from the music's start")
struct FollowedStartTests {
    /// A fit of `beats` by `method`, each beat a segment of its own as followed beats are, over a
    /// span and a sounding span that both start at `start`.
    static func fit(_ beats: [Double], method: FitMethod, start: Double) -> GridFit {
        var fit = GridFit(
            segments: beats.map { FittedSegment(bpm: 120, firstBeat: $0, beats: [$0]) }, beats: beats,
            method: method, confidence: 1, score: 6, alternatives: [], span: start...30)
        fit.sounding = start...30
        return fit
    }

    @Test("followed beats that start late get beats one first interval apart back to the layout's start")
    func followedReachBack() throws {
        // Music from 0.3 s: step 7 starts a layout a quarter of the first interval before it, 0.175 s.
        let beats = [2.0, 2.5, 3.02, 3.5, 4.0]
        let reached = Self.fit(beats, method: .follow, start: 0.3).reachingTheStart()
        #expect(reached.added == 3)
        #expect(reached.fit.beats == [0.5, 1.0, 1.5] + beats)
        #expect(reached.fit.segments.map(\.beats) == reached.fit.beats.map { [$0] })
        let first = try #require(reached.fit.segments.first)
        #expect(first.bpm == 120)
        // Ramped beats alike.
        let ramped = Self.fit(beats, method: .ramp, start: 0.3).reachingTheStart()
        #expect(ramped.added == 3)
    }

    @Test(
        "music from the file's start: a point within a quarter interval before 0 s is put at 0 s, one further out is not added"
    )
    func fileStart() {
        // Intervals of exactly 0.5 s and points a binary fraction of a second before 0 s: 1 ms and
        // 94 ms (within a quarter interval, 125 ms: the file's first beat), 156 ms (beyond it).
        let settled = Self.fit([0.999_023_437_5, 1.499_023_437_5, 2.0], method: .follow, start: 0).reachingTheStart()
        #expect(settled.added == 2)
        #expect(settled.fit.beats == [0, 0.499_023_437_5, 0.999_023_437_5, 1.499_023_437_5, 2.0])
        let early = Self.fit([0.906_25, 1.406_25, 2.0], method: .follow, start: 0).reachingTheStart()
        #expect(early.fit.beats == [0, 0.406_25, 0.906_25, 1.406_25, 2.0])
        #expect(early.added == 2)
        let dropped = Self.fit([0.843_75, 1.343_75, 2.0], method: .follow, start: 0).reachingTheStart()
        #expect(dropped.fit.beats == [0.343_75, 0.843_75, 1.343_75, 2.0])
        #expect(dropped.added == 1)
        // Music that starts later keeps its layout start (0.475 s here): no point before it.
        let later = Self.fit([0.906_25, 1.406_25, 2.0], method: .follow, start: 0.6).reachingTheStart()
        #expect(later.fit.beats == [0.906_25, 1.406_25, 2.0])
    }

    @Test("grids, beats that already start with the music and a single beat are left as they are")
    func untouched() {
        let grid = Self.fit([2.0, 2.5, 3.0], method: .gridConstant, start: 0.3)
        #expect(grid.reachingTheStart().added == 0)
        #expect(grid.reachingTheStart().fit == grid)
        let started = Self.fit([0.4, 0.9, 1.4], method: .follow, start: 0.3)
        #expect(started.reachingTheStart().fit == started)
        let single = Self.fit([2.0], method: .follow, start: 0.3)
        #expect(single.reachingTheStart().added == 0)
    }

    @Test("the bar phase runs on backwards over the beats put before the first", arguments: [1, 3, 4, 7])
    func barsCarried(count: Int) {
        var estimate = BarEstimate(beatsPerBar: 4, firstDownbeat: 1, phaseConfidence: 0.9, meterConfidence: 0.9)
        let moved = estimate.withBeatsBefore(count)
        for index in 0..<40 {
            #expect(moved.isDownbeat(index + count) == estimate.isDownbeat(index), "beat \(index)")
        }
        // The added beats continue the bars backwards: a downbeat every fourth beat before the first.
        let added = (0..<count).filter { moved.isDownbeat($0) }
        #expect(added == (0..<count).filter { (count + 1 - $0) % 4 == 0 })
        // Sections move with their beats; one from the first beat takes in the added beats.
        estimate.sections = [BarSection(start: 0, position: 3), BarSection(start: 10, position: 0)]
        let sectioned = estimate.withBeatsBefore(count)
        #expect(
            sectioned.sections == [
                BarSection(start: 0, position: (3 - count % 4 + 4) % 4), BarSection(start: 10 + count, position: 0),
            ])
        for index in 0..<40 {
            #expect(sectioned.isDownbeat(index + count) == estimate.isDownbeat(index), "beat \(index)")
        }
        #expect(estimate.withBeatsBefore(0) == estimate)
    }
}
