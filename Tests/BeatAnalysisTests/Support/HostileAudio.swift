// SPDX-License-Identifier: GPL-3.0-or-later

import Foundation
import Testing

/// Builds hostile audio files in memory: WAV headers that lie, broken streams, extreme content.
/// Compressed streams (FLAC, Ogg, MP3) come from the fuzz seeds in tools/fuzz/corpus/audio, which
/// tools/fuzz/make-seeds.sh synthesises with sox.
enum HostileAudio {
    /// The package's root folder.
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// A committed seed file's bytes.
    static func seed(_ name: String) throws -> [UInt8] {
        Array(try Data(contentsOf: root.appendingPathComponent("tools/fuzz/corpus/audio/\(name)")))
    }

    /// A RIFF/WAVE file. `format` 1 is integer PCM, 3 IEEE float. The header fields can be made to lie:
    /// `declaredDataBytes` replaces the data chunk's size, `blockAlign`/`byteRate` are derived unless given.
    static func wav(
        format: UInt16 = 1, channels: UInt16 = 1, sampleRate: UInt32 = 44_100, bitsPerSample: UInt16 = 16,
        data: [UInt8], declaredDataBytes: UInt32? = nil
    ) -> [UInt8] {
        let blockAlign = UInt16(truncatingIfNeeded: Int(channels) * Int(bitsPerSample) / 8)
        let byteRate = UInt32(truncatingIfNeeded: Int(sampleRate) * Int(blockAlign))
        var out: [UInt8] = []
        func u16(_ value: UInt16) { withUnsafeBytes(of: value.littleEndian) { out.append(contentsOf: $0) } }
        func u32(_ value: UInt32) { withUnsafeBytes(of: value.littleEndian) { out.append(contentsOf: $0) } }
        let dataBytes = declaredDataBytes ?? UInt32(data.count)
        out += Array("RIFF".utf8)
        u32(UInt32(truncatingIfNeeded: 36 + Int(dataBytes)))
        out += Array("WAVEfmt ".utf8)
        u32(16)
        u16(format)
        u16(channels)
        u32(sampleRate)
        u32(byteRate)
        u16(blockAlign)
        u16(bitsPerSample)
        out += Array("data".utf8)
        u32(dataBytes)
        return out + data
    }

    /// 16-bit PCM sample bytes.
    static func pcm16(_ samples: [Int16]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(samples.count * 2)
        for sample in samples { withUnsafeBytes(of: sample.littleEndian) { out.append(contentsOf: $0) } }
        return out
    }

    /// 32-bit float sample bytes.
    static func float32(_ samples: [Float]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(samples.count * 4)
        for sample in samples { withUnsafeBytes(of: sample.bitPattern.littleEndian) { out.append(contentsOf: $0) } }
        return out
    }

    /// Deterministic full-scale white noise (a 64-bit LCG, so every run writes the same bytes).
    static func noise(count: Int, seed: UInt64 = 0x5EED) -> [Int16] {
        var state = seed
        return (0..<count).map { _ in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int16(truncatingIfNeeded: state >> 48)
        }
    }

    /// What reading a hostile file must give.
    enum Outcome: Sendable, CustomStringConvertible {
        /// The reader refuses to open it, with an error naming the file.
        case refused
        /// It opens but holds no frames (the inspector reports it as empty).
        case empty
        /// It decodes to exactly this many frames.
        case frames(Int)
        /// A damaged stream: decoding stops early (fewer frames than the intact file's) or fails with an
        /// error naming the file.
        case partial(lessThan: Int)

        var description: String {
            switch self {
            case .refused: return "refused"
            case .empty: return "empty"
            case .frames(let count): return "\(count) frames"
            case .partial(let limit): return "partial (< \(limit) frames)"
            }
        }
    }

    /// A hostile file: its name (the extension matters to some decoders), bytes and expected outcome.
    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var bytes: [UInt8]
        var outcome: Outcome
        var testDescription: String { "\(name) → \(outcome)" }
    }

    /// Frames in each intact compressed seed (40 ms or 200 ms at 8 kHz; the MP3 decoder adds the encoder's padding).
    static let seedFrames = ["tone.flac": 320, "tone.ogg": 1_600, "tone.mp3": 2_880]

    /// The small hostile corpus (each file under 1 MB).
    static func cases() throws -> [Case] {
        let second = pcm16([Int16](repeating: 0, count: 8_000))
        var cases: [Case] = [
            Case(name: "zero-length.wav", bytes: [], outcome: .refused),
            Case(name: "zero-length.mp3", bytes: [], outcome: .refused),
            Case(name: "text.wav", bytes: Array("this is not audio\n".utf8), outcome: .refused),
            Case(name: "riff-garbage.wav", bytes: Array("RIFF\u{10}\0\0\0WAVEjunkjunkjunk".utf8), outcome: .refused),
            Case(name: "header-only.wav", bytes: wav(data: []), outcome: .empty),
            Case(name: "header-claims-1GB.wav", bytes: wav(data: [], declaredDataBytes: 1 << 30), outcome: .empty),
            Case(
                name: "header-claims-more.wav", bytes: wav(sampleRate: 8_000, data: second, declaredDataBytes: 1 << 30),
                outcome: .frames(8_000)),
            Case(name: "rate-zero.wav", bytes: wav(sampleRate: 0, data: second), outcome: .refused),
            Case(name: "rate-4GHz.wav", bytes: wav(sampleRate: .max, data: second), outcome: .refused),
            Case(name: "rate-10MHz.wav", bytes: wav(sampleRate: 10_000_000, data: second), outcome: .refused),
            Case(name: "rate-1Hz.wav", bytes: wav(sampleRate: 1, data: pcm16([0, 100, -100])), outcome: .frames(3)),
            Case(name: "channels-zero.wav", bytes: wav(channels: 0, data: second), outcome: .refused),
            Case(name: "channels-65535.wav", bytes: wav(channels: .max, data: second), outcome: .refused),
            Case(name: "channels-200.wav", bytes: wav(channels: 200, data: second), outcome: .refused),
            Case(
                name: "channels-64.wav", bytes: wav(channels: 64, sampleRate: 8_000, data: second),
                outcome: .frames(125)),
            Case(name: "bits-zero.wav", bytes: wav(bitsPerSample: 0, data: second), outcome: .refused),
            Case(
                name: "silence.wav", bytes: wav(sampleRate: 8_000, data: pcm16([Int16](repeating: 0, count: 16_000))),
                outcome: .frames(16_000)),
            Case(
                name: "dc.wav", bytes: wav(sampleRate: 8_000, data: pcm16([Int16](repeating: 16_384, count: 16_000))),
                outcome: .frames(16_000)),
            Case(
                name: "noise-stereo.wav", bytes: wav(channels: 2, sampleRate: 8_000, data: pcm16(noise(count: 32_000))),
                outcome: .frames(16_000)),
            Case(
                name: "nan-inf.wav",
                bytes: wav(
                    format: 3, sampleRate: 8_000, bitsPerSample: 32,
                    data: float32([.nan, .infinity, -.infinity, 1e30, -1e30, 0.5, .signalingNaN, 1e-42])),
                outcome: .frames(8)),
        ]
        for (name, frames) in seedFrames.sorted(by: { $0.key < $1.key }) {
            let bytes = try seed(name)
            let ext = String(name.split(separator: ".").last ?? "")
            cases.append(
                Case(
                    name: "truncated-half-\(name)", bytes: Array(bytes.prefix(bytes.count / 2)),
                    outcome: .partial(lessThan: frames)))
            cases.append(Case(name: "truncated-header-\(name)", bytes: Array(bytes.prefix(12)), outcome: .refused))
            // Wrong extension: the decoder goes by the content.
            cases.append(Case(name: "\(ext)-named.wav", bytes: bytes, outcome: .frames(frames)))
        }
        cases.append(Case(name: "wav-named.mp3", bytes: try seed("pcm16.wav"), outcome: .frames(320)))
        cases.append(Case(name: "wav-named.flac", bytes: try seed("pcm16.wav"), outcome: .frames(320)))
        return cases
    }
}
