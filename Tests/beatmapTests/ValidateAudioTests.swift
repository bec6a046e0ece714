// SPDX-License-Identifier: GPL-3.0-or-later

import BeatMapKit
import Foundation
import TestSynth
import Testing

@Suite("beatmap validate --audio")
struct ValidateAudioTests {
    /// A folder with `Audio/song.wav` (drums at 125 BPM from 0.4 s) and `BeatMaps/song.beatmap.json`
    /// holding the exact beats shifted by `shift` seconds.
    static func project(shift: Double) throws -> URL {
        let folder = try CLI.temporaryFolder()
        for name in ["Audio", "BeatMaps"] {
            try FileManager.default.createDirectory(
                at: folder.appendingPathComponent(name), withIntermediateDirectories: true)
        }
        let (track, beats) = TestTracks.drums(bpm: 125, start: 0.4, duration: 20)
        try WAVWriter.write(track, to: folder.appendingPathComponent("Audio/song.wav"))
        let map = BeatMap(
            audio: AudioReference(path: "../Audio/song.wav", duration: 20, sampleRate: 44_100),
            tempo: [TempoSegment(time: 0.4 + shift, bpm: 125)], beats: beats.map { $0 + shift })
        try BeatMapCodec.write(map, to: folder.appendingPathComponent("BeatMaps/song.beatmap.json"), overwrite: false)
        return folder
    }

    @Test("a map 40 ms late gets audio-misaligned with the nudge; an aligned one does not")
    func shifted() throws {
        let late = try Self.project(shift: 0.040)
        defer { try? FileManager.default.removeItem(at: late) }
        let result = try CLI.run(["validate", "--audio", "BeatMaps"], in: late)
        #expect(result.status == 0, "a warning by default")
        #expect(result.stdout.contains("[audio-misaligned] beats are"))
        #expect(result.stdout.contains("late against the audio's onsets"))
        // Drum onsets read about 2 ms late (see DelayCompensationTests), so the nudge is −38 ± 3 ms.
        let nudge = try #require(
            result.stdout.range(of: "nudge every beat by -").map { result.stdout[$0.upperBound...] })
        let value = try #require(Double(nudge.prefix { $0 != " " }))
        #expect(abs(value - 38) <= 3, "nudge \(value) ms")

        let strict = try CLI.run(["validate", "--audio", "--strict", "BeatMaps"], in: late)
        #expect(strict.status == 1)
        let tolerant = try CLI.run(["validate", "--audio", "--misalignment-ms", "60", "BeatMaps"], in: late)
        #expect(!tolerant.stdout.contains("audio-misaligned"))
        try Data("{\"misalignmentMs\": 60}\n".utf8).write(to: late.appendingPathComponent(".beatmaplint.json"))
        let configured = try CLI.run(["validate", "--audio", "BeatMaps"], in: late)
        #expect(!configured.stdout.contains("audio-misaligned"), "misalignmentMs in the configuration file")
        let withoutAudio = try CLI.run(["validate", "BeatMaps"], in: late)
        #expect(!withoutAudio.stdout.contains("audio-misaligned"), "onsets are only computed with --audio")

        let aligned = try Self.project(shift: 0)
        defer { try? FileManager.default.removeItem(at: aligned) }
        let clean = try CLI.run(["validate", "--audio", "--strict", "BeatMaps"], in: aligned)
        #expect(clean.status == 0, "\(clean.stdout)")
    }

    @Test("--audio and --no-audio together is a usage error")
    func conflictingFlags() throws {
        let result = try CLI.run(["validate", "--audio", "--no-audio", "x.beatmap.json"])
        #expect(result.status != 0)
        #expect(result.stderr.contains("--audio"))
    }
}
