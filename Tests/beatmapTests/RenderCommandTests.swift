// SPDX-License-Identifier: GPL-3.0-or-later

import Foundation
import Testing

@Suite("beatmap render")
struct RenderCommandTests {
    @Test("renders a WAV whose clicks start on the map's frames; output is deterministic")
    func render() throws {
        let folder = try CLI.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let song = try AudioFixtures.song(in: folder)
        let result = try CLI.run(
            ["render", "song.wav", "song.beatmap.json", "-o", "out.wav", "--no-music", "--float"], in: folder)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("\(song.beats.count) clicks"))
        let wav = try AudioFixtures.readWAV(folder.appendingPathComponent("out.wav"))
        #expect(wav.sampleRate == 44_100)
        #expect(wav.channels == 2)
        for beat in song.beats {
            let frame = Int((beat * 44_100).rounded())
            #expect(wav.samples[(frame - 1) * 2] == 0)
            #expect(wav.samples[frame * 2] != 0)
        }
        let again = try CLI.run(
            ["render", "song.wav", "song.beatmap.json", "-o", "again.wav", "--no-music", "--float"], in: folder)
        #expect(again.status == 0)
        #expect(
            try Data(contentsOf: folder.appendingPathComponent("out.wav"))
                == Data(contentsOf: folder.appendingPathComponent("again.wav")))
    }

    @Test("an existing output is kept unless --force; a span renders only its frames")
    func overwriteAndSpan() throws {
        let folder = try CLI.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        _ = try AudioFixtures.song(in: folder)
        try Data("mine".utf8).write(to: folder.appendingPathComponent("out.wav"))
        let refused = try CLI.run(["render", "song.wav", "song.beatmap.json", "-o", "out.wav"], in: folder)
        #expect(refused.status == 2)
        #expect(refused.stderr.contains("already exists"))
        #expect(try Data(contentsOf: folder.appendingPathComponent("out.wav")) == Data("mine".utf8))
        let forced = try CLI.run(
            ["render", "song.wav", "song.beatmap.json", "-o", "out.wav", "--from", "1", "--to", "2.5", "--force"],
            in: folder)
        #expect(forced.status == 0, "\(forced.stderr)")
        let wav = try AudioFixtures.readWAV(folder.appendingPathComponent("out.wav"))
        #expect(wav.samples.count == Int(1.5 * 44_100) * 2)
    }

    @Test("bad input: a clear error naming the file, non-zero exit, no output file")
    func badInput() throws {
        let folder = try CLI.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        _ = try AudioFixtures.song(in: folder)
        let missing = try CLI.run(["render", "missing.wav", "song.beatmap.json", "-o", "out.wav"], in: folder)
        #expect(missing.status == 2)
        #expect(missing.stderr.contains("missing.wav"))
        try Data("{\"version\": 1}".utf8).write(to: folder.appendingPathComponent("bad.beatmap.json"))
        let badMap = try CLI.run(["render", "song.wav", "bad.beatmap.json", "-o", "out.wav"], in: folder)
        #expect(badMap.status == 2)
        #expect(badMap.stderr.contains("bad.beatmap.json"))
        let pastEnd = try CLI.run(
            ["render", "song.wav", "song.beatmap.json", "-o", "out.wav", "--from", "60"], in: folder)
        #expect(pastEnd.status == 2)
        #expect(pastEnd.stderr.contains("past the end"))
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("out.wav").path))
    }
}
