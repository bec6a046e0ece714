// SPDX-License-Identifier: GPL-3.0-or-later

import Foundation
import Testing

@testable import BeatAnalysis

/// The whole-song tempo estimate read in beat time (``GridFitter/beatTimeLevel(_:envelope:lowLevels:heardPeriod:)``):
/// the onsets laid out along tracked beats, so that a ramp does not smear the estimate.
@Suite("Beat time")
struct BeatTimeTests {
    /// The beats of a song ramping linearly from `from` to `to` BPM over `count` beats from 1 s.
    static func ramp(from: Double, to: Double, count: Int) -> [Double] {
        var beats = [1.0]
        for k in 1..<count {
            let bpm = from + (to - from) * Double(k) / Double(count - 1)
            beats.append(beats[k - 1] + 60 / bpm)
        }
        return beats
    }

    /// The beats a tracker at twice the tempo follows: each of `beats` and the point halfway to the next.
    static func doubled(_ beats: [Double]) -> [Double] {
        var result: [Double] = []
        for (index, beat) in beats.enumerated() {
            result.append(beat)
            if index + 1 < beats.count { result.append((beat + beats[index + 1]) / 2) }
        }
        return result
    }

    /// An onset envelope (hop 10 ms) with a three-hop peak of `strength` at each beat and of
    /// `offBeat` halfway between beats.
    static func envelope(beats: [Double], strength: Float, offBeat: Float) -> OnsetEnvelope {
        let hop = 0.01
        var values = [Float](repeating: 0, count: Int(((beats.last ?? 0) + 2) / hop))
        func peak(_ t: Double, _ value: Float) {
            let index = Int((t / hop).rounded())
            guard index >= 1, index + 1 < values.count else { return }
            values[index] = max(values[index], value)
            values[index - 1] = max(values[index - 1], value / 2)
            values[index + 1] = max(values[index + 1], value / 2)
        }
        for (index, beat) in beats.enumerated() {
            peak(beat, strength)
            if index + 1 < beats.count { peak((beat + beats[index + 1]) / 2, offBeat) }
        }
        return OnsetEnvelope(values: values, hopDuration: hop, startTime: 0)
    }

    @Test("beats tracked on a ramp's own beat: the level read in beat time is the same")
    func ownLevelKept() {
        let beats = Self.ramp(from: 100, to: 108, count: 160)
        let envelope = Self.envelope(beats: beats, strength: 1, offBeat: 0.3)
        #expect(GridFitter().beatTimeLevel(beats, envelope: envelope, lowLevels: nil) == nil)
    }

    @Test("beats tracked at twice a ramp's tempo (its weak off-beats among them): beat time reads ½")
    func doubledLevelHalved() throws {
        let beats = Self.ramp(from: 100, to: 108, count: 160)
        let envelope = Self.envelope(beats: beats, strength: 1, offBeat: 0.1)
        let factor = try #require(GridFitter().beatTimeLevel(Self.doubled(beats), envelope: envelope, lowLevels: nil))
        #expect(factor == 0.5)
    }

    @Test("laid out at another tempo, the level is still read against the tracked beats", arguments: [95.0, 115.0])
    func layoutTempo(bpm: Double) throws {
        let beats = Self.ramp(from: 100, to: 108, count: 160)
        let envelope = Self.envelope(beats: beats, strength: 1, offBeat: 0.1)
        #expect(GridFitter().beatTimeLevel(beats, envelope: envelope, lowLevels: nil, heardPeriod: 60 / bpm) == nil)
        // The doubled beats laid out at twice `bpm`: the beat-time song's beats at `bpm` again.
        let factor = try #require(
            GridFitter().beatTimeLevel(Self.doubled(beats), envelope: envelope, lowLevels: nil, heardPeriod: 30 / bpm))
        #expect(factor == 0.5)
    }

    @Test("too few tracked beats to read a tempo from: no level")
    func tooFewBeats() {
        let beats = Self.ramp(from: 100, to: 108, count: 12)
        let envelope = Self.envelope(beats: beats, strength: 1, offBeat: 0.1)
        #expect(GridFitter().beatTimeLevel(beats, envelope: envelope, lowLevels: nil) == nil)
    }

    @Test("intervals scattered around a steady tempo (30 and 31 hops): the local tempo is their mean")
    func localIntervalsBetweenHops() throws {
        // 170 BPM at hops of 11.6 ms is 30.4 hops; intervals of 30 three times in five and 31 twice,
        // in runs, have a median of 30 or 31 wherever it is read.
        let hop = 256.0 / 22_050
        let pattern = [30.0, 30, 30, 31, 31, 30, 30, 30, 31, 31, 30, 30, 30, 31, 31, 30, 30, 30, 31, 31]
        let intervals = pattern.map { $0 * hop }
        let local = GridFitter.localIntervals(intervals, radius: 8)
        let middle = try #require(local.indices.contains(10) ? local[10] : nil)
        #expect(abs(middle / hop - 30.4) < 0.1)
        // Every interval away from the ends reads within a fifth of a hop of 30.4, where the median
        // reads 30 or 31.
        for value in local[8..<12] { #expect(abs(value / hop - 30.4) < 0.2) }
    }

    @Test("a doubled and a dropped beat among steady intervals do not move the local tempo")
    func localIntervalsIgnoreSlips() throws {
        var intervals = [Double](repeating: 0.5, count: 17)
        intervals[5] = 0.25
        intervals[6] = 0.25
        intervals[11] = 1.0
        let local = GridFitter.localIntervals(intervals, radius: 8)
        let middle = try #require(local.indices.contains(8) ? local[8] : nil)
        #expect(middle == 0.5)
    }
}
