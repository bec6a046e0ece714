// SPDX-License-Identifier: GPL-3.0-or-later

import Foundation

/// Writes small 16-bit PCM WAV files for tests (the bytes are built here; no audio is shipped).
enum WAVFixture {
    /// Writes `channels` interleaved 16-bit frames of `samples` (−1…1) at `sampleRate` to `url`.
    static func write(_ samples: [Float], channels: Int, sampleRate: Int, to url: URL) throws {
        var data = Data()
        func append<T: FixedWidthInteger>(_ value: T) {
            withUnsafeBytes(of: value.littleEndian) { data.append(contentsOf: $0) }
        }
        let payload = samples.count * 2
        data.append(contentsOf: Array("RIFF".utf8))
        append(UInt32(36 + payload))
        data.append(contentsOf: Array("WAVEfmt ".utf8))
        append(UInt32(16))
        append(UInt16(1))
        append(UInt16(channels))
        append(UInt32(sampleRate))
        append(UInt32(sampleRate * channels * 2))
        append(UInt16(channels * 2))
        append(UInt16(16))
        data.append(contentsOf: Array("data".utf8))
        append(UInt32(payload))
        for sample in samples { append(Int16(max(-1, min(1, sample)) * 32767)) }
        try data.write(to: url)
    }
}
