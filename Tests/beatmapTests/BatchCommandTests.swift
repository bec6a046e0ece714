// SPDX-License-Identifier: GPL-3.0-or-later

import BeatMapKit
import Foundation
import TestSynth
import Testing

/// `beatmap analyze` over song libraries and in shards, as a job runner starts it.
@Suite("beatmap analyze: libraries and shards")
struct BatchCommandTests {
    /// A folder holding `Lib/` with a short drum track at each of `songs` (path → BPM).
    static func library(_ songs: [(String, Double)]) throws -> URL {
        let folder = try CLI.temporaryFolder()
        for (path, bpm) in songs {
            let url = folder.appendingPathComponent("Lib").appendingPathComponent(path)
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            let (track, _) = TestTracks.drums(bpm: bpm, start: 0.3, duration: 10)
            try WAVWriter.write(track, to: url)
        }
        return folder
    }

    /// The records of a JSON-lines summary.
    static func records(_ url: URL) throws -> [[String: Any]] {
        try String(contentsOf: url, encoding: .utf8).split(separator: "\n").map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        }
    }

    @Test("a one-song-per-folder library: maps mirror the tree, stems are named and left out, a batch resumes")
    func library() throws {
        let folder = try Self.library([
            ("Artist A/First Song/song.wav", 100), ("Artist A/First Song/guitar.wav", 100),
            ("Artist B/Second Song/song.wav", 140),
        ])
        defer { try? FileManager.default.removeItem(at: folder) }
        let first = try CLI.run(["analyze", "Lib", "--out-dir", "OUT", "--summary", "run.jsonl"], in: folder)
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stdout.contains("Lib/Artist A/First Song/song.wav → OUT/Artist A/First Song/song.beatmap.json: "))
        #expect(
            first.stdout.contains("Lib/Artist B/Second Song/song.wav → OUT/Artist B/Second Song/song.beatmap.json: "))
        #expect(
            first.stderr.contains(
                "beatmap: note: left out 1 file that looks like a stem of a multitrack song: Lib/Artist A/First Song/guitar.wav (--include GLOB takes them)"
            ))
        let out = folder.appendingPathComponent("OUT")
        let map = try BeatMapCodec.read(from: out.appendingPathComponent("Artist A/First Song/song.beatmap.json"))
        #expect(map.audio.path == "../../../Lib/Artist A/First Song/song.wav")
        #expect(
            !FileManager.default.fileExists(
                atPath: out.appendingPathComponent("Artist A/First Song/guitar.beatmap.json").path))
        // Records come in the order files finish.
        var records = try Self.records(folder.appendingPathComponent("run.jsonl")).sorted {
            ($0["input"] as? String ?? "") < ($1["input"] as? String ?? "")
        }
        try #require(records.count == 2)
        #expect(records.map { $0["status"] as? String } == ["written", "written"])
        #expect(records[0]["input"] as? String == "Lib/Artist A/First Song/song.wav")
        #expect(records[0]["output"] as? String == "OUT/Artist A/First Song/song.beatmap.json")
        #expect(abs((records[1]["bpm"] as? Double ?? 0) - 140) < 0.1)
        #expect(records[1]["segments"] as? Int == 1)

        // Resumed: the maps that exist are skipped, not failed.
        let again = try CLI.run(
            ["analyze", "Lib", "--out-dir", "OUT", "--skip-existing", "--summary", "run.jsonl"], in: folder)
        #expect(again.status == 0, "\(again.stderr)")
        #expect(again.stderr.contains("beatmap: note: skipped 2 files whose maps already exist"))
        records = try Self.records(folder.appendingPathComponent("run.jsonl"))
        #expect(records.map { $0["status"] as? String } == ["written", "written", "skipped", "skipped"])
        #expect(records.last?["reason"] as? String == "map-exists")

        // The stem, asked for by name.
        let stem = try CLI.run(
            ["analyze", "Lib", "--out-dir", "OUT", "--skip-existing", "--include", "guitar.*", "--json"], in: folder)
        #expect(stem.status == 0, "\(stem.stderr)")
        #expect(stem.stdout.contains("\"OUT/Artist A/First Song/guitar.beatmap.json\""))
        #expect(stem.stderr.contains("left out 2 files matching no include pattern"))

        // Without --force or --skip-existing an existing map still fails; the two cannot be combined.
        let refused = try CLI.run(["analyze", "Lib", "--out-dir", "OUT"], in: folder)
        #expect(refused.status == 1)
        let both = try CLI.run(["analyze", "Lib", "--out-dir", "OUT", "--force", "--skip-existing"], in: folder)
        #expect(both.status == 64)

        // Exports of song.* are titled after the folder.
        let export = try CLI.run(
            ["export", "OUT/Artist B/Second Song/song.beatmap.json", "--format", "osu"], in: folder)
        #expect(export.status == 0, "\(export.stderr)")
        #expect(export.stdout.contains("Title:Second Song\n"))
    }

    @Test("only stems in a folder: could not run, saying so")
    func onlyStems() throws {
        let folder = try Self.library([("Song/drums.wav", 120)])
        defer { try? FileManager.default.removeItem(at: folder) }
        let result = try CLI.run(["analyze", "Lib", "--out-dir", "OUT"], in: folder)
        #expect(result.status == 2)
        #expect(result.stderr.contains("beatmap: error: all 1 audio file found was left out"))
    }

    @Test("N shards side by side: disjoint, complete, one summary shared by all")
    func shardsSideBySide() throws {
        let songs = (0..<7).flatMap { index -> [(String, Double)] in
            let bpm = 90 + 10 * Double(index)
            return [
                ("Artist \(index % 3)/Song \(index)/song.wav", bpm),
                ("Artist \(index % 3)/Song \(index)/drums.wav", bpm),
            ]
        }
        let folder = try Self.library(songs)
        defer { try? FileManager.default.removeItem(at: folder) }
        let lib = folder.appendingPathComponent("Lib").path
        let out = folder.appendingPathComponent("OUT").path
        let summary = folder.appendingPathComponent("all.jsonl")
        let count = 3
        let children = try (1...count).map { index in
            try Spawn.start(
                [
                    "analyze", lib, "--out-dir", out, "--shard", "\(index)/\(count)", "--jobs", "1", "--summary",
                    summary.path,
                ], scratch: folder)
        }
        let results = children.map { Spawn.wait($0, timeout: 300) }
        for (index, result) in results.enumerated() {
            #expect(result.status == 0, "shard \(index + 1): \(result.stderr)")
            #expect(result.stderr.contains("beatmap: note: shard \(index + 1)/\(count): "))
        }
        let records = try Self.records(summary)
        let inputs = records.compactMap { $0["input"] as? String }.map { String($0.dropFirst(lib.count + 1)) }
        let expected = (0..<7).map { "Artist \($0 % 3)/Song \($0)/song.wav" }.sorted()
        #expect(inputs.sorted() == expected, "complete: every song once")
        #expect(Set(inputs).count == inputs.count, "disjoint: no song twice")
        #expect(records.allSatisfy { $0["status"] as? String == "written" })
        // Each record names its shard: the documented recipe, SHA-256 of the path below the folder,
        // first 8 bytes as a big-endian number, modulo the count.
        for record in records {
            let input = String((record["input"] as? String ?? "").dropFirst(lib.count + 1))
            let hash = UInt64(SHA256Hasher.hex(of: Array(input.utf8)).prefix(16), radix: 16) ?? 0
            #expect(record["shard"] as? String == "\(hash % UInt64(count) + 1)/\(count)")
        }
        // Each shard printed exactly its own maps, and the stems were named once between them.
        let printed = results.flatMap { $0.stdout.split(separator: "\n") }
        #expect(printed.count == 7)
        let stems = results.map { $0.stderr.components(separatedBy: "drums.wav").count - 1 }.reduce(0, +)
        #expect(stems == 7)
        for path in expected {
            let map = folder.appendingPathComponent("OUT").appendingPathComponent(
                path.replacingOccurrences(of: ".wav", with: ".beatmap.json"))
            #expect(FileManager.default.fileExists(atPath: map.path), "\(path)")
        }
    }

    @Test("--shard auto reads a Kubernetes Indexed Job or a Slurm array; bad shards are refused")
    func shardAuto() throws {
        let folder = try Self.library([("A/song.wav", 120), ("B/song.wav", 120)])
        defer { try? FileManager.default.removeItem(at: folder) }
        let k8s = try CLI.run(
            ["analyze", "Lib", "--out-dir", "OUT", "--shard", "auto", "--shard-count", "4"], in: folder,
            environment: ["JOB_COMPLETION_INDEX": "3"])
        #expect(k8s.status == 0, "\(k8s.stderr)")
        #expect(k8s.stderr.contains("beatmap: note: shard 4/4: "))
        let slurm = try CLI.run(
            ["analyze", "Lib", "--out-dir", "OUT", "--shard", "auto", "--skip-existing"], in: folder,
            environment: ["SLURM_ARRAY_TASK_ID": "5", "SLURM_ARRAY_TASK_MIN": "5", "SLURM_ARRAY_TASK_COUNT": "2"])
        #expect(slurm.status == 0, "\(slurm.stderr)")
        #expect(slurm.stderr.contains("beatmap: note: shard 1/2: "))
        let noCount = try CLI.run(
            ["analyze", "Lib", "--shard", "auto"], in: folder, environment: ["JOB_COMPLETION_INDEX": "0"])
        #expect(noCount.status == 2)
        #expect(noCount.stderr.contains("give it with --shard-count N"))
        let outside = try CLI.run(["analyze", "Lib", "--shard", "auto"], in: folder)
        #expect(outside.status == 2)
        #expect(outside.stderr.contains("no shard index in the environment"))
        #expect(try CLI.run(["analyze", "Lib", "--shard", "5/4"], in: folder).status == 64)
        #expect(try CLI.run(["analyze", "Lib", "--shard", "1/2", "--shard-count", "2"], in: folder).status == 64)
    }
}
