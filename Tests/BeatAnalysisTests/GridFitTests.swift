// SPDX-License-Identifier: GPL-3.0-or-later

import BeatAnalysis
import BeatAudio
import BeatMapKit
import Foundation
import TestSynth
import Testing

/// Grid fitting and map making on synthesised tracks with exact beat times.
@Suite("Grid fit and beat-map analyzer")
struct GridFitTests {
    /// Writes `track` to a temporary WAV and analyses it into a map beside it.
    static func analyse(
        _ track: SynthTrack, options: BeatMapAnalysisOptions = BeatMapAnalysisOptions()
    ) throws -> (result: AnalyzedBeatMap, folder: URL) {
        let folder = try TestTracks.temporaryFolder()
        let audioFolder = folder.appendingPathComponent("Audio")
        try FileManager.default.createDirectory(at: audioFolder, withIntermediateDirectories: true)
        let url = audioFolder.appendingPathComponent("track.wav")
        try WAVWriter.write(track, to: url)
        let mapURL = folder.appendingPathComponent("BeatMaps/track.beatmap.json")
        return (try BeatMapAnalyzer(options: options).analyze(url, mapURL: mapURL), folder)
    }

    /// The errors (found − true) of the beats nearest each true beat, and how many true beats had
    /// none within 50 ms.
    static func compare(_ found: [Double], _ truth: [Double]) -> (errors: [Double], missed: Int) {
        var errors: [Double] = []
        var missed = 0
        for beat in truth {
            if let nearest = found.min(by: { abs($0 - beat) < abs($1 - beat) }), abs(nearest - beat) <= 0.05 {
                errors.append(nearest - beat)
            } else {
                missed += 1
            }
        }
        return (errors.sorted(), missed)
    }

    @Test("a constant click track: BPM within 0.01, every beat within 1 ms, one beat per click")
    func constantClicks() throws {
        let (track, truth) = TestTracks.clicks(bpm: 143.21, start: 0.731, duration: 60)
        let (result, folder) = try Self.analyse(track)
        defer { try? FileManager.default.removeItem(at: folder) }
        try #require(result.fit.segments.count == 1)
        #expect(abs(result.fit.segments[0].bpm - 143.21) <= 0.01)
        let (errors, missed) = Self.compare(result.fit.beats, truth)
        #expect(missed == 0)
        #expect(result.fit.beats.count == truth.count)
        #expect(errors.allSatisfy { abs($0) <= 0.001 }, "errors \(errors.first ?? 0)…\(errors.last ?? 0)")
        // The first segment starts on a click (its first downbeat: bars are written however unsure).
        let first = try #require(result.map.tempo?.first)
        #expect(truth.contains { abs($0 - first.time) <= 0.001 })
    }

    @Test("a drum groove at 174 BPM is mapped at 174, not 87; --max-bpm 120 asks for the half level")
    func metricLevel() throws {
        let (track, truth) = TestTracks.drums(bpm: 174, start: 0.5, duration: 30)
        let (result, folder) = try Self.analyse(track)
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(abs(result.fit.segments[0].bpm - 174) <= 0.01)
        #expect(Self.compare(result.fit.beats, truth).missed == 0)
        let half = try #require(result.fit.alternatives.first { $0.ratio == .half })
        #expect(abs(half.bpm - 87) < 0.01)
        #expect(result.fit.alternatives.map(\.ratio.label).sorted() == ["×2", "½", "⅔", "3⁄2"].sorted())

        var options = BeatMapAnalysisOptions()
        options.grid.maximumBPM = 120
        let (slow, slowFolder) = try Self.analyse(track, options: options)
        defer { try? FileManager.default.removeItem(at: slowFolder) }
        #expect(abs(slow.fit.segments[0].bpm - 87) <= 0.01)
    }

    @Test("a kick on every beat holds the beat level although loud snares fall on every other beat")
    func steadyKickKeepsTheLevel() throws {
        var track = SynthTrack(duration: 24, sampleRate: 44_100)
        let period = 60.0 / 124
        var truth: [Double] = []
        var index = 0
        while 0.5 + Double(index) * period < 23.8 {
            let t = 0.5 + Double(index) * period
            truth.append(t)
            track.add(.kick, at: t, gain: 0.6)
            track.add(.hiHat, at: t, gain: 0.25)
            if index % 2 == 1 { track.add(.snare, at: t, gain: 0.6) }
            index += 1
        }
        let (result, folder) = try Self.analyse(track)
        defer { try? FileManager.default.removeItem(at: folder) }
        let segment = try #require(result.fit.segments.first)
        #expect(abs(segment.bpm - 124) <= 0.02)
        #expect(Self.compare(result.fit.beats, truth).missed == 0)
    }

    @Test("--bpm forces the tempo and only the phase is fitted")
    func forcedBPM() throws {
        let (track, truth) = TestTracks.drums(bpm: 120, start: 0.3, duration: 20)
        var options = BeatMapAnalysisOptions()
        options.grid.forcedBPM = 60
        let (result, folder) = try Self.analyse(track, options: options)
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(result.fit.segments.map(\.bpm) == [60])
        #expect(result.fit.method == .forcedBPM)
        // Every beat of the 60 BPM grid falls on one of the track's beats.
        let (errors, _) = Self.compare(truth, result.fit.beats)
        #expect(errors.count == result.fit.beats.count)
    }

    @Test("a tempo change from 128 to 150 BPM gives two segments, each tempo within 0.05 BPM")
    func tempoChange() throws {
        let first = TestTracks.drums(bpm: 128, start: 0.5, duration: 0.5 + 48 * 60 / 128 + 0.2)
        let changeTime = 0.5 + 48 * 60 / 128.0
        var track = SynthTrack(duration: changeTime + 30, sampleRate: 44_100)
        for (index, sample) in first.track.samples.enumerated() where index < track.samples.count {
            track.samples[index] = sample
        }
        var truth = first.beats.filter { $0 < changeTime - 0.01 }
        var t = changeTime
        var index = 0
        while t < changeTime + 29.5 {
            truth.append(t)
            track.add(index % 2 == 0 ? .kick : .snare, at: t, gain: 0.6)
            track.add(.hiHat, at: t, gain: 0.25)
            track.add(.hiHat, at: t + 0.2, gain: 0.2)
            t += 0.4
            index += 1
        }
        let (result, folder) = try Self.analyse(track)
        defer { try? FileManager.default.removeItem(at: folder) }
        let segments = result.fit.segments
        try #require(segments.count == 2)
        #expect(abs(segments[0].bpm - 128) <= 0.05)
        #expect(abs((segments.last?.bpm ?? 0) - 150) <= 0.05)
        #expect(abs((segments.last?.firstBeat ?? 0) - changeTime) <= 0.01, "change at \(segments.last?.firstBeat ?? 0)")
        let (errors, missed) = Self.compare(result.fit.beats, truth)
        #expect(missed == 0)
        #expect(errors.allSatisfy { abs($0) <= 0.005 })
        #expect(result.fit.beats.count == truth.count)
    }

    @Test("a silent intro gets no beats; the first beat is the music's first")
    func silentIntro() throws {
        var track = SynthTrack(duration: 30, sampleRate: 44_100)
        let drums = TestTracks.drums(bpm: 110, start: 0, duration: 24)
        let offset = 6.0
        for (index, sample) in drums.track.samples.enumerated() { track.samples[index + Int(offset * 44_100)] = sample }
        let (result, folder) = try Self.analyse(track)
        defer { try? FileManager.default.removeItem(at: folder) }
        let first = try #require(result.fit.beats.first)
        #expect(abs(first - offset) < 0.005, "first beat at \(first)")
    }

    @Test("a beatless intro that sounds (a pad chord per bar) gets beats from its start")
    func padIntro() throws {
        let bpm = 104.0
        let period = 60 / bpm
        let padStart = 0.5
        let drumsStart = padStart + 16 * period
        var track = SynthTrack(duration: drumsStart + 20, sampleRate: 44_100)
        for bar in 0..<4 {
            let start = Int(((padStart + Double(bar) * 4 * period) * 44_100).rounded())
            let length = Int(4 * period * 44_100)
            for n in 0..<length {
                let t = Double(n) / 44_100
                let envelope = min(1, t / 0.2)
                let value = (sin(2 * .pi * 220 * t) + sin(2 * .pi * 277 * t)) * 0.1 * envelope
                track.samples[start + n] += Float(value)
            }
        }
        let drums = TestTracks.drums(bpm: bpm, start: 0, duration: 19.5)
        let offset = Int((drumsStart * 44_100).rounded())
        for (index, sample) in drums.track.samples.enumerated() { track.samples[offset + index] += sample }
        let (result, folder) = try Self.analyse(track)
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(abs(result.fit.segments[0].bpm - bpm) < 0.02)
        let first = try #require(result.fit.beats.first)
        #expect(abs(first - padStart) < 0.01, "first beat at \(first); the pads start at \(padStart)")
    }

    @Test("every map written validates with default settings (constant, segments, forced, free)")
    func mapsValidate() throws {
        var cases: [(SynthTrack, BeatMapAnalysisOptions)] = []
        for (bpm, mode) in [(97.5, GridMode.auto), (181.0, .constant), (133.0, .segments), (120.0, .free)] {
            var options = BeatMapAnalysisOptions()
            options.grid.mode = mode
            cases.append((TestTracks.drums(bpm: bpm, start: 0.4, duration: 25).track, options))
        }
        for (track, options) in cases {
            let (result, folder) = try Self.analyse(track, options: options)
            defer { try? FileManager.default.removeItem(at: folder) }
            let mapURL = folder.appendingPathComponent("BeatMaps/track.beatmap.json")
            try FileManager.default.createDirectory(
                at: mapURL.deletingLastPathComponent(), withIntermediateDirectories: true)
            try BeatMapCodec.write(result.map, to: mapURL, overwrite: false)
            let report = Validator(audioInspector: SndfileAudioInspector()).validateFile(at: mapURL, path: mapURL.path)
            #expect(report.findings.isEmpty, "\(options.grid.mode): \(report.findings.map(\.message))")
            #expect(result.map.audio.path == "../Audio/track.wav")
            #expect(result.map.audio.sampleRate == 44_100)
            #expect(result.map.audio.sha256?.count == 64)
            #expect(abs(result.map.audio.duration - 25) < 1e-9)
        }
    }

    @Test("the same audio gives byte-identical maps, with or without the helper threads")
    func deterministic() throws {
        let (track, _) = TestTracks.drums(bpm: 126.4, start: 0.2, duration: 20)
        var inline = BeatMapAnalysisOptions()
        inline.helperThreads = false
        let (a, folderA) = try Self.analyse(track)
        let (b, folderB) = try Self.analyse(track)
        let (c, folderC) = try Self.analyse(track, options: inline)
        defer {
            for folder in [folderA, folderB, folderC] { try? FileManager.default.removeItem(at: folder) }
        }
        let encoded = try BeatMapCodec.encode(a.map)
        #expect(try BeatMapCodec.encode(b.map) == encoded)
        #expect(try BeatMapCodec.encode(c.map) == encoded)
        #expect(c.map.audio.sha256 == a.map.audio.sha256)
        #expect(c.map.audio.sha256?.count == 64)
    }

    @Test("a file's helper threads run only when each file running can have a second core")
    func helperThreadPolicy() {
        #expect(AnalysisBatch.helpersPay(filesAtOnce: 1, cores: 2))
        #expect(!AnalysisBatch.helpersPay(filesAtOnce: 2, cores: 2))
        #expect(!AnalysisBatch.helpersPay(filesAtOnce: 1, cores: 1))
        #expect(AnalysisBatch.helpersPay(filesAtOnce: 4, cores: 8))
        #expect(!AnalysisBatch.helpersPay(filesAtOnce: 5, cores: 8))
    }

    @Test("provenance records versions, method, hop, resampler, delay compensation, confidence and alternatives")
    func provenance() throws {
        let (result, folder) = try Self.analyse(TestTracks.drums(bpm: 100, duration: 15).track)
        defer { try? FileManager.default.removeItem(at: folder) }
        let analysis = try #require(result.map.analysis?.objectValue)
        #expect(analysis["tool"]?.stringValue == "beatmap \(BeatMapKitInfo.version)")
        #expect(analysis["aubio"]?.stringValue?.hasPrefix("libaubio") == true)
        #expect(analysis["method"]?.stringValue == "grid-constant")
        #expect(analysis["analysisSampleRate"]?.doubleValue == 22_050)
        #expect(analysis["hopSize"]?.doubleValue == 256)
        #expect(analysis["bufferSize"]?.doubleValue == 512)
        #expect(analysis["resampler"]?.stringValue == "\(Resampler.libraryVersion) HQ")
        #expect(result.map.audio.sampleRate == 44_100)
        #expect(analysis["delayCompensation"]?.objectValue?["onsetEnvelopeSeconds"]?.doubleValue != nil)
        #expect((analysis["confidence"]?.doubleValue ?? 0) > 0.9)
        #expect(analysis["alternatives"]?.arrayValue?.count == 4)
    }
}

/// Audio that has no beat to map gives clear errors naming the file.
@Suite("Analyzer errors")
struct AnalyzerErrorTests {
    static func analyse(helperThreads: Bool = true, _ write: (URL) throws -> Void) throws -> AnalysisError? {
        let folder = try TestTracks.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("input.wav")
        try write(url)
        var options = BeatMapAnalysisOptions()
        options.helperThreads = helperThreads
        do {
            _ = try BeatMapAnalyzer(options: options).analyze(
                url, mapURL: folder.appendingPathComponent("out.beatmap.json"))
            return nil
        } catch {
            return error
        }
    }

    @Test("silence")
    func silent() throws {
        let error = try Self.analyse { try WAVWriter.write(SynthTrack(duration: 10, sampleRate: 44_100), to: $0) }
        guard case .silent(let path, _) = error else {
            Issue.record("expected .silent, got \(String(describing: error))")
            return
        }
        #expect(path.hasSuffix("input.wav"))
        #expect(error?.localizedDescription.contains("silent") == true)
    }

    @Test("a WAV with no frames")
    func empty() throws {
        let error = try Self.analyse { try WAVWriter.write(channels: [[]], sampleRate: 44_100, to: $0) }
        guard case .empty(let path) = error else {
            Issue.record("expected .empty, got \(String(describing: error))")
            return
        }
        #expect(path.hasSuffix("input.wav"))
    }

    @Test("a file that is not audio (decoded ahead or inline)", arguments: [true, false])
    func notAudio(helperThreads: Bool) throws {
        let error = try Self.analyse(helperThreads: helperThreads) {
            try Data("this is not a WAV file at all".utf8).write(to: $0)
        }
        guard case .decode(.cannotOpen(let path, _)) = error else {
            Issue.record("expected a decode error, got \(String(describing: error))")
            return
        }
        #expect(path.hasSuffix("input.wav"))
    }

    @Test("a WAV cut short of the length its header announces (decoded ahead or inline)", arguments: [true, false])
    func truncatedWAV(helperThreads: Bool) throws {
        let error = try Self.analyse(helperThreads: helperThreads) { url in
            try WAVWriter.write(TestTracks.drums(bpm: 120, duration: 10).track, to: url)
            let bytes = try Data(contentsOf: url)
            try bytes.prefix(bytes.count / 2).write(to: url)
        }
        guard case .decode(.readFailed(let path, let reason)) = error else {
            Issue.record("expected a read failure, got \(String(describing: error))")
            return
        }
        #expect(path.hasSuffix("input.wav"))
        #expect(reason.contains("truncated"))
    }

    @Test("too short to hold a beat")
    func tooShort() throws {
        let error = try Self.analyse {
            try WAVWriter.write(TestTracks.clicks(bpm: 120, start: 0.1, duration: 1).track, to: $0)
        }
        guard case .tooShort = error else {
            Issue.record("expected .tooShort, got \(String(describing: error))")
            return
        }
    }

    /// Steady sines at −10 and −60 dBFS and a 1 kHz one at 48 kHz (sox's 16-bit renderings of the last
    /// two were mapped by session 48's analyzer), and white noise.
    @Test(
        "a steady tone and white noise have no beat",
        arguments: ["tone", "noise", "quiet tone", "1 kHz tone at 48 kHz"])
    func noBeat(kind: String) throws {
        let sampleRate = kind.hasSuffix("48 kHz") ? 48_000 : 44_100
        var track = SynthTrack(duration: kind == "tone" ? 10 : 20, sampleRate: sampleRate)
        let (gain, frequency): (Float, Double) =
            switch kind {
            case "quiet tone": (0.001, 440)
            case "1 kHz tone at 48 kHz": (0.5, 1000)
            default: (0.3, 440)
            }
        if kind == "noise" {
            track.addNoise(gain: 0.2)
        } else {
            for index in track.samples.indices {
                track.samples[index] =
                    gain * Float(sin(2 * Double.pi * frequency * Double(index) / Double(sampleRate)))
            }
        }
        let error = try Self.analyse { try WAVWriter.write(track, to: $0) }
        guard case .noBeat(let path, _) = error else {
            Issue.record("expected .noBeat, got \(String(describing: error))")
            return
        }
        #expect(path.hasSuffix("input.wav"))
    }
}
