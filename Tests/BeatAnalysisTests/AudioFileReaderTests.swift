// SPDX-License-Identifier: GPL-3.0-or-later

import BeatAnalysis
import BeatAudio
import BeatMapKit
import Foundation
import TestSynth
import Testing

@Suite("libsndfile reader and audio inspector")
struct AudioFileReaderTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    @Test("the demo Ogg decodes to its exact length, and the inspector agrees with its map")
    func demoOgg() throws {
        let audio = Self.root.appendingPathComponent("Audio/demo-120.ogg")
        let facts = try SndfileAudioInspector().inspect(audio, computeHash: true)
        let map = try BeatMapCodec.read(from: Self.root.appendingPathComponent("BeatMaps/demo-120.beatmap.json"))
        #expect(facts.sampleRate == 44100)
        #expect(facts.duration == 32.0)
        #expect(facts.sha256 == map.audio.sha256)
    }

    @Test("mono mixdown is the mean of the channels, block by block")
    func monoMixdown() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("reader-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        // A 16-bit stereo WAV whose left channel is +0.5 and right channel −0.25 throughout.
        let frames = 1000
        let url = folder.appendingPathComponent("stereo.wav")
        try WAVWriter.write(to: url, sampleRate: 8000, channels: 2, frames: frames) { _, channel in
            channel == 0 ? 0.5 : -0.25
        }
        let reader = try AudioFileReader(url: url)
        #expect(reader.channels == 2)
        #expect(reader.sampleRate == 8000)
        var block = [Float](repeating: 0, count: 256)
        var total = 0
        while true {
            let count = try block.withUnsafeMutableBufferPointer { buffer in
                try reader.readMono(into: buffer.baseAddress!, frames: 256)
            }
            if count == 0 { break }
            #expect(block[0..<count].allSatisfy { abs($0 - 0.125) < 1e-4 })
            total += count
        }
        #expect(total == frames)
        #expect(reader.framesRead == Int64(frames))
    }

    /// Every mono sample of the file at `url`.
    static func samples(of url: URL) throws -> [Float] {
        let reader = try AudioFileReader(url: url)
        var all: [Float] = []
        var block = [Float](repeating: 0, count: 4096)
        while true {
            let count = try block.withUnsafeMutableBufferPointer { buffer in
                try reader.readMono(into: buffer.baseAddress!, frames: buffer.count)
            }
            if count == 0 { break }
            all += block[0..<count]
        }
        return all
    }

    /// Runs LAME (Debian `lame`, installed by tools/setup.sh) on a WAV.
    static func lame(_ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["lame", "--quiet"] + arguments
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "lame \(arguments)")
    }

    @Test("an MP3 with LAME's tag decodes gaplessly; without it, the encoder's 1,105-sample delay stays")
    func mp3EncoderDelay() throws {
        let folder = try TestTracks.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let wav = folder.appendingPathComponent("clicks.wav")
        try WAVWriter.write(TestTracks.clicks(bpm: 120, start: 0.5, duration: 6).track, to: wav)
        let tagged = folder.appendingPathComponent("tagged.mp3")
        let untagged = folder.appendingPathComponent("untagged.mp3")
        try Self.lame(["-b", "192", wav.path, tagged.path])
        try Self.lame(["-t", "-b", "192", wav.path, untagged.path])
        func firstClick(_ samples: [Float]) -> Int? { samples.firstIndex { abs($0) > 0.2 } }
        let reference = try Self.samples(of: wav)
        let gapless = try Self.samples(of: tagged)
        let delayed = try Self.samples(of: untagged)
        let click = try #require(firstClick(reference))
        #expect(click == 22_050)
        // The tag carries the delay and padding: mpg123 (through libsndfile) removes both.
        #expect(gapless.count == reference.count)
        #expect(abs(try #require(firstClick(gapless)) - click) <= 2)
        // Without the tag nothing says how much to remove: LAME's 576 + 529 samples stay in front.
        #expect(abs(try #require(firstClick(delayed)) - click - 1105) <= 2)
        #expect(delayed.count > reference.count)
    }

    @Test("a truncated Ogg is told from a whole one: a page cut short, or no end-of-stream page")
    func truncatedOgg() throws {
        let folder = try TestTracks.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let bytes = [UInt8](try Data(contentsOf: Self.root.appendingPathComponent("Audio/demo-120.ogg")))
        // The last page starts at the last "OggS" (the demo's final page is small).
        let capture: [UInt8] = Array("OggS".utf8)
        let lastPage = try #require(
            (0...(bytes.count - 4)).reversed().first { Array(bytes[$0..<($0 + 4)]) == capture })
        func truncation(_ name: String, _ data: ArraySlice<UInt8>) throws -> String? {
            let url = folder.appendingPathComponent(name)
            try Data(data).write(to: url)
            let reader = try AudioFileReader(url: url)
            _ = try reader.countRemainingFrames()
            return reader.truncation()
        }
        #expect(try truncation("whole.ogg", bytes[...]) == nil)
        let cut = try truncation("cut.ogg", bytes.prefix(bytes.count * 6 / 10))
        #expect(cut?.contains("the last Ogg page is cut short") == true)
        let boundary = try truncation("boundary.ogg", bytes.prefix(lastPage))
        #expect(boundary?.contains("ends without its end-of-stream page") == true)
        // A tag appended after the end-of-stream page (some taggers write ID3v1 even to Ogg) is not a cut.
        let tagged = bytes + Array("TAG".utf8) + [UInt8](repeating: 0x20, count: 125)
        #expect(try truncation("tagged.ogg", tagged[...]) == nil)

        // The analyzer refuses it with the same reason, naming the file.
        let url = folder.appendingPathComponent("cut.ogg")
        do {
            _ = try BeatMapAnalyzer().analyze(url, mapURL: folder.appendingPathComponent("cut.beatmap.json"))
            Issue.record("a truncated Ogg was analysed")
        } catch {
            #expect(error.localizedDescription.hasPrefix(url.path + ": "))
            #expect(error.localizedDescription.contains("truncated"))
        }
    }

    @Test("a file that is not audio, and a missing file, give errors that name the file")
    func errors() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("reader-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let text = folder.appendingPathComponent("notes.wav")
        try Data("this is not audio".utf8).write(to: text)
        do {
            _ = try AudioFileReader(url: text)
            Issue.record("text file opened as audio")
        } catch {
            #expect(error.localizedDescription.contains("notes.wav"))
        }
        let missing = folder.appendingPathComponent("missing.ogg")
        #expect(throws: AudioDecodeError.cannotOpen(path: missing.path, reason: "no such file")) {
            try AudioFileReader(url: missing)
        }
    }
}
