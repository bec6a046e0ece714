// SPDX-License-Identifier: GPL-3.0-or-later

import BeatMapKit
import Testing

@testable import BeatAnalysis

/// A tempo change within the tracker's reach keeps the beat: a later grid segment a fraction of a beat
/// away from the earlier one moves to continue it, unless its onsets clearly say it lies where it is.
@Suite("A tempo change keeps the beat")
struct BeatContinuityTests {
    /// 125 BPM (0.48 s) from 1 s for 60 beats, its last at 29.32 s.
    static let before = FittedSegment(bpm: 125, firstBeat: 1, beats: (0..<60).map { 1 + Double($0) * 0.48 })
    /// Where 150 BPM (0.4 s) continues it: from 29.72 s.
    static let continued = 29.72

    /// 150 BPM for 60 beats from `first`.
    static func after(from first: Double) -> FittedSegment {
        FittedSegment(bpm: 150, firstBeat: first, beats: (0..<60).map { first + Double($0) * 0.4 })
    }

    /// An onset envelope (hop 10 ms) with a three-hop peak at each of `times`, of a strength drawn
    /// from a fixed pseudo-random sequence between 0.6 and 1.
    static func novelty(peaks times: [Double]) -> Novelty {
        let hop = 0.01
        var values = [Float](repeating: 0, count: 6_000)
        var seed: UInt32 = 12_345
        for t in times {
            seed = seed &* 1_664_525 &+ 1_013_904_223
            let strength = 0.6 + 0.4 * Float(seed >> 8) / Float(1 << 24)
            let index = Int((t / hop).rounded())
            values[index] = max(values[index], strength)
            values[index - 1] = max(values[index - 1], strength / 2)
            values[index + 1] = max(values[index + 1], strength / 2)
        }
        return Novelty(envelope: OnsetEnvelope(values: values, hopDuration: hop, startTime: 0))
    }

    @Test("no jump at a continuous change or beyond the tracker's reach; a quarter beat early moves ¼ later")
    func jumps() throws {
        #expect(GridFitter.phaseJump(from: Self.before, to: Self.after(from: Self.continued)) == nil)
        // Anywhere between the two intervals is continuous: the change may fall inside a beat.
        #expect(GridFitter.phaseJump(from: Self.before, to: Self.after(from: 29.32 + 0.46)) == nil)
        // So is one beat on, the beat at the change missing from the layout.
        #expect(GridFitter.phaseJump(from: Self.before, to: Self.after(from: 29.32 + 0.48 + 0.4)) == nil)
        let early = try #require(GridFitter.phaseJump(from: Self.before, to: Self.after(from: Self.continued - 0.1)))
        #expect(abs(early - 0.25) < 1e-9)
        let medley = FittedSegment(bpm: 200, firstBeat: 29.5, beats: (0..<60).map { 29.5 + Double($0) * 0.3 })
        #expect(GridFitter.phaseJump(from: Self.before, to: medley) == nil)
    }

    @Test("a segment a quarter beat early over sixteenths alike (a bossa's) moves to continue the one before")
    func quarterBeatOverEvenSixteenths() throws {
        let sixteenths = (0..<240).map { Self.continued + Double($0) * 0.1 }
        let novelty = Self.novelty(peaks: Self.before.beats + sixteenths)
        let result = GridFitter().continuingTheBeat(
            [Self.before, Self.after(from: Self.continued - 0.1)], novelty: novelty, duration: 60)
        #expect(result.moved)
        try #require(result.segments.count == 2)
        #expect(result.segments[0] == Self.before)
        #expect(abs(result.segments[1].firstBeat - Self.continued) < 1e-9)
        #expect(result.segments[1].beats.count == 60)
    }

    @Test("a segment under half a beat after the one before moves back onto its last beat, which it then starts")
    func shortGapTakesTheChangeBeat() throws {
        // The later grid from 29.46 s: 0.14 s (0.35 of its beat) after the earlier one's last beat.
        let sixteenths = (0..<240).map { Self.continued + Double($0) * 0.1 }
        let novelty = Self.novelty(peaks: Self.before.beats + sixteenths)
        let close = Self.after(from: 29.46)
        let jump = try #require(GridFitter.phaseJump(from: Self.before, to: close))
        #expect(abs(jump + 0.35) < 1e-9)
        let result = GridFitter().continuingTheBeat([Self.before, close], novelty: novelty, duration: 60)
        #expect(result.moved)
        try #require(result.segments.count == 2)
        // The beat at 29.32 s is the change: the earlier segment ends a beat before it.
        #expect(result.segments[0].beats.count == 59)
        #expect(abs((result.segments[0].beats.last ?? 0) - 28.84) < 1e-9)
        #expect(abs(result.segments[1].firstBeat - 29.32) < 1e-9)
        #expect(result.segments[1].beats.count == 60)
        let beats = result.segments.flatMap(\.beats)
        #expect(zip(beats, beats.dropFirst()).allSatisfy { $1 - $0 > 0.39 })
    }

    @Test("a segment whose onsets are only on its own beats stays where it is")
    func ownOnsetsKeepTheJump() throws {
        let own = Self.after(from: Self.continued - 0.1)
        let novelty = Self.novelty(peaks: Self.before.beats + own.beats)
        let result = GridFitter().continuingTheBeat([Self.before, own], novelty: novelty, duration: 60)
        #expect(!result.moved)
        #expect(result.segments == [Self.before, own])
    }
}
