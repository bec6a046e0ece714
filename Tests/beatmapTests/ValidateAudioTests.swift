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
        try project { beats in (beats.map { $0 + shift }, 125) }
    }

    /// A folder with `Audio/song.wav` (drums at 125 BPM from 0.4 s: kick on 1 and 3, snare on 2 and 4,
    /// hi-hat on every eighth) and `BeatMaps/song.beatmap.json` holding the beats and tempo that
    /// `map` makes of the exact beats (those past the end of the audio left out).
    static func project(map: ([Double]) -> (beats: [Double], bpm: Double)) throws -> URL {
        let folder = try CLI.temporaryFolder()
        for name in ["Audio", "BeatMaps"] {
            try FileManager.default.createDirectory(
                at: folder.appendingPathComponent(name), withIntermediateDirectories: true)
        }
        let (track, exact) = TestTracks.drums(bpm: 125, start: 0.4, duration: 20)
        try WAVWriter.write(track, to: folder.appendingPathComponent("Audio/song.wav"))
        let (beats, bpm) = map(exact)
        let kept = beats.filter { $0 >= 0 && $0 <= 20 }
        let first = try #require(kept.first)
        let beatMap = BeatMap(
            audio: AudioReference(path: "../Audio/song.wav", duration: 20, sampleRate: 44_100),
            tempo: [TempoSegment(time: first, bpm: bpm)], beats: kept)
        try BeatMapCodec.write(
            beatMap, to: folder.appendingPathComponent("BeatMaps/song.beatmap.json"), overwrite: false)
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

    @Test("the correct map gets neither audio-offbeat nor audio-metric-level")
    func correctLevel() throws {
        let folder = try Self.project(shift: 0)
        defer { try? FileManager.default.removeItem(at: folder) }
        let result = try CLI.run(["validate", "--audio", "BeatMaps"], in: folder)
        #expect(result.status == 0)
        #expect(!result.stdout.contains("audio-offbeat"), "\(result.stdout)")
        #expect(!result.stdout.contains("audio-metric-level"), "\(result.stdout)")
        #expect(result.stdout.hasSuffix("0 errors, 0 warnings.\n"), "\(result.stdout)")
    }

    @Test("a map half a beat late gets audio-offbeat with the shift back; only with --audio")
    func halfBeatLate() throws {
        let folder = try Self.project(shift: 0.24)
        defer { try? FileManager.default.removeItem(at: folder) }
        let result = try CLI.run(["validate", "--audio", "BeatMaps"], in: folder)
        #expect(result.status == 0, "a warning by default")
        #expect(result.stdout.contains("warning: [audio-offbeat] beats look half a beat out:"), "\(result.stdout)")
        #expect(result.stdout.contains("shift every beat by -0.240 s (half a beat)"), "\(result.stdout)")
        #expect(!result.stdout.contains("audio-metric-level"), "one reading per map")
        #expect(!result.stdout.contains("audio-misaligned"), "half a beat is not a small offset")

        let error = try CLI.run(["validate", "--audio", "--rule", "audio-offbeat=error", "BeatMaps"], in: folder)
        #expect(error.status == 1)
        let withoutAudio = try CLI.run(["validate", "BeatMaps"], in: folder)
        #expect(!withoutAudio.stdout.contains("audio-offbeat"), "onsets are only computed with --audio")
    }

    @Test("a half-tempo map gets audio-metric-level naming the ×2 level; the configuration file can turn it off")
    func halfTempo() throws {
        let folder = try Self.project { beats in (stride(from: 0, to: beats.count, by: 2).map { beats[$0] }, 62.5) }
        defer { try? FileManager.default.removeItem(at: folder) }
        let result = try CLI.run(["validate", "--audio", "BeatMaps"], in: folder)
        #expect(result.status == 0, "a warning by default")
        let finding = "warning: [audio-metric-level] the map looks like half the music's tempo (62.5 BPM)"
        #expect(result.stdout.contains(finding), "\(result.stdout)")
        #expect(result.stdout.contains("the ×2 level (125.0 BPM) fits better"), "\(result.stdout)")
        #expect(!result.stdout.contains("audio-offbeat"), "one reading per map")

        try Data("{\"rules\": {\"audio-metric-level\": \"off\"}}\n".utf8).write(
            to: folder.appendingPathComponent(".beatmaplint.json"))
        let configured = try CLI.run(["validate", "--audio", "--strict", "BeatMaps"], in: folder)
        #expect(configured.status == 0, "\(configured.stdout)")
        #expect(!configured.stdout.contains("audio-metric-level"))
    }

    @Test("--audio and --no-audio together is a usage error")
    func conflictingFlags() throws {
        let result = try CLI.run(["validate", "--audio", "--no-audio", "x.beatmap.json"])
        #expect(result.status != 0)
        #expect(result.stderr.contains("--audio"))
    }
}
