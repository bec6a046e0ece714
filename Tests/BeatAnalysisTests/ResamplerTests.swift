// SPDX-License-Identifier: GPL-3.0-or-later

import BeatAnalysis
import BeatAudio
import Foundation
import Testing

@Suite("libsoxr resampler")
struct ResamplerTests {
    /// Resamples `input` in blocks of `block` samples into an output room of `capacity`, then flushes.
    static func resample(
        _ input: [Float], from inputRate: Int, to outputRate: Int = 22_050, block: Int = 4_096, capacity: Int = 1_024,
        quality: Resampler.Quality = .high
    ) throws -> [Float] {
        let resampler = try Resampler(
            inputRate: Double(inputRate), outputRate: Double(outputRate), quality: quality)
        var output: [Float] = []
        let room = UnsafeMutablePointer<Float>.allocate(capacity: capacity)
        defer { room.deallocate() }
        try input.withUnsafeBufferPointer { samples in
            guard let base = samples.baseAddress else { return }
            var offset = 0
            while offset < samples.count {
                let count = min(block, samples.count - offset)
                try resampler.process(base + offset, count: count, buffer: room, capacity: capacity) { run, made in
                    output.append(contentsOf: UnsafeBufferPointer(start: run, count: made))
                }
                offset += count
            }
        }
        try resampler.flush(buffer: room, capacity: capacity) { run, made in
            output.append(contentsOf: UnsafeBufferPointer(start: run, count: made))
        }
        return output
    }

    // Measured (libsoxr 0.1.3, HQ): the impulse's output peak is on the output sample nearest
    // k × 22 050 / rate at every rate tried; libsoxr removes its own filter delay (about 720 output
    // samples are held inside at 44.1 kHz, `latency`) from the stream it returns.
    @Test(
        "a click at input sample k comes out at k × 22 050 / rate (±1 output sample), and the length scales",
        arguments: [8_000, 32_000, 44_100, 48_000, 88_200, 96_000, 192_000])
    func delayIsCompensated(rate: Int) throws {
        let count = rate * 3
        for click in [rate / 2 + 17, rate + 12_345, 2 * rate + 1] {
            var input = [Float](repeating: 0, count: count)
            input[click] = 1
            let output = try Self.resample(input, from: rate, block: 1_000 + click % 777)
            let expected = Double(click) * 22_050 / Double(rate)
            let peak = try #require(output.indices.max { abs(output[$0]) < abs(output[$1]) })
            #expect(abs(Double(peak) - expected) <= 1, "click at \(click) of \(rate) Hz: peak at \(peak), \(expected)")
            #expect(abs(Double(output.count) - Double(count) * 22_050 / Double(rate)) <= 1, "\(output.count) samples")
        }
    }

    @Test("the output does not depend on how the input is cut into blocks, nor on the output room")
    func blockSizes() throws {
        var random = SystemRandomNumberGenerator()
        let input = (0..<100_000).map { _ in Float.random(in: -0.5...0.5, using: &random) }
        let reference = try Self.resample(input, from: 44_100, block: input.count, capacity: 16_384)
        for (block, capacity) in [(1, 1), (333, 7), (4_096, 100), (16_384, 8_192), (50_000, 20_000)] {
            let output = try Self.resample(input, from: 44_100, block: block, capacity: capacity)
            #expect(output == reference, "blocks of \(block), room \(capacity)")
        }
        // Upsampling, where one input sample makes several output samples, streams the same way.
        let up = try Self.resample(Array(input.prefix(20_000)), from: 8_000, block: 20_000, capacity: 4_096)
        #expect(try Self.resample(Array(input.prefix(20_000)), from: 8_000, block: 3, capacity: 2) == up)
    }

    @Test("at 22 050 Hz to 22 050 Hz libsoxr passes the samples through unchanged (so the analyzer skips it)")
    func identity() throws {
        var random = SystemRandomNumberGenerator()
        let input = (0..<50_000).map { _ in Float.random(in: -1...1, using: &random) }
        #expect(try Self.resample(input, from: 22_050, block: 3_001) == input)
    }

    @Test("libsoxr's errors and refused rates are typed errors with a message")
    func errors() throws {
        // A rate of 0 reaches libsoxr, which refuses it.
        let refused = ResamplerError.cannotCreate(inputRate: 0, outputRate: 22_050, reason: "I/O ratio out-of-range")
        #expect(throws: refused) { try Resampler(inputRate: 0, outputRate: 22_050) }
        #expect(throws: ResamplerError.self) { try Resampler(inputRate: 44_100, outputRate: -1) }
        // NaN and extreme ratios never reach libsoxr (it would not return).
        #expect(throws: ResamplerError.invalidRate(inputRate: .infinity, outputRate: 22_050)) {
            try Resampler(inputRate: .infinity, outputRate: 22_050)
        }
        #expect(throws: ResamplerError.invalidRate(inputRate: 1e12, outputRate: 1)) {
            try Resampler(inputRate: 1e12, outputRate: 1)
        }
        do {
            _ = try Resampler(inputRate: .nan, outputRate: 22_050)
            Issue.record("a NaN rate was accepted")
        } catch {
            guard case .invalidRate = error else {
                Issue.record("expected .invalidRate, got \(error)")
                return
            }
        }
        #expect(refused.localizedDescription == "libsoxr cannot resample from 0 Hz to 22050 Hz: I/O ratio out-of-range")
    }

    @Test("the resampler names its library, version and recipe")
    func summary() throws {
        let resampler = try Resampler(inputRate: 44_100, outputRate: 22_050)
        #expect(Resampler.libraryVersion.hasPrefix("libsoxr-"))
        #expect(resampler.summary == "\(Resampler.libraryVersion) HQ")
        #expect(!resampler.engine.isEmpty)
    }
}
