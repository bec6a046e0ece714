// SPDX-License-Identifier: GPL-3.0-or-later

import Foundation
import Testing

@testable import BeatAnalysis

/// The back-beat rule (``BackBeat``): a snare on two beats of each 4/4 bar a half bar apart says those
/// are beats 2 and 4, never 1 and 3; and the meter estimate moves bars whose downbeats it marks.
@Suite("Back-beat")
struct BackBeatTests {
    /// The snare at `count` beats: `levels[index % 4]`, with a small deterministic wobble so that no
    /// two bars are alike.
    static func snares(_ levels: [Float], count: Int = 64) -> [Float?] {
        (0..<count).map { index -> Float? in
            let wobble = Float((index * 7) % 5) * 0.04
            return levels[index % 4] + wobble
        }
    }

    @Test("a back-beat on beats 1 and 3 of the bars read is on their downbeats; on 2 and 4 it is not")
    func backBeat() {
        let snares = Self.snares([0.1, 0.8, 0.1, 0.8])
        // Bars starting on beat 1 of the pattern have the snare on their beats 1 and 3.
        #expect(BackBeat.onTheDownbeats(snares, phase: 1))
        #expect(BackBeat.onTheDownbeats(snares, phase: 3))
        #expect(!BackBeat.onTheDownbeats(snares, phase: 0))
        #expect(!BackBeat.onTheDownbeats(snares, phase: 2))
    }

    @Test(
        "a half-time snare (beat 3 alone), a snare on every beat, or none, moves no bars",
        arguments: [
            [Float(0.1), 0.1, 0.8, 0.1], [0.8, 0.8, 0.8, 0.8], [0, 0, 0, 0],
        ])
    func noBackBeat(levels: [Float]) {
        let snares = Self.snares(levels)
        for phase in 0..<4 { #expect(!BackBeat.onTheDownbeats(snares, phase: phase), "phase \(phase)") }
    }

    @Test("fewer than eight whole bars read, or beats the detector did not read, say nothing")
    func tooFewBars() {
        let levels: [Float] = [0.8, 0.1, 0.8, 0.1]
        #expect(BackBeat.onTheDownbeats(Self.snares(levels, count: 32), phase: 0))
        #expect(!BackBeat.onTheDownbeats(Self.snares(levels, count: 31), phase: 0))
        var unread = Self.snares(levels, count: 64)
        for index in 28..<64 { unread[index] = nil }
        #expect(!BackBeat.onTheDownbeats(unread, phase: 0))
        #expect(!BackBeat.onTheDownbeats([], phase: 0))
    }

    @Test("the meter estimate moves 4/4 bars whose downbeats are the back-beat by one beat")
    func estimateMoves() throws {
        // The kick on every other beat, as loud on each: the likelihoods cannot tell beat 1 from
        // beat 2 of the snare's pattern by it, and choose the first phase.
        let count = 64
        var features = BarCurves.kick(count: count, every: 2, at: 0)
        let without = try #require(MeterEstimator(meters: [4]).estimate(features))
        try #require(without.firstDownbeat % 2 == 0)
        // The snare on the beats the kick leaves: the back-beat, 2 and 4. Bars on the kick are right.
        features.snares = Self.snares([0.1, 0.8, 0.1, 0.8], count: count)
        let kept = try #require(MeterEstimator(meters: [4]).estimate(features))
        #expect(kept.firstDownbeat == without.firstDownbeat)
        // The snare on the kick's beats: those are 2 and 4, so the bars move onto the beats between.
        features.snares = Self.snares([0.8, 0.1, 0.8, 0.1], count: count)
        let moved = try #require(MeterEstimator(meters: [4]).estimate(features))
        #expect(moved.firstDownbeat % 2 == 1)
        #expect(moved.beatsPerBar == 4)
    }
}
