// SPDX-License-Identifier: GPL-3.0-or-later

import BeatAnalysis
import Foundation
import TestSynth
import Testing

/// The detection delay is compensated explicitly (``DetectionDelay``); these tests measure what is left
/// on synthetic click and drum tracks whose beat times are known exactly.
@Suite("Detection-delay compensation")
struct DelayCompensationTests {
    /// Signed errors (found − true) of the found times nearest each true beat, within `window`.
    static func errors(found: [Double], truth: [Double], window: Double) -> [Double] {
        truth.compactMap { beat in
            guard let nearest = found.min(by: { abs($0 - beat) < abs($1 - beat) }), abs(nearest - beat) <= window else {
                return nil
            }
            return nearest - beat
        }.sorted()
    }

    static func median(_ values: [Double]) -> Double { values.isEmpty ? .nan : values[values.count / 2] }

    static func analyse(_ track: SynthTrack, runTracker: Bool = false) throws -> AudioAnalysis {
        let folder = try TestTracks.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("track.wav")
        try WAVWriter.write(track, to: url)
        var settings = AudioAnalysisSettings()
        settings.runTracker = runTracker
        return try AudioAnalyzer(settings: settings).analyze(url)
    }

    // Measured (2026-11, every file analysed at 22.05 kHz, resampled by libsoxr HQ): the fitted grid's
    // median residual per track is −0.36…+0.04 ms at 22.05 kHz, −0.20…+0.15 at 44.1, −0.18…+0.13 at 48
    // and −0.03…+0.36 at 96 kHz (the clicks are noise, a different signal at each rate); drums (a kick
    // whose sine starts at zero) read 1.98…2.03 ms late. Before, at each file's own rate: −0.09…+0.11
    // ms at 44.1 and 48 kHz, drums 2.1…2.3 ms. The delay constants did not need to move.
    @Test(
        "the fitted grid lies within 1 ms of click tracks at 44.1, 48, 22.05 and 96 kHz",
        arguments: [44_100, 48_000, 22_050, 96_000])
    func gridOnClicks(sampleRate: Int) throws {
        for bpm in [90.0, 117.3, 140.0] {
            let (track, truth) = TestTracks.clicks(bpm: bpm, start: 0.503, duration: 30, sampleRate: sampleRate)
            let analysis = try Self.analyse(track)
            let fit = try GridFitter().fit(analysis.envelope, duration: analysis.duration)
            let errors = Self.errors(found: fit.beats, truth: truth, window: 0.05)
            #expect(errors.count == truth.count, "every click gets a beat at \(bpm) BPM")
            #expect(abs(Self.median(errors)) < 0.001, "median residual \(Self.median(errors) * 1000) ms at \(bpm) BPM")
            #expect(errors.allSatisfy { abs($0) < 0.002 }, "every beat within 2 ms at \(bpm) BPM")
            #expect(abs(fit.segments[0].bpm - bpm) < 0.01)
        }
    }

    @Test("drum hits read at most 3 ms late (their attack is not a click)")
    func gridOnDrums() throws {
        let (track, truth) = TestTracks.drums(bpm: 117.3, start: 0.503, duration: 30)
        let analysis = try Self.analyse(track)
        let fit = try GridFitter().fit(analysis.envelope, duration: analysis.duration)
        let errors = Self.errors(found: fit.beats, truth: truth, window: 0.05)
        #expect(errors.count == truth.count)
        #expect(Self.median(errors) > 0, "median residual \(Self.median(errors) * 1000) ms")
        #expect(Self.median(errors) < 0.003, "median residual \(Self.median(errors) * 1000) ms")
    }

    // Measured (2026-11): aubio's raw beats (get_last) come 1.1 hop early on clicks. After compensation
    // the per-track medians over seven tempi are −11.9…+9.2 ms (aubio's phase drifts) and their median
    // is −2.6 ms, inside the 5 ms bound asserted here (at 44.1 kHz per file before: −11.8…+8.5, −2.6).
    @Test("aubio tracker beats, compensated, have a median residual under 5 ms on clicks")
    func trackerOnClicks() throws {
        var medians: [Double] = []
        for bpm in [80.0, 90.0, 101.0, 117.3, 128.0, 140.0, 155.0] {
            let (track, truth) = TestTracks.clicks(bpm: bpm, start: 0.503, duration: 30)
            let analysis = try Self.analyse(track, runTracker: true)
            let beats = try #require(analysis.trackerBeats)
            let errors = Self.errors(found: beats, truth: truth, window: 0.1)
            #expect(errors.count >= truth.count * 3 / 4, "aubio locks on after its first seconds at \(bpm) BPM")
            medians.append(Self.median(errors))
        }
        medians.sort()
        #expect(abs(Self.median(medians)) < 0.005, "median residuals \(medians.map { $0 * 1000 }) ms")
    }

    @Test("files at every rate are analysed at 22 050 Hz with a hop of 256 samples (≈ 11.6 ms)")
    func analysisFrame() throws {
        let frame = AnalysisFrame.analysis
        #expect(frame.sampleRate == 22_050)
        #expect(frame.hopSize == 256)
        #expect(frame.bufferSize == 512)
        #expect(abs(frame.hopDuration / AnalysisFrame.referenceHopDuration - 1) < 1e-12)
        for rate in [8_000, 22_050, 44_100, 48_000, 96_000] {
            let (track, _) = TestTracks.clicks(bpm: 120, duration: 3, sampleRate: rate)
            let analysis = try Self.analyse(track)
            #expect(analysis.frame == frame, "rate \(rate)")
            #expect(analysis.sampleRate == rate)
            #expect(analysis.frames == Int64(3 * rate))
            #expect(analysis.envelope.count == (3 * 22_050 + 255) / 256, "rate \(rate)")
        }
    }
}
