// SPDX-License-Identifier: GPL-3.0-or-later

import Foundation
import Testing

@testable import BeatAnalysis

/// The one-drop rule (``OneDrop``): the kick alone on one beat of each four with the snare on the same
/// beat is a one-drop's beat 3, so its bars start two beats before it; a kick alone with the snare
/// elsewhere (a back-beat, a half-time feel) is beat 1 and moves nothing.
@Suite("One-drop")
struct OneDropTests {
    /// A drum's strength at `count` beats: `levels[index % 4]`, with a small deterministic wobble so
    /// that no two fours are alike.
    static func drum(_ levels: [Float], count: Int = 64, wobble step: Int = 7) -> [Float?] {
        (0..<count).map { index -> Float? in levels[index % 4] + Float((index * step) % 5) * 0.04 }
    }

    @Test("kick and snare together alone on beat 2 of each four of the pattern: the bars start on beat 0")
    func oneDrop() throws {
        let kicks = Self.drum([0.05, 0.1, 0.9, 0.1])
        let snares = Self.drum([0.2, 0.3, 0.8, 0.3], wobble: 3)
        let drop = try #require(OneDrop.drop(kicks: kicks, snares: snares))
        #expect(drop == 2)
        #expect(OneDrop.phase(drop: drop) == 0)
        #expect(OneDrop.phase(drop: 0) == 2)
        #expect(OneDrop.phase(drop: 3) == 1)
    }

    @Test(
        "a kick alone with the snare on the back-beat, on a half-time feel's beat 3, on every beat or none: no one-drop",
        arguments: [
            [Float(0.1), 0.8, 0.1, 0.8], [0.1, 0.1, 0.8, 0.1], [0.8, 0.8, 0.8, 0.8], [0, 0, 0, 0],
        ])
    func noOneDrop(snareLevels: [Float]) {
        let kicks = Self.drum([0.9, 0.1, 0.05, 0.1])
        #expect(OneDrop.drop(kicks: kicks, snares: Self.drum(snareLevels, wobble: 3)) == nil)
    }

    @Test("a kick on every beat, none heard, fewer than eight fours or no snare read say nothing")
    func noEvidence() {
        let snares = Self.drum([0.2, 0.3, 0.8, 0.3], wobble: 3)
        #expect(OneDrop.drop(kicks: Self.drum([0.9, 0.9, 0.9, 0.9]), snares: snares) == nil)
        #expect(OneDrop.drop(kicks: Self.drum([0.02, 0.02, 0.3, 0.02]), snares: snares) == nil)
        let kicks = Self.drum([0.05, 0.1, 0.9, 0.1])
        #expect(OneDrop.drop(kicks: Self.drum([0.05, 0.1, 0.9, 0.1], count: 31), snares: snares) == nil)
        #expect(OneDrop.drop(kicks: kicks, snares: Self.drum([0.2, 0.3, 0.8, 0.3], count: 31, wobble: 3)) == nil)
        #expect(OneDrop.drop(kicks: kicks, snares: []) == nil)
        #expect(OneDrop.drop(kicks: [], snares: snares) == nil)
    }

    @Test("the meter estimate puts a one-drop's downbeats two beats before its kick")
    func estimateMoves() throws {
        // The low band's kick on beat 2 of each four of the pattern, as the bar features read it: the
        // likelihoods and the template put the bars on it.
        var features = BarCurves.kick(every: 4, at: 2)
        let without = try #require(MeterEstimator(meters: [4]).estimate(features))
        try #require(without.firstDownbeat == 2)
        // The learned kick alone there with the snare on the back-beat: a groove on beat 1, kept.
        features.kicks = Self.drum([0.05, 0.1, 0.9, 0.1])
        features.snares = Self.drum([0.1, 0.8, 0.1, 0.8], wobble: 3)
        let kept = try #require(MeterEstimator(meters: [4]).estimate(features))
        #expect(kept.firstDownbeat == 2)
        // The snare with the kick: a one-drop, whose bars start two beats earlier.
        features.snares = Self.drum([0.2, 0.3, 0.8, 0.3], wobble: 3)
        let moved = try #require(MeterEstimator(meters: [4]).estimate(features))
        #expect(moved.firstDownbeat == 0)
        #expect(moved.beatsPerBar == 4)
    }
}
