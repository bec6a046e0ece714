// SPDX-License-Identifier: GPL-3.0-or-later

import BeatAnalysis
import BeatAudio
import BeatMapKit
import Foundation
import TestSynth
import Testing

/// Every file is analysed at one internal rate (22 050 Hz, hop 256): the same audio at different
/// sample rates gives the same onset envelope.
@Suite("One analysis rate")
struct AnalysisRateTests {
    /// Click times of the band-limited click track: irregular, so they fall anywhere in a hop.
    static let clickTimes: [Double] = (0..<19).map { (index: Int) -> Double in
        let n = Double(index)
        let jitter = Double(index % 3) * 0.0011
        return 0.2503 + n * 0.4937 + jitter
    }

    /// `duration` seconds at `sampleRate` of clicks at ``clickTimes``: the same continuous signal at
    /// every rate, band-limited below 9 kHz so no rate from 22 050 Hz up aliases it. Each click is a
    /// fixed chord of partials from 300 Hz to 8.8 kHz under a 1 ms raised-cosine attack and a 6 ms decay.
    static func clicks(sampleRate: Int, duration: Double = 10) -> [Float] {
        let rate = Double(sampleRate)
        var samples = [Float](repeating: 0, count: Int(duration * rate))
        let partials = (0..<16).map { 300.0 + Double($0) * 566.0 }
        let attack = 0.001
        for click in clickTimes {
            let first = Int((click * rate).rounded(.up))
            let last = min(samples.count, Int(((click + 0.05) * rate).rounded(.up)))
            guard first < last else { continue }
            for index in first..<last {
                let t = Double(index) / rate - click
                let envelope = t < attack ? 0.5 - 0.5 * cos(Double.pi * t / attack) : exp(-(t - attack) / 0.006)
                var value = 0.0
                for (number, frequency) in partials.enumerated() {
                    value += sin(2 * Double.pi * frequency * t + Double(number) * 0.7)
                }
                samples[index] += Float(0.05 * envelope * value)
            }
        }
        return samples
    }

    static func analyse(_ samples: [Float], channels: Int = 1, sampleRate: Int) throws -> AudioAnalysis {
        let folder = try TestTracks.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("clicks-\(sampleRate).wav")
        try WAVWriter.write(interleaved: samples, channels: channels, sampleRate: sampleRate, to: url)
        return try AudioAnalyzer().analyze(url)
    }

    // Measured (libsoxr 0.1.3 HQ, 16-bit WAVs): against the 22.05 kHz file, which is not resampled, the
    // peaks at 44.1, 48 and 96 kHz sit at most 0.0015 ms away, their values differ by at most 0.10 %,
    // and no hop of the envelope differs by more than 0.10 % of its largest value. Asserted: 0.2 ms, 1 %.
    @Test(
        "a click track at 22.05, 44.1, 48 and 96 kHz gives the same onset envelope: peaks within 0.2 ms, values within 1 %",
        arguments: [44_100, 48_000, 96_000])
    func sameEnvelopeAtEveryRate(sampleRate: Int) throws {
        let reference = try Self.analyse(Self.clicks(sampleRate: 22_050), sampleRate: 22_050)
        let analysis = try Self.analyse(Self.clicks(sampleRate: sampleRate), sampleRate: sampleRate)
        #expect(reference.resampler == nil)
        #expect(analysis.resampler == "\(Resampler.libraryVersion) HQ")
        #expect(analysis.frame == AnalysisFrame.analysis)
        #expect(analysis.sampleRate == sampleRate)
        #expect(analysis.duration == 10)
        #expect(analysis.envelope.hopDuration == reference.envelope.hopDuration)
        #expect(analysis.envelope.startTime == reference.envelope.startTime)
        #expect(analysis.envelope.count == reference.envelope.count)
        #expect(analysis.levels.count == reference.levels.count)

        let expected = reference.envelope.peaks()
        let found = analysis.envelope.peaks()
        #expect(expected.count == Self.clickTimes.count)
        #expect(found.count == expected.count)
        var worstTime = 0.0
        var worstValue = 0.0
        for (a, b) in zip(found, expected) {
            worstTime = max(worstTime, abs(a.time - b.time))
            worstValue = max(worstValue, abs(a.strength - b.strength) / b.strength)
        }
        #expect(worstTime < 0.0002, "peaks up to \(worstTime * 1000) ms apart")
        #expect(worstValue < 0.01, "peak values up to \(worstValue * 100) % apart")
        let largest = Double(reference.envelope.values.max() ?? 0)
        var difference = 0.0
        for (a, b) in zip(analysis.envelope.values, reference.envelope.values) {
            difference = max(difference, Double(abs(a - b)))
        }
        #expect(difference < 0.01 * largest, "envelope differs by up to \(difference / largest * 100) %")
        // Each click's onset peak is within 6 ms of it (the click's 1 ms attack, and the peaks' own
        // precision at an 11.6 ms hop: measured 3.3…4.7 ms late at every rate).
        for (peak, click) in zip(found, Self.clickTimes) {
            #expect(abs(peak.time - click) < 0.006, "peak \(peak.time) for click \(click)")
        }
    }

    @Test("a mono file and the same audio as stereo give the same envelope and levels", arguments: [22_050, 44_100])
    func monoAndStereo(sampleRate: Int) throws {
        let mono = Self.clicks(sampleRate: sampleRate, duration: 6)
        let stereo = mono.flatMap { [$0, $0] }
        let a = try Self.analyse(mono, sampleRate: sampleRate)
        let b = try Self.analyse(stereo, channels: 2, sampleRate: sampleRate)
        #expect(b.channels == 2)
        #expect(!b.secondChannelInverted)
        #expect(a.envelope == b.envelope)
        #expect(a.levels == b.levels)
        #expect(a.peak == b.peak)
    }

    @Test("a stereo file whose second channel is the first inverted is analysed as their difference, as its mono")
    func invertedChannel() throws {
        let mono = Self.clicks(sampleRate: 44_100, duration: 6)
        let a = try Self.analyse(mono, sampleRate: 44_100)
        // The mean of the two channels is exactly 0: mixed so, the file is silent.
        let b = try Self.analyse(mono.flatMap { [$0, -$0] }, channels: 2, sampleRate: 44_100)
        #expect(b.secondChannelInverted)
        #expect(a.envelope == b.envelope)
        #expect(a.levels == b.levels)
        #expect(a.peak == b.peak)
    }

    @Test("a stereo file with a channel inverted under a louder shared mix is mixed as the mean")
    func partlyInvertedKept() throws {
        // Clicks in both channels alike, and a quiet tone inverted in the second: the sum keeps most of
        // the energy (the difference, the tone's, is about a tenth of it), far from cancelling.
        let clicks = Self.clicks(sampleRate: 44_100, duration: 6)
        let stereo = clicks.enumerated().flatMap { index, sample -> [Float] in
            let tone = Float(0.005 * sin(Double(index) * 0.05))
            return [sample + tone, sample - tone]
        }
        let b = try Self.analyse(stereo, channels: 2, sampleRate: 44_100)
        #expect(!b.secondChannelInverted)
        #expect(!b.envelope.peaks().isEmpty)
    }

    @Test("a file below 4 kHz is refused as unsupported, naming the file")
    func lowRateRefused() throws {
        let folder = try TestTracks.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("rate-7.wav")
        try WAVWriter.write(to: url, sampleRate: 7, channels: 1, frames: 100) { frame, _ in frame % 7 == 0 ? 0.5 : 0 }
        #expect(throws: AnalysisError.self) { try AudioAnalyzer().analyze(url) }
        do {
            _ = try AudioAnalyzer().analyze(url)
        } catch {
            guard case .decode(.unsupported(let path, let reason)) = error else {
                Issue.record("expected .unsupported, got \(error)")
                return
            }
            #expect(path == url.path)
            #expect(reason.contains("7 Hz"))
            #expect(error.localizedDescription.hasPrefix(url.path + ": "))
        }
        #expect(throws: PlotSeriesError.self) { try PlotSeriesReader().read(url) }
        // A resampling failure names the file too.
        let failure = AnalysisError.resample(path: url.path, .processFailed(reason: "test"))
        #expect(failure.localizedDescription == "\(url.path): libsoxr failed while resampling: test")
    }

    @Test("decoding ahead and decoding inline give the same envelope through the resampler")
    func decodeAheadSame() throws {
        let folder = try TestTracks.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("drums-48k.wav")
        try WAVWriter.write(TestTracks.drums(bpm: 131, duration: 12, sampleRate: 48_000).track, to: url)
        var inline = AudioAnalysisSettings()
        inline.decodeAhead = false
        inline.runTracker = true
        var ahead = inline
        ahead.decodeAhead = true
        let a = try AudioAnalyzer(settings: inline).analyze(url)
        let b = try AudioAnalyzer(settings: ahead).analyze(url)
        #expect(a.envelope == b.envelope)
        #expect(a.levels == b.levels)
        #expect(a.trackerBeats == b.trackerBeats)
        #expect(a.frames == 12 * 48_000)
        #expect(a.peak == b.peak)
    }
}
