// SPDX-License-Identifier: GPL-3.0-or-later

import BeatMapKit
import Foundation
import TestSynth
import Testing

@Suite("beatmap analyze")
struct AnalyzeCommandTests {
    /// A folder with `Audio/` holding drum tracks at the given tempi (named `song-BPM.wav`).
    static func project(_ tempi: [Double], duration: Double = 12) throws -> URL {
        let folder = try CLI.temporaryFolder()
        let audio = folder.appendingPathComponent("Audio")
        try FileManager.default.createDirectory(at: audio, withIntermediateDirectories: true)
        for bpm in tempi {
            let (track, _) = TestTracks.drums(bpm: bpm, start: 0.3, duration: duration)
            try WAVWriter.write(track, to: audio.appendingPathComponent("song-\(Int(bpm)).wav"))
        }
        return folder
    }

    static func read(_ folder: URL, _ path: String) throws -> Data {
        try Data(contentsOf: folder.appendingPathComponent(path))
    }

    @Test("maps go to BeatMaps/<name>.beatmap.json, validate, and reference the audio relatively")
    func defaultOutput() throws {
        let folder = try Self.project([100, 140])
        defer { try? FileManager.default.removeItem(at: folder) }
        let result = try CLI.run(["analyze", "Audio"], in: folder)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.isEmpty, "no progress bar when stderr is not a terminal")
        #expect(result.stdout.contains("Audio/song-100.wav → BeatMaps/song-100.beatmap.json: "))
        #expect(result.stdout.contains("Audio/song-140.wav → BeatMaps/song-140.beatmap.json: "))
        let map = try BeatMapCodec.read(from: folder.appendingPathComponent("BeatMaps/song-140.beatmap.json"))
        #expect(map.audio.path == "../Audio/song-140.wav")
        // A 12-second clip has only 27 beats to fit; long tracks get within 0.01 BPM (GridFitTests).
        #expect(abs((map.tempo?.first?.bpm ?? 0) - 140) < 0.03)
        let validation = try CLI.run(["validate", "--strict", "BeatMaps"], in: folder)
        #expect(validation.status == 0, "\(validation.stdout)")
    }

    @Test("a corrupt file fails with its name while the rest of the batch is written")
    func corruptFileInBatch() throws {
        let folder = try Self.project([120])
        defer { try? FileManager.default.removeItem(at: folder) }
        try Data("RIFF....WAVEfmt garbage".utf8).write(to: folder.appendingPathComponent("Audio/broken.wav"))
        try Data().write(to: folder.appendingPathComponent("Audio/empty.ogg"))
        let result = try CLI.run(["analyze", "Audio"], in: folder)
        #expect(result.status == 1)
        #expect(result.stderr.contains("Audio/broken.wav"))
        #expect(result.stderr.contains("Audio/empty.ogg"))
        #expect(
            FileManager.default.fileExists(atPath: folder.appendingPathComponent("BeatMaps/song-120.beatmap.json").path)
        )
        #expect(
            !FileManager.default.fileExists(atPath: folder.appendingPathComponent("BeatMaps/broken.beatmap.json").path))
        let leftovers = try FileManager.default.contentsOfDirectory(
            atPath: folder.appendingPathComponent("BeatMaps").path)
        #expect(leftovers == ["song-120.beatmap.json"], "no temporary or partial files")
    }

    @Test("an existing map is kept without --force and replaced with it")
    func force() throws {
        let folder = try Self.project([110])
        defer { try? FileManager.default.removeItem(at: folder) }
        let maps = folder.appendingPathComponent("BeatMaps")
        try FileManager.default.createDirectory(at: maps, withIntermediateDirectories: true)
        let existing = Data("{\"hand-made\": true}\n".utf8)
        try existing.write(to: maps.appendingPathComponent("song-110.beatmap.json"))
        let refused = try CLI.run(["analyze", "Audio/song-110.wav"], in: folder)
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("already exists (use --force"))
        #expect(try Self.read(folder, "BeatMaps/song-110.beatmap.json") == existing)
        let forced = try CLI.run(["analyze", "--force", "Audio/song-110.wav"], in: folder)
        #expect(forced.status == 0)
        #expect(try BeatMapCodec.read(from: maps.appendingPathComponent("song-110.beatmap.json")).tempo?.count == 1)
    }

    @Test("the same audio gives byte-identical maps with one job and with two")
    func deterministicAcrossJobs() throws {
        let folder = try Self.project([92, 128, 171])
        defer { try? FileManager.default.removeItem(at: folder) }
        let one = try CLI.run(["analyze", "--jobs", "1", "--out-dir", "one", "Audio"], in: folder)
        let two = try CLI.run(["analyze", "--jobs", "2", "--out-dir", "two", "Audio"], in: folder)
        #expect(one.status == 0)
        #expect(two.status == 0)
        for name in ["song-92", "song-128", "song-171"] {
            let a = try Self.read(folder, "one/\(name).beatmap.json")
            let b = try Self.read(folder, "two/\(name).beatmap.json")
            #expect(a == b, "\(name)")
        }
    }

    @Test("--json prints a summary of written and failed files")
    func jsonSummary() throws {
        let folder = try Self.project([133])
        defer { try? FileManager.default.removeItem(at: folder) }
        try Data("nope".utf8).write(to: folder.appendingPathComponent("Audio/bad.flac"))
        let result = try CLI.run(["analyze", "--json", "-o", "x.beatmap.json", "Audio/song-133.wav"], in: folder)
        #expect(result.status == 0)
        let summary = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(summary["written"] as? Int == 1)
        #expect(summary["failed"] as? Int == 0)
        let files = try #require(summary["files"] as? [[String: Any]])
        #expect(files.first?["map"] as? String == "x.beatmap.json")
        let segments = try #require(files.first?["segments"] as? [[String: Any]])
        #expect(abs((segments.first?["bpm"] as? Double ?? 0) - 133) < 0.01)
        #expect((files.first?["warnings"] as? [String])?.isEmpty == true)

        let failing = try CLI.run(["analyze", "--json", "--out-dir", "maps", "Audio"], in: folder)
        #expect(failing.status == 1)
        let failed = try #require(try JSONSerialization.jsonObject(with: Data(failing.stdout.utf8)) as? [String: Any])
        #expect(failed["failed"] as? Int == 1)
        let entries = try #require(failed["files"] as? [[String: Any]])
        #expect(
            entries.contains {
                $0["status"] as? String == "failed" && ($0["error"] as? String)?.contains("bad.flac") == true
            })
    }

    @Test("a six-second jingle is mapped, exit 0, its warning on stderr and in --json")
    func shortClipWarning() throws {
        let folder = try CLI.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try WAVWriter.write(
            TestTracks.drums(bpm: 76, start: 0.3, duration: 6).track, to: folder.appendingPathComponent("jingle.wav"))
        let result = try CLI.run(["analyze", "--json", "-o", "jingle.beatmap.json", "jingle.wav"], in: folder)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("jingle.wav: only "), "\(result.stderr)")
        #expect(result.stderr.contains("too few to tell a beat from chance onsets"))
        let summary = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let files = try #require(summary["files"] as? [[String: Any]])
        let warnings = try #require(files.first?["warnings"] as? [String])
        #expect(warnings.count == 1)
        #expect(warnings.first?.contains("too few to tell a beat") == true)
        let validation = try CLI.run(["validate", "jingle.beatmap.json"], in: folder)
        #expect(validation.status == 0, "\(validation.stdout)")
    }

    @Test("a stereo song whose second channel is the first inverted is mapped, its warning on stderr and in --json")
    func cancellingChannels() throws {
        let folder = try CLI.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let track = TestTracks.drums(bpm: 120, start: 0.5, duration: 20).track
        try WAVWriter.write(
            channels: [track.samples, track.samples.map { -$0 }], sampleRate: track.sampleRate,
            to: folder.appendingPathComponent("surround.wav"))
        let result = try CLI.run(["analyze", "--json", "-o", "surround.beatmap.json", "surround.wav"], in: folder)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("surround.wav: the two channels cancel each other"), "\(result.stderr)")
        let summary = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let files = try #require(summary["files"] as? [[String: Any]])
        let segments = try #require(files.first?["segments"] as? [[String: Any]])
        #expect(abs((segments.first?["bpm"] as? Double ?? 0) - 120) < 0.05)
        let warnings = try #require(files.first?["warnings"] as? [String])
        #expect(warnings.contains { $0.contains("analysed as their difference") })
    }

    @Test("usage errors exit 2: -o with several files, a missing path, bad tempo limits")
    func usageErrors() throws {
        let folder = try Self.project([100, 120], duration: 5)
        defer { try? FileManager.default.removeItem(at: folder) }
        let several = try CLI.run(["analyze", "-o", "one.beatmap.json", "Audio"], in: folder)
        #expect(several.status == 2)
        #expect(several.stderr.contains("--out-dir"))
        let missing = try CLI.run(["analyze", "Nope/track.wav"], in: folder)
        #expect(missing.status == 2)
        #expect(missing.stderr.contains("Nope/track.wav"))
        let limits = try CLI.run(["analyze", "--min-bpm", "150", "--max-bpm", "160", "Audio"], in: folder)
        #expect(limits.status != 0)
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("BeatMaps").path))
    }

    @Test("--grid free writes aubio's beats as a tempo map that validates")
    func freeGrid() throws {
        let folder = try Self.project([120], duration: 20)
        defer { try? FileManager.default.removeItem(at: folder) }
        let result = try CLI.run(["analyze", "--grid", "free", "Audio"], in: folder)
        #expect(result.status == 0, "\(result.stderr)")
        let map = try BeatMapCodec.read(from: folder.appendingPathComponent("BeatMaps/song-120.beatmap.json"))
        #expect(map.beats.count >= 25)
        #expect(map.tempo?.count == map.beats.count)
        #expect(map.analysis?.objectValue?["method"]?.stringValue == "aubio-tempo")
        let validation = try CLI.run(["validate", "BeatMaps"], in: folder)
        #expect(validation.status == 0, "\(validation.stdout)")
    }
}

@Suite("beatmap analyze on the shipped demo tracks")
struct DemoTrackTests {
    @Test("the demo audio's maps validate strictly and every ground-truth beat is matched within 10 ms")
    func demoTracks() throws {
        let folder = try CLI.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let audio = CLI.packageRoot.appendingPathComponent("Audio")
        let result = try CLI.run(["analyze", "--out-dir", folder.path, audio.path])
        #expect(result.status == 0, "\(result.stderr)")
        let validation = try CLI.run(["validate", "--strict", "--audio", folder.path])
        #expect(validation.status == 0, "\(validation.stdout)")
        let truthFolder = CLI.packageRoot.appendingPathComponent("BeatMaps")
        let names = try FileManager.default.contentsOfDirectory(atPath: truthFolder.path).filter {
            $0.hasSuffix(BeatMap.fileExtension)
        }
        #expect(!names.isEmpty)
        for name in names {
            let truth = try BeatMapCodec.read(from: truthFolder.appendingPathComponent(name))
            let ours = try BeatMapCodec.read(from: folder.appendingPathComponent(name))
            #expect(ours.tempo?.count == truth.tempo?.count, "\(name)")
            // A steady tempo's BPM within 0.02. A tempo followed beat by beat (demo-drift) has a segment
            // a beat, whose BPM moves with every millisecond of its two beats: its beats are held to
            // the truth's below, within 10 ms.
            let stretches = TempoStretch.stretches(of: truth, until: truth.audio.duration)
            let followed = Set(stretches.filter(\.isMoving).flatMap { $0.segments.map(\.time) })
            #expect(
                TempoStretch.stretches(of: ours, until: ours.audio.duration).map(\.isMoving)
                    == stretches.map(\.isMoving), "\(name)")
            for (a, b) in zip(ours.tempo ?? [], truth.tempo ?? []) where !followed.contains(b.time) {
                #expect(abs(a.bpm - b.bpm) < 0.02, "\(name): \(a.bpm) vs \(b.bpm)")
            }
            var missed: [Double] = []
            for beat in truth.beats where !ours.beats.contains(where: { abs($0 - beat) <= 0.010 }) {
                missed.append(beat)
            }
            #expect(missed.isEmpty, "\(name): ground-truth beats with no beat within 10 ms: \(missed)")
            #expect(ours.beats.count == truth.beats.count, "\(name)")
        }
    }
}

@Suite("beatmap bar-features")
struct BarFeaturesCommandTests {
    @Test("prints the map's beats and the meter estimate's four features at each, and writes nothing")
    func printsFeatures() throws {
        let folder = try AnalyzeCommandTests.project([120], duration: 16)
        defer { try? FileManager.default.removeItem(at: folder) }
        let result = try CLI.run(["bar-features", "Audio/song-120.wav"], in: folder)
        #expect(result.status == 0, "\(result.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let beats = try #require(object["beats"] as? [Double])
        #expect(beats.count >= 30)
        #expect(object["method"] as? String == "grid-constant")
        let features = try #require(object["features"] as? [String: [Double]])
        #expect(Set(features.keys) == ["kick", "bass", "harmony1", "harmony2"])
        for (name, values) in features { #expect(values.count == beats.count, "\(name)") }
        #expect(
            !FileManager.default.fileExists(atPath: folder.appendingPathComponent("Audio/song-120.beatmap.json").path))
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("BeatMaps").path))
    }

    @Test("a missing file is named, with exit status 2")
    func missingFile() throws {
        let folder = try CLI.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let result = try CLI.run(["bar-features", "nothing.wav"], in: folder)
        #expect(result.status == 2)
        #expect(result.stderr.contains("nothing.wav"))
        #expect(result.stdout.isEmpty)
    }
}
