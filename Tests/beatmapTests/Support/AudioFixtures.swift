// SPDX-License-Identifier: GPL-3.0-or-later

import Foundation
import TestSynth

/// Audio and map fixtures made by the CLI tests.
enum AudioFixtures {
    /// Writes a 16-bit PCM WAV file with `sample(frame, channel)`.
    static func writeWAV(_ url: URL, sampleRate: Int, channels: Int, seconds: Double, sample: (Int, Int) -> Double)
        throws
    {
        let frames = Int(seconds * Double(sampleRate))
        try WAVWriter.write(to: url, sampleRate: sampleRate, channels: channels, frames: frames, sample: sample)
    }

    /// A quiet two-tone track of `seconds` and a 120 BPM map in 4/4 for it, written as `song.wav` and
    /// `song.beatmap.json` in `folder`.
    static func song(in folder: URL, seconds: Double = 6, sampleRate: Int = 44_100, anchor: Double = 0.25) throws -> (
        audio: URL, map: URL, beats: [Double]
    ) {
        let audio = folder.appendingPathComponent("song.wav")
        try writeWAV(audio, sampleRate: sampleRate, channels: 2, seconds: seconds) { frame, channel in
            let t = Double(frame) / Double(sampleRate)
            return 0.2 * sin(2 * Double.pi * (channel == 0 ? 220 : 330) * t)
        }
        var beats: [Double] = []
        var t = anchor
        while t < seconds - 0.05 {
            beats.append(t)
            t += 0.5
        }
        let list = beats.map { String($0) }.joined(separator: ", ")
        let map = folder.appendingPathComponent("song.beatmap.json")
        let json = """
            {"version": 1, "audio": {"path": "song.wav", "duration": \(seconds), "sampleRate": \(sampleRate)},
             "tempo": [{"time": \(anchor), "bpm": 120, "beatsPerBar": 4}], "beats": [\(list)]}
            """
        try Data(json.utf8).write(to: map)
        return (audio, map, beats)
    }

    /// Reads the samples of a 16-bit, 32-bit-integer or 32-bit-float WAV file written by `beatmap render`
    /// (canonical header: `data` follows `fmt ` and, for float, `fact`).
    static func readWAV(_ url: URL) throws -> (samples: [Float], channels: Int, sampleRate: Int) {
        let bytes = [UInt8](try Data(contentsOf: url))
        func u16(_ at: Int) -> Int { Int(bytes[at]) | Int(bytes[at + 1]) << 8 }
        func u32(_ at: Int) -> Int { u16(at) | u16(at + 2) << 16 }
        let format = u16(20)
        let channels = u16(22)
        let sampleRate = u32(24)
        var offset = 12
        while offset + 8 <= bytes.count, String(decoding: bytes[offset..<offset + 4], as: UTF8.self) != "data" {
            offset += 8 + u32(offset + 4)
        }
        let start = offset + 8
        let length = u32(offset + 4)
        var samples: [Float] = []
        if format == 3 {
            for at in stride(from: start, to: start + length, by: 4) {
                samples.append(Float(bitPattern: UInt32(u32(at))))
            }
        } else if u16(34) == 32 {
            // 32-bit integer PCM (what jack_rec -b 32 writes): n / 2³¹.
            for at in stride(from: start, to: min(start + length, bytes.count - 3), by: 4) {
                samples.append(Float(Double(Int32(bitPattern: UInt32(u32(at)))) / 2_147_483_648))
            }
        } else {
            for at in stride(from: start, to: start + length, by: 2) {
                samples.append(Float(Int16(bitPattern: UInt16(u16(at)))) / 32_767)
            }
        }
        return (samples, channels, sampleRate)
    }
}
