// SPDX-License-Identifier: GPL-3.0-or-later

import BeatMapKit
import Foundation
import TestSynth

/// Fixtures made by the tests: 16-bit WAV files written here (independently of the renderer's own
/// encoder) and beat maps.
enum TestAudio {
    /// A new empty temporary folder.
    static func folder() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent(
            "beatpreview-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// Writes a 16-bit PCM WAV file whose sample at (frame, channel) is `sample(frame, channel)`.
    static func writeWAV(
        _ url: URL, sampleRate: Int, channels: Int, frames: Int, sample: (Int, Int) -> Double = { _, _ in 0 }
    ) throws {
        try WAVWriter.write(to: url, sampleRate: sampleRate, channels: channels, frames: frames, sample: sample)
    }

    /// Writes a map of `beats` for audio of `duration` seconds.
    static func writeMap(_ url: URL, beats: [Double], duration: Double, tempo: [TempoSegment]? = nil) throws {
        let map = BeatMap(audio: AudioReference(duration: duration), tempo: tempo, beats: beats)
        try BeatMapCodec.write(map, to: url, overwrite: true)
    }

    /// Beats at `bpm` from `anchor` up to `duration`.
    static func beats(bpm: Double, anchor: Double, duration: Double) -> [Double] {
        var beats: [Double] = []
        var k = 0.0
        while anchor + k * 60 / bpm < duration {
            beats.append(anchor + k * 60 / bpm)
            k += 1
        }
        return beats
    }

    /// Frames whose sample (on channel 0) is non-zero after at least `gap` zero frames: the click onsets
    /// in a render over silence.
    static func onsets(in samples: [Float], channels: Int, gap: Int = 64) -> [Int] {
        var result: [Int] = []
        var zeros = gap
        for frame in 0..<(samples.count / channels) {
            if samples[frame * channels] != 0 {
                if zeros >= gap { result.append(frame) }
                zeros = 0
            } else {
                zeros += 1
            }
        }
        return result
    }
}
