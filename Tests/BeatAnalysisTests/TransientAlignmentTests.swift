// SPDX-License-Identifier: GPL-3.0-or-later

import Foundation
import TestSynth
import Testing

@testable import BeatAnalysis

/// Beats on the start of the transients: the steepest rise of the fine, high-passed energy around the
/// beats, the same at every sample rate.
@Suite("Transient alignment")
struct TransientAlignmentTests {
    /// The drum track at 125 BPM (kick, snare, hi-hats) analysed at `sampleRate`, with its hit times.
    static func analysed(sampleRate: Int, precursor: Bool = false) throws -> (AudioAnalysis, [Double]) {
        var (track, beats) = TestTracks.drums(bpm: 125, start: 0.5, duration: 30, sampleRate: sampleRate)
        if precursor {
            // A quiet click 3 ms before every hit, 40 dB under it: a codec's pre-echo, a filter's
            // pre-ringing.
            for beat in beats { track.add(.click, at: beat - 0.003, gain: 0.006) }
        }
        let folder = try TestTracks.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("drums-\(sampleRate).wav")
        try WAVWriter.write(track, to: url)
        return (try AudioAnalyzer().analyze(url), beats)
    }

    static func shift(_ analysis: AudioAnalysis, beats: [Double]) -> Double? {
        TransientAlignment.shift(
            beats: beats, blockLevels: analysis.blockLevels, blockDuration: analysis.blockDuration)
    }

    @Test("beats 6 ms late or 4 ms early are moved onto the hits, within 0.5 ms")
    func movesOntoHits() throws {
        let (analysis, hits) = try Self.analysed(sampleRate: 44_100)
        let late = try #require(Self.shift(analysis, beats: hits.map { $0 + 0.006 }))
        #expect(abs(late + 0.006) <= 0.000_5, "shift \(late * 1000) ms")
        let early = try #require(Self.shift(analysis, beats: hits.map { $0 - 0.004 }))
        #expect(abs(early - 0.004) <= 0.000_5, "shift \(early * 1000) ms")
    }

    @Test("the shift is the same at 22.05, 44.1 and 48 kHz (within 0.2 ms)")
    func sameAtEveryRate() throws {
        var shifts: [Double] = []
        for rate in [22_050, 44_100, 48_000] {
            let (analysis, hits) = try Self.analysed(sampleRate: rate)
            shifts.append(try #require(Self.shift(analysis, beats: hits.map { $0 + 0.005 })))
        }
        let spread = (shifts.max() ?? 0) - (shifts.min() ?? 0)
        #expect(spread <= 0.000_2, "shifts \(shifts.map { $0 * 1000 }) ms")
    }

    @Test("a precursor 40 dB under the hits does not move the beats (within 0.3 ms)")
    func precursorIgnored() throws {
        let (clean, hits) = try Self.analysed(sampleRate: 44_100)
        let (withPrecursor, _) = try Self.analysed(sampleRate: 44_100, precursor: true)
        let beats = hits.map { $0 + 0.005 }
        let a = try #require(Self.shift(clean, beats: beats))
        let b = try #require(Self.shift(withPrecursor, beats: beats))
        #expect(abs(a - b) <= 0.000_3, "shifts \(a * 1000) and \(b * 1000) ms")
    }

    @Test("fewer than 16 beats, or beats past the block levels, place nothing")
    func tooFewBeats() throws {
        let (analysis, hits) = try Self.analysed(sampleRate: 22_050)
        #expect(Self.shift(analysis, beats: Array(hits.prefix(15))) == nil)
        #expect(Self.shift(analysis, beats: hits.map { $0 + 100 }) == nil)
    }

    /// Block energies for hits at `hits` that step up twice: to `first` (a share of the loudest) at
    /// the hit, and to the loudest 10 ms later, over a near-silent floor.
    static func layered(hits: [Double], first: Float, blockDuration: Double, seconds: Double) -> [Float] {
        var levels = [Float](repeating: 1e-9, count: Int(seconds / blockDuration))
        for hit in hits {
            let start = Int((hit / blockDuration).rounded())
            let second = Int(((hit + 0.010) / blockDuration).rounded())
            let end = Int(((hit + 0.030) / blockDuration).rounded())
            for index in start..<min(end, levels.count) { levels[index] = index < second ? first : 1 }
        }
        return levels
    }

    @Test("a layered hit whose two rises are about as steep is placed on the first, whichever is steeper")
    func layeredHitTakesTheFirstRise() throws {
        let blockDuration = 16.0 / 22_050
        let hits = (0..<40).map { 0.5 + Double($0) * 0.5 }
        let beats = hits.map { $0 + 0.004 }
        // At a tenth of the loudest energy the two rises of the log energy over its floor are alike;
        // at 0.088 the second is 2 % steeper, at 0.11 the first is.
        for first: Float in [0.088, 0.11] {
            let levels = Self.layered(hits: hits, first: first, blockDuration: blockDuration, seconds: 21)
            let shift = try #require(
                TransientAlignment.shift(beats: beats, blockLevels: levels, blockDuration: blockDuration))
            #expect(abs(shift + 0.004) <= 0.001, "first layer at \(first): shift \(shift * 1000) ms")
        }
        // A first layer far quieter than the hit (a precursor) does not take the beat from it.
        let quiet = Self.layered(hits: hits, first: 0.02, blockDuration: blockDuration, seconds: 21)
        let shift = try #require(
            TransientAlignment.shift(beats: beats, blockLevels: quiet, blockDuration: blockDuration))
        #expect(abs(shift - 0.006) <= 0.001, "quiet first layer: shift \(shift * 1000) ms")
    }
}
