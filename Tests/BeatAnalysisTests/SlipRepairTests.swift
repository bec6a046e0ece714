// SPDX-License-Identifier: GPL-3.0-or-later

import BeatMapKit
import Foundation
import Testing

@testable import BeatAnalysis

/// Followed beats: a tracker that slipped half a beat onto the off-beats for a while is put back, on
/// the side the kick is on over the whole song (or, where the kick does not lean, the side the tracker
/// put most beats on); tempo changes and drift are not slips.
@Suite("Tracker slips")
struct SlipRepairTests {
    /// 200 beats 0.5 s apart from 1 s.
    static let grid = (0..<200).map { 1 + Double($0) * 0.5 }

    /// The grid as a tracker follows it off the beat from beat 60 to beat 120: four intervals an
    /// eighth of a beat long each take it half a beat late, four as short bring it back.
    static let detour: [Double] = {
        var beats: [Double] = []
        var t = 1.0
        for index in 0..<200 {
            beats.append(t)
            t += (60..<64).contains(index) ? 0.5625 : (120..<124).contains(index) ? 0.4375 : 0.5
        }
        return beats
    }()

    static func matches(_ beats: [Double], _ expected: [Double]) -> Bool {
        beats.count == expected.count && zip(beats, expected).allSatisfy { abs($0 - $1) < 1e-6 }
    }

    @Test("a detour onto the off-beats and back is undone; the beats inside the slips are laid again")
    func detourUndone() {
        // The kick leans to the beats only a little (0.6 against 0.4 on the midpoints: too little for a
        // section's own neighbourhood to move it), but over the whole song it says which side is the beat.
        let low = KickPhaseTests.lowBand(Self.grid, onBeat: 0.6, midpoint: 0.4)
        let repaired = GridFitter().repairingSlips(Self.detour, lowBand: low)
        #expect(Self.matches(repaired, Self.grid))
    }

    @Test("a tracker that slides onto the off-beats over eight beats, some barely longer, is put back")
    func slideUndone() {
        // Eight intervals that together take the tracker half a beat late; two of them are longer by
        // only 2 % and 2.5 %, under the 3 % that starts a slip (session 54: a ramped copy's tracker
        // slid so, and the off-beats it reached were kept). Four short intervals bring it back.
        let slide = [0.05, 0.02, 0.09, 0.025, 0.08, 0.06, 0.10, 0.075]
        var tracked: [Double] = []
        var t = 1.0
        for index in 0..<200 {
            tracked.append(t)
            t += (60..<68).contains(index) ? 0.5 * (1 + slide[index - 60]) : (120..<124).contains(index) ? 0.4375 : 0.5
        }
        let low = KickPhaseTests.lowBand(Self.grid, onBeat: 0.6, midpoint: 0.4)
        let repaired = GridFitter().repairingSlips(tracked, lowBand: low)
        #expect(Self.matches(repaired, Self.grid))
    }

    @Test("when the kick is on the detour's side, the rest moves onto it instead")
    func kickDecidesTheSide() throws {
        let offBeats = Self.grid.map { $0 + 0.25 }
        let low = KickPhaseTests.lowBand(offBeats, onBeat: 0.6, midpoint: 0.4)
        let repaired = GridFitter().repairingSlips(Self.detour, lowBand: low)
        // Every beat on the kick: the runs before and after the detour move half a beat later.
        #expect(Self.matches(repaired, offBeats))
    }

    @Test("a kick that barely leans leaves the song on the side the tracker put most beats on")
    func barelyLeaningKickKeepsTheTrackersSide() throws {
        // The tracker is on the beat for 180 beats and slips half a beat late for the last 20 (four
        // intervals an eighth of a beat long). The low band at the beats and their midpoints swaps
        // from beat to beat, leaning a hair to the midpoints overall (1.0 and 0.6 on even beats, 0.6
        // and 1.02 on odd ones): no evidence of which side is the beat. Until session 29 that lean
        // moved the 180 beats onto the off-beats.
        var tracked: [Double] = []
        var t = 1.0
        for index in 0..<200 {
            tracked.append(t)
            t += (180..<184).contains(index) ? 0.5625 : 0.5
        }
        let low = KickPhaseTests.lowBand(Self.grid) { $0 % 2 == 0 ? (1.0, 0.6) : (0.6, 1.02) }
        let repaired = GridFitter().repairingSlips(tracked, lowBand: low)
        let head = try #require(repaired.count >= 180 ? Array(repaired[0..<180]) : nil)
        #expect(Self.matches(head, Array(tracked[0..<180])))
        // Every beat, the slipped ones put back included, lies on the beat.
        #expect(repaired.allSatisfy { abs(($0 - 1) / 0.5 - (($0 - 1) / 0.5).rounded()) < 0.01 })
    }

    @Test(
        "the side of a slip-split tracking: the kick where it leans by over a nat, else the tracker's",
        arguments: [
            // A clear lean to side 1 (−0.3, ±0.1) outweighs a tracker mostly on side 0.
            (-0.3, 0.1, 100, 90, 10, 1),
            // A lean worth far under a nat (−0.01 against a swing of ±0.5 over 400 beats) keeps side 0.
            (-0.01, 0.5, 400, 380, 20, 0),
            // The same the other way, with the tracker mostly on side 1.
            (0.01, 0.5, 400, 20, 380, 1),
            // A silent low band: the tracker's side.
            (0, 0, 100, 30, 70, 1),
        ] as [(Double, Double, Int, Int, Int, Int)])
    func slipBeatSide(
        lean: Double, swing: Double, beats: Int, onSide0: Int, onSide1: Int, side: Int
    ) {
        // Per beat, the lean plus or minus the swing, in turn.
        let logRatios = (0..<beats).map { lean + ($0 % 2 == 0 ? swing : -swing) }
        #expect(GridFitter.slipBeatSide(kickLogRatios: logRatios, beatsPerSide: (onSide0, onSide1)) == side)
    }

    @Test("a lean's gain: nothing from silence, everything from values all alike, n/2 · ln(Σx²/Σ(x−mean)²) between")
    func leanGain() throws {
        #expect(GridFitter.leanGain([]).gain == 0)
        #expect(GridFitter.leanGain([0, 0, 0]).gain == 0)
        let alike = GridFitter.leanGain([-0.5, -0.5, -0.5, -0.5])
        #expect(alike.mean == -0.5 && alike.gain == .infinity)
        // 1 and 3: mean 2, Σx² 10, Σ(x − 2)² 2, gain ln 5.
        let two = GridFitter.leanGain([1, 3])
        #expect(two.mean == 2)
        #expect(abs(two.gain - log(5.0)) < 1e-12)
    }

    @Test("a tempo step that stays, a ±3 % drift and a missing low band are left alone")
    func notSlips() {
        let low = KickPhaseTests.lowBand(Self.grid, onBeat: 0.6, midpoint: 0.4)
        var step: [Double] = []
        var t = 1.0
        for index in 0..<200 {
            step.append(t)
            t += index < 100 ? 0.5 : 0.5 / 1.09
        }
        #expect(GridFitter().repairingSlips(step, lowBand: low) == step)
        var drift: [Double] = []
        t = 1.0
        for _ in 0..<200 {
            drift.append(t)
            t += 0.5 / (1 + 0.03 * sin(2 * Double.pi * t / 30))
        }
        #expect(GridFitter().repairingSlips(drift, lowBand: low) == drift)
        #expect(GridFitter().repairingSlips(Self.detour, lowBand: nil) == Self.detour)
    }
}
