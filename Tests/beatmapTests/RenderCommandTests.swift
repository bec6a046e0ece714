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

    @Test("AUDIO may be left out when the map names it; audio that is not the map's is refused unless --force")
    func mapKnowsItsAudio() throws {
        let folder = try CLI.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let song = try AudioFixtures.song(in: folder, seconds: 3)
        let alone = try CLI.run(["render", "song.beatmap.json", "-o", "alone.wav", "--float"], in: folder)
        #expect(alone.status == 0, "\(alone.stderr)")
        let given = try CLI.run(["render", "song.wav", "song.beatmap.json", "-o", "given.wav", "--float"], in: folder)
        #expect(given.status == 0)
        #expect(
            try Data(contentsOf: folder.appendingPathComponent("alone.wav"))
                == Data(contentsOf: folder.appendingPathComponent("given.wav")))
        // Another song: 5 s instead of the map's 3 s.
        try AudioFixtures.writeWAV(
            folder.appendingPathComponent("other.wav"), sampleRate: 44_100, channels: 2, seconds: 5
        ) {
            _, _ in 0.1
        }
        let refused = try CLI.run(["render", "other.wav", "song.beatmap.json", "-o", "x.wav"], in: folder)
        #expect(refused.status == 2)
        #expect(refused.stderr.contains("other.wav"), "\(refused.stderr)")
        #expect(refused.stderr.contains("song.beatmap.json"))
        #expect(refused.stderr.contains("5.000 s"))
        #expect(refused.stderr.contains("--force"))
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("x.wav").path))
        let forced = try CLI.run(["render", "other.wav", "song.beatmap.json", "-o", "x.wav", "--force"], in: folder)
        #expect(forced.status == 0, "\(forced.stderr)")
        // A recorded hash that differs is refused too, naming the hashes.
        var text = try String(contentsOf: song.map, encoding: .utf8)
        text = text.replacingOccurrences(
            of: "\"sampleRate\"", with: "\"sha256\": \"\(String(repeating: "ab", count: 32))\", \"sampleRate\"")
        try Data(text.utf8).write(to: folder.appendingPathComponent("hashed.beatmap.json"))
        let hashed = try CLI.run(["render", "song.wav", "hashed.beatmap.json", "-o", "y.wav"], in: folder)
        #expect(hashed.status == 2)
        #expect(hashed.stderr.contains("SHA-256"), "\(hashed.stderr)")
        // A map without audio.path needs the audio.
        try Data("{\"version\": 1, \"audio\": {\"duration\": 3}, \"beats\": [0.5]}".utf8).write(
            to: folder.appendingPathComponent("bare.beatmap.json"))
        let bare = try CLI.run(["render", "bare.beatmap.json", "-o", "z.wav"], in: folder)
        #expect(bare.status == 2)
        #expect(bare.stderr.contains("names no audio file"), "\(bare.stderr)")
    }

    @Test("the format follows -o's extension (WAV, FLAC, Ogg); others are refused before any work; -o - writes WAV")
    func containers() throws {
        let folder = try CLI.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        _ = try AudioFixtures.song(in: folder, seconds: 2)
        for (name, magic) in [("out.flac", "fLaC"), ("out.ogg", "OggS"), ("out.wav", "RIFF")] {
            let result = try CLI.run(["render", "song.beatmap.json", "-o", name], in: folder)
            #expect(result.status == 0, "\(result.stderr)")
            let head = try Data(contentsOf: folder.appendingPathComponent(name)).prefix(4)
            #expect(String(decoding: head, as: UTF8.self) == magic, "\(name)")
        }
        let mp3 = try CLI.run(["render", "missing.wav", "song.beatmap.json", "-o", "out.mp3"], in: folder)
        #expect(mp3.status == 64, "a name the command cannot write is a usage error, as for plot")
        #expect(mp3.stderr.contains(".mp3"))
        #expect(mp3.stderr.contains(".wav or .flac or .ogg"))
        #expect(!mp3.stderr.contains("missing.wav"), "the extension is refused before the audio is opened")
        let float = try CLI.run(["render", "song.beatmap.json", "-o", "f.flac", "--float"], in: folder)
        #expect(float.status == 64)
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("f.flac").path))
        // -o -: WAV on standard output, the same bytes as the file.
        let piped = folder.appendingPathComponent("piped.wav")
        let shell = try VirtualAudio.shell(
            "cd '\(folder.path)' && '\(CLI.binary.path)' render song.beatmap.json -o - > piped.wav")
        shell.waitUntilExit()
        #expect(shell.terminationStatus == 0)
        #expect(try Data(contentsOf: piped) == Data(contentsOf: folder.appendingPathComponent("out.wav")))
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("-").path))
    }
}
