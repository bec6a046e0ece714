// SPDX-License-Identifier: GPL-3.0-or-later

import Foundation
import TestSynth

/// Writes small 16-bit PCM WAV files for tests (the bytes are built by `TestSynth.WAVWriter`).
enum WAVFixture {
    /// Writes `channels` interleaved 16-bit frames of `samples` (−1…1) at `sampleRate` to `url`.
    static func write(_ samples: [Float], channels: Int, sampleRate: Int, to url: URL) throws {
        try WAVWriter.write(interleaved: samples, channels: channels, sampleRate: sampleRate, to: url)
    }
}
