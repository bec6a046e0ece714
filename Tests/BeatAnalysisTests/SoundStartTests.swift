// SPDX-License-Identifier: GPL-3.0-or-later

import BeatMapKit
import Foundation
import TestSynth
import Testing

@testable import BeatAnalysis

/// A first note that fades or swells in sounds from where its rise leaves the quiet before it, not
/// from where it reaches 30 dB under the loud level (``GridFitter/riseStart(_:from:within:loud:)``):
/// step 7 lays the first beat a quarter beat before the sound starts, and a slow attack reached that
/// line a beat or more after its note began (session 81's trial FS).
@Suite("Where the first sound starts")
struct SoundStartTests {
    static let hop = 0.01

    /// Mean squares per hop (10 ms): `head` hops at `floor`, then a rise of `rise` hops from 80 dB
    /// down to the loud level (1.0), 4 dB a hop, then `body` hops at the loud level.
    static func levels(head: Int, floor: Float, rise: Int = 20, body: Int = 1_000) -> [Float] {
        let swell = (0..<rise).map { Float(pow(10, (-80 + 4 * Double($0)) / 10)) }
        return Array(repeating: floor, count: head) + swell + Array(repeating: 1, count: body)
    }

    @Test("a swell out of digital silence sounds from its first hop above 90 dB down")
    func swellFromSilence() throws {
        let levels = Self.levels(head: 200, floor: 0)
        let fitter = GridFitter()
        // The 30 dB line: the swell reaches it 13 hops in (−28 dB).
        let plain = try #require(fitter.soundingSpan(levels, hopDuration: Self.hop))
        #expect(abs(plain.lowerBound - 2.13) < 1e-9)
        let rising = try #require(fitter.soundingSpan(levels, hopDuration: Self.hop, risingWithin: 1))
        #expect(abs(rising.lowerBound - 2.0) < 1e-9)
        #expect(rising.upperBound == plain.upperBound)
    }

    @Test("a rise out of a recording's hiss starts 10 dB over the hiss")
    func riseFromHiss() {
        // Hiss at 60 dB down: the rise line is 50 dB down, which the swell passes 8 hops in (−48 dB).
        let levels = Self.levels(head: 300, floor: 1e-6)
        #expect(GridFitter.riseStart(levels, from: 313, within: 100, loud: 1) == 308)
    }

    @Test("the walk back is bounded, and a file that sounds from its first hop is left as it is")
    func bounds() {
        let levels = Self.levels(head: 200, floor: 0)
        #expect(GridFitter.riseStart(levels, from: 213, within: 5, loud: 1) == 208)
        #expect(GridFitter.riseStart(levels, from: 213, within: 0, loud: 1) == 213)
        let loudFromTheStart = [Float](repeating: 1, count: 100)
        #expect(GridFitter.riseStart(loudFromTheStart, from: 0, within: 50, loud: 1) == 0)
        // A hop back at the floor ends the walk: only the rise that crosses the line counts.
        var gapped = levels
        gapped[205] = 0
        #expect(GridFitter.riseStart(gapped, from: 213, within: 100, loud: 1) == 206)
    }

    @Test("a pad that swells in out of silence a second before the drums gets its beats from its first note")
    func padSwell() throws {
        // Silence to 0.5 s; then a 220 Hz pad that swells from 80 dB down to its level over a second,
        // reaching 30 dB under the loud level about 0.7 s in; 120 BPM drums from 1.5 s.
        var (track, drumBeats) = TestTracks.drums(bpm: 120, start: 1.5, duration: 16)
        let rate = Double(track.sampleRate)
        for index in track.samples.indices where Double(index) / rate >= 0.5 {
            let time = Double(index) / rate
            let gain = 0.15 * pow(10, (min(time - 0.5, 1) - 1) * 80 / 20)
            track.samples[index] += Float(gain * sin(2 * Double.pi * 220 * (time - 0.5)))
        }
        let (result, folder) = try GridFitTests.analyse(track)
        defer { try? FileManager.default.removeItem(at: folder) }
        // The grid's points at 0.5 and 1 s lie on the pad's first note and its next beat.
        let first = try #require(result.map.beats.first)
        #expect(abs(first - 0.5) <= 0.01, "first beats \(result.map.beats.prefix(4)) s")
        #expect(GridFitTests.compare(result.map.beats, [0.5, 1] + drumBeats).missed == 0)
    }
}
