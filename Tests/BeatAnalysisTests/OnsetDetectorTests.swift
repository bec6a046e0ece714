// SPDX-License-Identifier: GPL-3.0-or-later

import BeatAnalysis
import Foundation
import TestSynth
import Testing

@Suite("aubio onset detection")
struct OnsetDetectorTests {
    @Test(
        "the phase-free specflux chain equals aubio_onset's specflux descriptor, hop by hop",
        arguments: [22_050, 44_100, 48_000])
    func specfluxMatchesAubioOnset(sampleRate: Int) throws {
        let frame = AnalysisFrame(sampleRate: sampleRate)
        var track = TestTracks.drums(bpm: 131, start: 0.2, duration: 8, sampleRate: sampleRate).track
        track.addNoise(gain: 0.01)
        let reference = try AubioOnsetDetector(
            method: "specflux", bufferSize: frame.bufferSize, hopSize: frame.hopSize, sampleRate: sampleRate)
        let fast = try AubioSpecfluxDetector(
            bufferSize: frame.bufferSize, hopSize: frame.hopSize, sampleRate: sampleRate)
        var largest: Float = 0
        var worst: Float = 0
        track.samples.withUnsafeBufferPointer { samples in
            guard let base = samples.baseAddress else { return }
            var offset = 0
            while offset + frame.hopSize <= samples.count {
                reference.process(base + offset)
                let expected = reference.descriptor
                let value = fast.process(base + offset)
                largest = max(largest, abs(expected))
                worst = max(worst, abs(value - expected))
                offset += frame.hopSize
            }
        }
        #expect(largest > 1, "the track has onsets")
        #expect(worst <= largest * 1e-5, "largest difference \(worst) for values up to \(largest)")
    }

    // Measured: single peaks sit up to ±3.5 ms from the clicks (a peak is placed between hops 11.6 ms
    // apart by a parabola); their median is within 1 ms.
    @Test("onset peaks of a click track land within 4 ms of the clicks, their median within 1 ms")
    func peaks() throws {
        let (track, truth) = TestTracks.clicks(bpm: 100, start: 0.31, duration: 10)
        let folder = try TestTracks.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("clicks.wav")
        try WAVWriter.write(track, to: url)
        let envelope = try AudioAnalyzer().analyze(url).envelope
        let onsets = envelope.onsets()
        #expect(onsets.count == truth.count)
        var errors: [Double] = []
        for (onset, click) in zip(onsets, truth) {
            #expect(abs(onset - click) < 0.004, "\(onset) vs \(click)")
            errors.append(onset - click)
        }
        errors.sort()
        #expect(abs(errors[errors.count / 2]) < 0.001, "median \(errors[errors.count / 2])")
        #expect(envelope.hopDuration == AnalysisFrame.analysis.hopDuration)
    }
}
