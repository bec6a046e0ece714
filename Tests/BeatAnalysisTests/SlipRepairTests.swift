// SPDX-License-Identifier: GPL-3.0-or-later

import BeatMapKit
import Foundation
import Testing

@testable import BeatAnalysis

/// Followed beats: a tracker that slipped half a beat onto the off-beats for a while is put back, on
/// the side the kick is on over the whole song; tempo changes and drift are not slips.
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

    @Test("when the kick is on the detour's side, the rest moves onto it instead")
    func kickDecidesTheSide() throws {
        let offBeats = Self.grid.map { $0 + 0.25 }
        let low = KickPhaseTests.lowBand(offBeats, onBeat: 0.6, midpoint: 0.4)
        let repaired = GridFitter().repairingSlips(Self.detour, lowBand: low)
        // Every beat on the kick: the runs before and after the detour move half a beat later.
        #expect(Self.matches(repaired, offBeats))
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
