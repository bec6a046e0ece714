// SPDX-License-Identifier: GPL-3.0-or-later

import Testing

@testable import BeatAnalysis

/// A recording that ends in its own noise sounds only until the music stops (``NoiseFloor``): a
/// ringing ending's beats are not laid over the noise after it.
@Suite("Noise after the music")
struct NoiseFloorTests {
    static let hop = 0.01

    /// Mean squares per hop (10 ms): `head` seconds at `noise` (2e-5, 37 dB under the music's loud
    /// level), then `music` seconds at 1e-2 and 2e-3 in turn every 0.25 s, then `tail` seconds at `noise`.
    static func levels(head: Double, music: Double, tail: Double, noise: Float = 2e-5) -> [Float] {
        let counts = [head, music, tail].map { Int(($0 / hop).rounded()) }
        let body = (0..<counts[1]).map { index -> Float in (index / 25) % 2 == 0 ? 1e-2 : 2e-3 }
        return Array(repeating: noise, count: counts[0]) + body + Array(repeating: noise, count: counts[2])
    }

    @Test("the noise after the music is found, and the music sounds until it stops")
    func noiseAfterTheMusic() throws {
        let levels = Self.levels(head: 3, music: 20, tail: 5)
        let floor = try #require(NoiseFloor(levels: levels, hopDuration: Self.hop))
        #expect(floor.level == 2e-5)
        // The windows step by half a second: the first one all in the noise starts as the music ends.
        #expect(floor.tail.lowerBound >= 23.0 && floor.tail.lowerBound <= 23.5)
        #expect(abs(floor.tail.upperBound - 28) < 1e-9)
        let fitter = GridFitter()
        // Without the floor, the noise (within 30 dB of the loud level) sounds to the file's end.
        let plain = try #require(fitter.soundingSpan(levels, hopDuration: Self.hop))
        #expect(plain.lowerBound == 0 && plain.upperBound > 27.9)
        let sounding = try #require(fitter.soundingSpan(levels, hopDuration: Self.hop, readingNoise: true))
        #expect(sounding.upperBound >= 23.0 && sounding.upperBound <= 23.5)
        // The noise before the music is left as it sounds: a quiet intro at the floor is the
        // music's as often as not.
        #expect(sounding.lowerBound == 0)
    }

    @Test("a groove that ends in eight seconds of noise gets no beats over the noise")
    func grooveEndingInNoise() throws {
        // Onsets every 0.5 s from 0.3 s to 15.8 s (120 BPM), none in the noise; the levels of
        // ``levels(head:music:tail:noise:)``, no noise before the music and 8 s of it after.
        let hits = (0..<32).map { 0.3 + Double($0) * 0.5 }
        let novelty = OnsetCurves.peaks(hits.map { (time: $0, height: Float(1)) }, seconds: 24)
        // A hundredth of those levels: onsets of height 1 are a groove's at this loudness, not a tone's
        // ripple (the fitter's steady-tone check).
        let levels = Self.levels(head: 0, music: 16, tail: 8).map { $0 / 100 }
        let fit = try GridFitter().fit(novelty.envelope, duration: 24, levels: levels)
        let lastHit = try #require(hits.last)
        let lastBeat = try #require(fit.beats.last)
        // Without the floor the noise "sounds" to 24 s, and a ringing ending's beats ran to 23 s.
        #expect(lastBeat <= lastHit + 0.5 + 0.01, "last beat at \(lastBeat) s, last hit at \(lastHit) s")
        #expect(fit.beats.count >= hits.count)
    }

    @Test("a render's digital silence, noise 40 dB down, music to the end, or noise alone give no floor")
    func noFloor() {
        #expect(NoiseFloor(levels: Self.levels(head: 3, music: 20, tail: 5, noise: 0), hopDuration: Self.hop) == nil)
        #expect(
            NoiseFloor(levels: Self.levels(head: 3, music: 20, tail: 5, noise: 5e-7), hopDuration: Self.hop) == nil)
        // The file ends within the music, or in under two seconds of the noise.
        #expect(NoiseFloor(levels: Self.levels(head: 3, music: 20, tail: 0), hopDuration: Self.hop) == nil)
        #expect(NoiseFloor(levels: Self.levels(head: 3, music: 20, tail: 1), hopDuration: Self.hop) == nil)
        // Nothing but the noise: no music to end.
        #expect(NoiseFloor(levels: Self.levels(head: 10, music: 0, tail: 0), hopDuration: Self.hop) == nil)
    }
}
