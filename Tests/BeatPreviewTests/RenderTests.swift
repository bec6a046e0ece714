// SPDX-License-Identifier: GPL-3.0-or-later

import BeatAudio
import BeatMapKit
import BeatPreview
import Foundation
import Testing

@Suite("Offline render")
struct RenderTests {
    /// Renders `beats` over `duration` seconds of silence at `sampleRate`.
    @available(macOS 15, iOS 18, tvOS 18, visionOS 2, *)
    func renderOverSilence(
        beats: [Double], sampleRate: Int, duration: Double, channels: Int = 2, tempo: [TempoSegment]? = nil,
        settings: MixSettings = MixSettings()
    ) throws -> (RenderedAudio, PreviewMaterial) {
        let folder = try TestAudio.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let audio = folder.appendingPathComponent("silence.wav")
        let map = folder.appendingPathComponent("m.beatmap.json")
        try TestAudio.writeWAV(
            audio, sampleRate: sampleRate, channels: channels, frames: Int(duration * Double(sampleRate)))
        try TestAudio.writeMap(map, beats: beats, duration: duration, tempo: tempo)
        let material = try PreviewMaterial.load(audio: audio, map: map)
        return (try OfflineRenderer.render(material, settings: settings), material)
    }

    @Test(
        "every click starts at its beat's frame round(t × rate) (±1) at 60–240 BPM and 22.05/44.1/48 kHz",
        arguments: [22_050, 44_100, 48_000], [60.0, 97.3, 128.0, 174.0, 240.0])
    func clicksOnFrames(sampleRate: Int, bpm: Double) throws {
        guard #available(macOS 15, iOS 18, tvOS 18, visionOS 2, *) else {
            Issue.record("needs Synchronization (macOS 15)"); return
        }
        let duration = 8.0
        let beats = TestAudio.beats(bpm: bpm, anchor: 0.123_456_7, duration: duration - 0.1)
        let (audio, _) = try renderOverSilence(beats: beats, sampleRate: sampleRate, duration: duration)
        let expected = beats.map { Int(($0 * Double(sampleRate)).rounded()) }
        let found = TestAudio.onsets(in: audio.samples, channels: audio.channels)
        #expect(found.count == expected.count)
        for (onset, frame) in zip(found, expected) {
            #expect(abs(onset - frame) <= 1, "click at \(onset), beat frame \(frame)")
        }
        // Exactly on the frame: the sample before is silent and the beat's own frame sounds.
        for frame in expected {
            #expect(audio.samples[(frame - 1) * 2] == 0)
            #expect(audio.samples[frame * 2] != 0)
            #expect(audio.samples[frame * 2 + 1] == audio.samples[frame * 2])
        }
    }

    @Test("clicks land on their frames over music too (render minus the music-only render)")
    func clicksOverMusic() throws {
        guard #available(macOS 15, iOS 18, tvOS 18, visionOS 2, *) else {
            Issue.record("needs Synchronization (macOS 15)"); return
        }
        let folder = try TestAudio.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let rate = 44_100
        let audio = folder.appendingPathComponent("tone.wav")
        let mapURL = folder.appendingPathComponent("m.beatmap.json")
        try TestAudio.writeWAV(audio, sampleRate: rate, channels: 1, frames: rate * 5) { frame, _ in
            0.2 * sin(2 * Double.pi * 220 * Double(frame) / Double(rate))
        }
        let beats = TestAudio.beats(bpm: 150, anchor: 0.31, duration: 4.9)
        try TestAudio.writeMap(mapURL, beats: beats, duration: 5)
        let material = try PreviewMaterial.load(audio: audio, map: mapURL)
        let mixed = try OfflineRenderer.render(material, settings: MixSettings())
        let music = try OfflineRenderer.render(material, settings: MixSettings(clicksMuted: true))
        let clicks = zip(mixed.samples, music.samples).map { $0 - $1 }
        let expected = beats.map { Int(($0 * Double(rate)).rounded()) }
        #expect(TestAudio.onsets(in: clicks, channels: 1) == expected)
        #expect(mixed.channels == 1)
    }

    @Test("bars' first beats get the accent when the map has beatsPerBar, and only then")
    func accents() throws {
        guard #available(macOS 15, iOS 18, tvOS 18, visionOS 2, *) else {
            Issue.record("needs Synchronization (macOS 15)"); return
        }
        let beats = TestAudio.beats(bpm: 120, anchor: 0.5, duration: 4.4)
        let tempo = [TempoSegment(time: 0.5, bpm: 120, beatsPerBar: 3)]
        let (withBars, material) = try renderOverSilence(beats: beats, sampleRate: 48_000, duration: 4.5, tempo: tempo)
        let peaks = beats.map { abs(withBars.samples[Int(($0 * 48_000).rounded()) * 2]) }
        for (index, peak) in peaks.enumerated() {
            let accented = index % 3 == 0
            #expect(material.schedule.accents[index] == accented)
            let expected = (accented ? 1.0 : 0.6) * Double(linearGain(decibels: -3))
            #expect(abs(Double(peak) - expected) < 1e-4)
        }
        let (plain, _) = try renderOverSilence(beats: beats, sampleRate: 48_000, duration: 4.5)
        let plainPeaks = beats.map { abs(plain.samples[Int(($0 * 48_000).rounded()) * 2]) }
        #expect(Set(plainPeaks).count == 1)
    }

    @Test("gains in dB: −6 dB on the clicks halves them (within 0.3 %)")
    func gains() throws {
        guard #available(macOS 15, iOS 18, tvOS 18, visionOS 2, *) else {
            Issue.record("needs Synchronization (macOS 15)"); return
        }
        let beats = [1.0, 2.0]
        let (loud, _) = try renderOverSilence(
            beats: beats, sampleRate: 44_100, duration: 3, settings: MixSettings(clickGain: linearGain(decibels: 0)))
        let (soft, _) = try renderOverSilence(
            beats: beats, sampleRate: 44_100, duration: 3, settings: MixSettings(clickGain: linearGain(decibels: -6)))
        let ratio = soft.samples[44_100 * 2] / loud.samples[44_100 * 2]
        #expect(abs(ratio - 0.501) < 0.003)
    }

    @Test("full-scale music plus clicks never exceeds full scale; quiet passages are untouched")
    func noClipping() throws {
        guard #available(macOS 15, iOS 18, tvOS 18, visionOS 2, *) else {
            Issue.record("needs Synchronization (macOS 15)"); return
        }
        let folder = try TestAudio.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let rate = 22_050
        let audio = folder.appendingPathComponent("loud.wav")
        let mapURL = folder.appendingPathComponent("m.beatmap.json")
        // A full-scale square wave for 1 s, then a quiet tone.
        try TestAudio.writeWAV(audio, sampleRate: rate, channels: 2, frames: rate * 2) { frame, _ in
            frame < rate ? (frame / 50 % 2 == 0 ? 1 : -1) : 0.1 * sin(Double(frame) * 0.05)
        }
        try TestAudio.writeMap(mapURL, beats: [0.25, 0.5, 0.75, 1.5], duration: 2)
        let material = try PreviewMaterial.load(audio: audio, map: mapURL)
        let loud = MixSettings(musicGain: 1, clickGain: 1)
        let audioOut = try OfflineRenderer.render(material, settings: loud)
        let music = try OfflineRenderer.render(material, settings: MixSettings(musicGain: 1, clicksMuted: true))
        #expect(audioOut.samples.allSatisfy { abs($0) <= 1 })
        #expect(audioOut.samples.contains { abs($0) > 0.95 })
        // Frame 1.2 s: no click, quiet music passes unchanged.
        let frame = Int(1.2 * Double(rate))
        #expect(audioOut.samples[frame * 2] == music.samples[frame * 2])
        #expect(Mixer.limit(0.5) == 0.5)
        #expect(Mixer.limit(-3) >= -1)
        #expect(Mixer.limit(0.95) < 0.95)
        #expect(Mixer.limit(0.95) > 0.9)
    }

    @Test("a --from/--to span equals the same frames of the whole render")
    func span() throws {
        guard #available(macOS 15, iOS 18, tvOS 18, visionOS 2, *) else {
            Issue.record("needs Synchronization (macOS 15)"); return
        }
        let folder = try TestAudio.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let audio = folder.appendingPathComponent("tone.wav")
        let mapURL = folder.appendingPathComponent("m.beatmap.json")
        try TestAudio.writeWAV(audio, sampleRate: 44_100, channels: 2, frames: 44_100 * 6) { frame, _ in
            0.2 * sin(Double(frame) * 0.03)
        }
        try TestAudio.writeMap(mapURL, beats: TestAudio.beats(bpm: 133, anchor: 0.05, duration: 5.9), duration: 6)
        let material = try PreviewMaterial.load(audio: audio, map: mapURL)
        let whole = try OfflineRenderer.render(material)
        let span = try OfflineRenderer.frameSpan(from: 1.2345, to: 4.321, sampleRate: 44_100, duration: 6)
        #expect(span.start == 54_441)
        #expect(span.end == 190_556)
        let part = try OfflineRenderer.render(material, from: 1.2345, to: 4.321)
        #expect(part.startFrame == 54_441)
        #expect(part.samples == Array(whole.samples[(54_441 * 2)..<(190_556 * 2)]))
        #expect(throws: PreviewError.self) { try OfflineRenderer.render(material, from: 7) }
        #expect(throws: PreviewError.self) { try OfflineRenderer.render(material, from: 3, to: 2) }
        #expect(throws: PreviewError.self) { try OfflineRenderer.render(material, from: -1) }
    }

    @Test(
        "WAV, FLAC and Ogg files decode back to the render; WAV and FLAC bytes are the same run after run",
        arguments: [("wav", RenderSampleFormat.float32), ("wav", .pcm16), ("flac", .pcm16), ("ogg", .pcm16)])
    func containers(fileExtension: String, format: RenderSampleFormat) throws {
        guard #available(macOS 15, iOS 18, tvOS 18, visionOS 2, *) else {
            Issue.record("needs Synchronization (macOS 15)"); return
        }
        let folder = try TestAudio.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let audio = folder.appendingPathComponent("silence.wav")
        let mapURL = folder.appendingPathComponent("m.beatmap.json")
        try TestAudio.writeWAV(audio, sampleRate: 48_000, channels: 2, frames: 48_000 * 3)
        try TestAudio.writeMap(mapURL, beats: TestAudio.beats(bpm: 100, anchor: 0.2, duration: 2.9), duration: 3)
        let expected = try OfflineRenderer.render(try PreviewMaterial.load(audio: audio, map: mapURL))
        var files: [Data] = []
        for run in 1...2 {
            let url = folder.appendingPathComponent("out-\(run).\(fileExtension)")
            let report = try OfflineRenderer.render(
                RenderRequest(audio: audio, map: mapURL, destination: .file(url), shownAs: url.path, format: format))
            #expect(report.container.rawValue == fileExtension)
            files.append(try Data(contentsOf: url))
            let reader = try AudioFileReader(url: url)
            #expect(reader.sampleRate == 48_000)
            #expect(reader.channels == 2)
            var decoded = [Float](repeating: 0, count: expected.samples.count + 64)
            let frames = try decoded.withUnsafeMutableBufferPointer { buffer in
                try reader.readInterleaved(into: try #require(buffer.baseAddress), frames: expected.frames + 32)
            }
            #expect(frames == expected.frames)
            // Float WAV is exact; 16-bit is within half a step; Vorbis is lossy (clicks over silence).
            let tolerance: Float = format == .float32 ? 0 : fileExtension == "ogg" ? 0.2 : 1.0 / 32_767
            let worst = zip(decoded, expected.samples).map { abs($0 - $1) }.max() ?? 0
            #expect(worst <= tolerance, "largest difference \(worst)")
        }
        if fileExtension != "ogg" { #expect(files[0] == files[1]) }
    }

    @Test("an output extension the renderer cannot write is refused before any work, naming it and the formats")
    func unsupportedContainer() throws {
        guard #available(macOS 15, iOS 18, tvOS 18, visionOS 2, *) else {
            Issue.record("needs Synchronization (macOS 15)"); return
        }
        let folder = try TestAudio.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let out = folder.appendingPathComponent("mix.mp3")
        // Neither the map nor the audio exists: the extension is refused first.
        let request = RenderRequest(
            audio: folder.appendingPathComponent("none.wav"), map: folder.appendingPathComponent("none.beatmap.json"),
            destination: .file(out), shownAs: "mix.mp3")
        #expect(throws: PreviewError.unsupportedOutput(path: out.path, fileExtension: "mp3")) {
            try OfflineRenderer.render(request)
        }
        let message = PreviewError.unsupportedOutput(path: out.path, fileExtension: "mp3").localizedDescription
        #expect(message.contains(".mp3"))
        #expect(message.contains(".wav, .flac or .ogg"))
        #expect(!FileManager.default.fileExists(atPath: out.path))
    }

    @Test("a user click sample replaces the built-in click and starts on the beat's frame")
    func userClick() throws {
        guard #available(macOS 15, iOS 18, tvOS 18, visionOS 2, *) else {
            Issue.record("needs Synchronization (macOS 15)"); return
        }
        let folder = try TestAudio.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let click = folder.appendingPathComponent("click.wav")
        // 5 ms of a falling ramp at 22.05 kHz, to be resampled to 44.1 kHz.
        try TestAudio.writeWAV(click, sampleRate: 22_050, channels: 1, frames: 110) { frame, _ in
            0.8 - Double(frame) * 0.007
        }
        let sound = try ClickSound.sample(at: click, sampleRate: 44_100)
        try #require(sound.accent.count == 220)
        #expect(abs(sound.accent[0] - 0.8) < 1e-3)
        #expect(abs(sound.normal[0] - 0.4) < 1e-3)
        let audio = folder.appendingPathComponent("silence.wav")
        let mapURL = folder.appendingPathComponent("m.beatmap.json")
        try TestAudio.writeWAV(audio, sampleRate: 44_100, channels: 1, frames: 44_100)
        try TestAudio.writeMap(mapURL, beats: [0.1, 0.6], duration: 1)
        let material = try PreviewMaterial.load(audio: audio, map: mapURL, click: click)
        let rendered = try OfflineRenderer.render(material, settings: MixSettings(clickGain: 1))
        #expect(TestAudio.onsets(in: rendered.samples, channels: 1) == [4_410, 26_460])
        #expect(abs(rendered.samples[4_410] - 0.4) < 1e-3)
        let silent = folder.appendingPathComponent("silent-click.wav")
        try TestAudio.writeWAV(silent, sampleRate: 44_100, channels: 1, frames: 100)
        #expect(throws: ClickError.silent(path: silent.path)) { try ClickSound.sample(at: silent, sampleRate: 44_100) }
    }

    @Test("render writes atomically and refuses to overwrite without permission")
    func writeNoOverwrite() throws {
        guard #available(macOS 15, iOS 18, tvOS 18, visionOS 2, *) else {
            Issue.record("needs Synchronization (macOS 15)"); return
        }
        let folder = try TestAudio.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let audio = folder.appendingPathComponent("silence.wav")
        let mapURL = folder.appendingPathComponent("m.beatmap.json")
        try TestAudio.writeWAV(audio, sampleRate: 22_050, channels: 1, frames: 22_050)
        try TestAudio.writeMap(mapURL, beats: [0.5], duration: 1)
        let out = folder.appendingPathComponent("out.wav")
        try Data("keep".utf8).write(to: out)
        var request = RenderRequest(audio: audio, map: mapURL, destination: .file(out), shownAs: out.path)
        #expect(throws: PreviewError.exists(path: out.path)) { try OfflineRenderer.render(request) }
        #expect(try Data(contentsOf: out) == Data("keep".utf8))
        request.overwrite = true
        try OfflineRenderer.render(request)
        #expect(try Data(contentsOf: out).count == 44 + 22_050 * 2)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.contains(".tmp-") }
        #expect(leftovers.isEmpty)
    }

    @Test("a missing audio file or map is a clear error naming the file")
    func badInput() throws {
        guard #available(macOS 15, iOS 18, tvOS 18, visionOS 2, *) else {
            Issue.record("needs Synchronization (macOS 15)"); return
        }
        let folder = try TestAudio.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let mapURL = folder.appendingPathComponent("m.beatmap.json")
        try TestAudio.writeMap(mapURL, beats: [0.5], duration: 1)
        let missing = folder.appendingPathComponent("none.wav")
        do {
            _ = try PreviewMaterial.load(audio: missing, map: mapURL)
            Issue.record("expected an error")
        } catch {
            #expect(error.localizedDescription.contains(missing.path))
        }
        let notAudio = folder.appendingPathComponent("text.wav")
        try Data("not audio".utf8).write(to: notAudio)
        #expect(throws: PreviewError.self) { try PreviewMaterial.load(audio: notAudio, map: mapURL) }
    }
}

@Suite("Beat schedule")
struct BeatScheduleTests {
    @Test("bar positions follow the tempo map's beatsPerBar, with a pickup before the first downbeat")
    func barPositions() {
        let map = BeatMap(
            audio: AudioReference(duration: 10), tempo: [TempoSegment(time: 1.0, bpm: 120, beatsPerBar: 4)],
            beats: [0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 3.5])
        let schedule = BeatSchedule(map: map)
        #expect(schedule.barsAreKnown)
        #expect(schedule.positions.map(\.bar) == [0, 1, 1, 1, 1, 2, 2])
        #expect(schedule.positions.map(\.beat) == [4, 1, 2, 3, 4, 1, 2])
        #expect(schedule.accents == [false, true, false, false, false, true, false])
        #expect(schedule.bpm.allSatisfy { $0 == 120 })
        #expect(schedule.barRange(containing: 3) == 1..<5)
    }

    @Test("without beatsPerBar: 4 beats per bar are assumed, nothing is accented, BPM from the intervals")
    func unknownBars() {
        let map = BeatMap(audio: AudioReference(duration: 10), beats: [2.0, 0.0, 0.5, 1.0, 1.5])
        let schedule = BeatSchedule(map: map)
        #expect(!schedule.barsAreKnown)
        #expect(schedule.times == [0, 0.5, 1, 1.5, 2])
        #expect(schedule.positions.map(\.bar) == [1, 1, 1, 1, 2])
        #expect(schedule.accents.allSatisfy { !$0 })
        #expect(schedule.bpm == [120, 120, 120, 120, 120])
    }
}

@Suite("Audio stream")
struct AudioStreamTests {
    /// All frames of `stream` from where it is.
    func readAll(_ stream: AudioStream, block: Int) throws -> [Float] {
        var samples: [Float] = []
        var buffer = [Float](repeating: 0, count: block * stream.channels)
        while true {
            let frames = try buffer.withUnsafeMutableBufferPointer { pointer in
                try stream.read(into: try #require(pointer.baseAddress), frames: block)
            }
            if frames == 0 { return samples }
            samples += buffer[0..<(frames * stream.channels)]
        }
    }

    @Test("at the file's rate: the samples as stored, from any seek; more than 2 channels mix to mono")
    func ownRate() throws {
        let folder = try TestAudio.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("long.wav")
        let frames = 48_000 * 3
        try TestAudio.writeWAV(url, sampleRate: 48_000, channels: 2, frames: frames) { frame, channel in
            Double((frame * 7 + channel * 13) % 2000) / 2000 - 0.5
        }
        let stream = try AudioStream(url: url)
        #expect(!stream.isResampling)
        #expect(stream.estimatedFrames == frames)
        let whole = try readAll(stream, block: 1_000)
        #expect(whole.count == frames * 2)
        try stream.seek(toFrame: 100_003)
        let tail = try readAll(stream, block: 777)
        #expect(tail == Array(whole[(100_003 * 2)...]))
        let multi = folder.appendingPathComponent("quad.wav")
        try TestAudio.writeWAV(multi, sampleRate: 8_000, channels: 4, frames: 100) { _, channel in
            Double(channel) * 0.25
        }
        let mixed = try AudioStream(url: multi)
        #expect(mixed.channels == 1)
        let mono = try readAll(mixed, block: 64)
        try #require(mono.count == 100)
        #expect(abs(mono[50] - 0.375) < 1e-3)
    }

    @Test(
        "resampled with libsoxr: the length scales, a tone keeps its level, reads of any size give the same samples, a seek lands on the continuous stream"
    )
    func resampled() throws {
        let folder = try TestAudio.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("tone.wav")
        try TestAudio.writeWAV(url, sampleRate: 44_100, channels: 2, frames: 44_100 * 2) { frame, channel in
            0.5 * sin(2 * Double.pi * Double(440 + 110 * channel) * Double(frame) / 44_100)
        }
        let stream = try AudioStream(url: url, sampleRate: 48_000)
        #expect(stream.isResampling)
        #expect(stream.estimatedFrames == 96_000)
        let whole = try readAll(stream, block: 4_096)
        #expect(whole.count == 96_000 * 2)
        // The tone at the output rate: sample k is sin(2π f k / 48000) (libsoxr trims its own delay).
        let expected = (10_000..<10_100).map { 0.5 * sin(2 * Double.pi * 440 * Double($0) / 48_000) }
        let left = (10_000..<10_100).map { Double(whole[$0 * 2]) }
        #expect(zip(expected, left).map { abs($0 - $1) }.max() ?? 1 < 1e-3)
        let again = try AudioStream(url: url, sampleRate: 48_000)
        #expect(try readAll(again, block: 333) == whole)
        try again.seek(toFrame: 50_001)
        let tail = try readAll(again, block: 1_024)
        try #require(tail.count == (96_000 - 50_001) * 2)
        let difference = zip(tail, whole[(50_001 * 2)...]).map { abs($0 - $1) }.max() ?? 1
        #expect(difference < 1e-4)
    }
}
