// SPDX-License-Identifier: GPL-3.0-or-later

import BeatAnalysis
import BeatMapKit
import Foundation
import Testing

@Suite("Plot series: waveform extremes and onset strength in one streaming pass")
struct PlotSeriesReaderTests {
    /// A 3 s mono click track at 44.1 kHz: 30 ms decaying 1 kHz bursts at `clicks`, silence elsewhere.
    static func clickTrack(clicks: [Double], amplitude: Float = 0.8) -> [Float] {
        let rate = 44_100.0
        var samples = [Float](repeating: 0, count: Int(3 * rate))
        for click in clicks {
            let start = Int(click * rate)
            for n in 0..<Int(0.03 * rate) where start + n < samples.count {
                let t = Double(n) / rate
                samples[start + n] = amplitude * Float(sin(2 * Double.pi * 1000 * t) * exp(-t * 120))
            }
        }
        return samples
    }

    func withTrack<T>(_ samples: [Float], _ body: (URL) throws -> T) throws -> T {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("plot-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("clicks.wav")
        try WAVFixture.write(samples, channels: 1, sampleRate: 44_100, to: url)
        return try body(url)
    }

    @Test("the waveform's loud columns and the onset peaks sit at the clicks")
    func clicksShowUp() throws {
        let clicks = [0.5, 1.25, 2.0]
        let series = try withTrack(Self.clickTrack(clicks: clicks)) { try PlotSeriesReader(columns: 300).read($0) }
        #expect(series.columns == 300)
        try #require(series.onsetStrength.count == 300)
        #expect(abs(series.duration - 3) < 1e-9)
        #expect(series.from == 0)
        #expect(series.to == series.duration)
        let columnSeconds = 3.0 / 300
        for click in clicks {
            let column = Int((click / columnSeconds).rounded())
            #expect(series.maxima[column] > 0.5, "click at \(click) s")
            #expect(series.minima[column] < -0.5)
            // The onset curve's strongest value near the click is within two columns (20 ms) of it.
            let window = max(0, column - 8)...min(299, column + 8)
            let peak = window.max { series.onsetStrength[$0] < series.onsetStrength[$1] } ?? 0
            #expect(abs(peak - column) <= 2, "onset peak at column \(peak), click at \(column)")
        }
        // Silence between clicks stays flat.
        let quiet = Int(0.9 / columnSeconds)
        #expect(series.maxima[quiet] == 0)
        #expect(series.minima[quiet] == 0)
        let strongest = series.onsetStrength.max() ?? 0
        #expect(series.onsetStrength[quiet] < strongest * 0.05)
    }

    @Test("a stereo file whose second channel is the first inverted plots as its mono original")
    func invertedChannelPlotted() throws {
        let samples = Self.clickTrack(clicks: [0.5, 1.25, 2.0])
        let mono = try withTrack(samples) { try PlotSeriesReader(columns: 300).read($0) }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("plot-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("surround.wav")
        try WAVFixture.write(samples.flatMap { [$0, -$0] }, channels: 2, sampleRate: 44_100, to: url)
        let stereo = try PlotSeriesReader(columns: 300).read(url)
        #expect(stereo.maxima == mono.maxima)
        #expect(stereo.minima == mono.minima)
        #expect(stereo.onsetStrength == mono.onsetStrength)
    }

    @Test("--from/--to zoom gives columns over the range only")
    func zoom() throws {
        let series = try withTrack(Self.clickTrack(clicks: [0.5, 1.25, 2.0])) {
            try PlotSeriesReader(columns: 100).read($0, from: 1.0, to: 1.5)
        }
        #expect(series.from == 1.0)
        #expect(series.to == 1.5)
        let column = Int((1.25 - 1.0) / 0.005)
        #expect(series.maxima[column] > 0.5)
        #expect(series.maxima[10] == 0)
        #expect(abs(series.duration - 3) < 1e-9)
    }

    @Test("a range past the end is cut at the end; a range after it is refused")
    func ranges() throws {
        try withTrack(Self.clickTrack(clicks: [2.5])) { url in
            let cut = try PlotSeriesReader(columns: 50).read(url, from: 2, to: 10)
            #expect(abs(cut.to - 3) < 1e-9)
            #expect(cut.maxima[Int((2.5 - 2) / (1.0 / 50))] > 0.5)
            #expect(throws: PlotSeriesError.self) { _ = try PlotSeriesReader(columns: 50).read(url, from: 5) }
        }
    }

    @Test("a file that is not audio is named")
    func notAudio() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("plot-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("text.wav")
        try Data("not audio".utf8).write(to: url)
        #expect {
            _ = try PlotSeriesReader().read(url)
        } throws: { error in
            (error as? any LocalizedError)?.errorDescription?.contains("text.wav") == true
        }
    }
}
