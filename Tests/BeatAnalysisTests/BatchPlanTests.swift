// SPDX-License-Identifier: GPL-3.0-or-later

import BeatAnalysis
import BeatMapKit
import Foundation
import Testing

/// Planning a batch without analysing anything: which files, where their maps go, which shard takes
/// each, and the summary's records.
@Suite("Batch planning, shards and summaries")
struct BatchPlanTests {
    /// A temporary folder holding empty files at `paths` (planning never reads audio).
    static func library(_ paths: [String]) throws -> URL {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("batch-plan-\(UUID().uuidString)")
        for path in paths {
            let url = root.appendingPathComponent(path)
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data().write(to: url)
        }
        return root
    }

    /// A one-song-per-folder library with stems beside each mix.
    static let songs = [
        "Artist A/Song 1/song.ogg", "Artist A/Song 1/guitar.ogg", "Artist A/Song 1/drums_2.ogg",
        "Artist A/Song 2/song.ogg", "Artist A/Song 2/vocals.ogg", "Artist B/Song 1/song.ogg",
        "Artist B/Song 1/Preview.OGG", "Artist B/Song 1/notes.chart",
    ]

    @Test("maps mirror the folder tree, so every song.ogg gets a map of its own")
    func mirroredTree() throws {
        let root = try Self.library(Self.songs)
        defer { try? FileManager.default.removeItem(at: root) }
        let out = URL(fileURLWithPath: "/maps", isDirectory: true)
        let plan = try AnalysisPlan.make(AnalysisPlan.Request(paths: [root.path], folder: out))
        #expect(
            plan.jobs.map(\.map.path) == [
                "/maps/Artist A/Song 1/song.beatmap.json", "/maps/Artist A/Song 2/song.beatmap.json",
                "/maps/Artist B/Song 1/song.beatmap.json",
            ])
        #expect(
            plan.jobs.map(\.key) == [
                "Artist A/Song 1/song.ogg", "Artist A/Song 2/song.ogg", "Artist B/Song 1/song.ogg",
            ])
        #expect(plan.failures.isEmpty)
        #expect(AnalysisBatch.clashes(plan.jobs).isEmpty)
    }

    @Test("stems are left out and named; an include pattern takes them; exclude patterns leave files out")
    func selection() throws {
        let root = try Self.library(Self.songs)
        defer { try? FileManager.default.removeItem(at: root) }
        let out = URL(fileURLWithPath: "/maps", isDirectory: true)
        let plan = try AnalysisPlan.make(AnalysisPlan.Request(paths: [root.path], folder: out))
        #expect(
            plan.excluded.map(\.reason) == [
                .stem(pattern: "drums_*.*"), .stem(pattern: "guitar.*"), .stem(pattern: "vocals.*"),
                .stem(pattern: "preview.*"),
            ])
        let notes = plan.notes
        try #require(notes.count == 1)
        #expect(notes[0].message.hasPrefix("left out 4 files that look like stems of multitrack songs: "))
        #expect(notes[0].message.contains("Artist A/Song 1/guitar.ogg"))
        #expect(notes[0].remedy == .includeSkippedFiles)

        let guitars = try AnalysisPlan.make(
            AnalysisPlan.Request(
                paths: [root.path], folder: out, selection: FileSelection(include: ["guitar.*", "song.*"])))
        #expect(
            guitars.jobs.map(\.key) == [
                "Artist A/Song 1/guitar.ogg", "Artist A/Song 1/song.ogg", "Artist A/Song 2/song.ogg",
                "Artist B/Song 1/song.ogg",
            ])
        #expect(guitars.excluded.allSatisfy { $0.reason == .notIncluded })

        let noArtistB = try AnalysisPlan.make(
            AnalysisPlan.Request(paths: [root.path], folder: out, selection: FileSelection(exclude: ["artist b/*"])))
        #expect(noArtistB.jobs.map(\.key) == ["Artist A/Song 1/song.ogg", "Artist A/Song 2/song.ogg"])
        #expect(noArtistB.excluded.contains { $0.reason == .excluded(pattern: "artist b/*") })

        #expect(FileSelection.matches("*.ogg", "a/b/c.OGG"))
        #expect(!FileSelection.matches("a/*.ogg", "b/c.ogg"))
        #expect(FileSelection.matches("a/*.ogg", "a/b/c.ogg"), "* crosses / in a pattern with a /")
    }

    @Test("a folder of stems only, or of nothing the patterns take, cannot run")
    func everythingExcluded() throws {
        let root = try Self.library(["guitar.ogg", "drums.ogg"])
        defer { try? FileManager.default.removeItem(at: root) }
        #expect(throws: AnalysisBatchError.allExcluded(count: 2)) {
            try AnalysisPlan.make(AnalysisPlan.Request(paths: [root.path], folder: root))
        }
    }

    @Test("files named one by one go straight into the folder and are never filtered")
    func namedFiles() throws {
        let root = try Self.library(["x/guitar.ogg", "y/guitar.ogg"])
        defer { try? FileManager.default.removeItem(at: root) }
        let plan = try AnalysisPlan.make(
            AnalysisPlan.Request(
                paths: [
                    root.appendingPathComponent("x/guitar.ogg").path, root.appendingPathComponent("y/guitar.ogg").path,
                ],
                folder: URL(fileURLWithPath: "/maps", isDirectory: true)))
        #expect(plan.jobs.map(\.map.path) == ["/maps/guitar.beatmap.json", "/maps/guitar.beatmap.json"])
        #expect(Array(plan.failures.keys) == [1], "the second would overwrite the first's map")
        #expect(plan.failures[1]?.remedy == .nameEachOutput)
    }

    @Test("I/N is 1-based; anything else is refused with its reason")
    func parse() throws {
        let shard = try Shard.parse("2/8")
        #expect(shard.index == 1)
        #expect(shard.count == 8)
        #expect(shard.description == "2/8")
        #expect(throws: ShardError.outOfRange(index: 0, count: 4)) { try Shard.parse("0/4") }
        #expect(throws: ShardError.outOfRange(index: 5, count: 4)) { try Shard.parse("5/4") }
        #expect(throws: ShardError.malformed("2of8")) { try Shard.parse("2of8") }
        #expect(throws: ShardError.malformed("1/2/3")) { try Shard.parse("1/2/3") }
    }

    @Test("auto reads a Kubernetes Indexed Job or a Slurm job array, minding the array's first id and step")
    func environment() throws {
        #expect(try Shard.fromEnvironment(["JOB_COMPLETION_INDEX": "0"], count: 4) == Shard(index: 0, count: 4))
        #expect(try Shard.fromEnvironment(["JOB_COMPLETION_INDEX": "3"], count: 4) == Shard(index: 3, count: 4))
        #expect(throws: ShardError.countNeeded) { try Shard.fromEnvironment(["JOB_COMPLETION_INDEX": "1"], count: nil) }
        #expect(ShardError.countNeeded.remedy == .giveShardCount)
        #expect(throws: ShardError.outOfRange(index: 5, count: 4)) {
            try Shard.fromEnvironment(["JOB_COMPLETION_INDEX": "4"], count: 4)
        }
        // sbatch --array=1-8: ids 1…8 are shards 1/8…8/8.
        let slurm = ["SLURM_ARRAY_TASK_ID": "1", "SLURM_ARRAY_TASK_COUNT": "8", "SLURM_ARRAY_TASK_MIN": "1"]
        #expect(try Shard.fromEnvironment(slurm, count: nil) == Shard(index: 0, count: 8))
        // sbatch --array=0-15:5 (ids 0, 5, 10, 15): id 10 is the third of four.
        let stepped = [
            "SLURM_ARRAY_TASK_ID": "10", "SLURM_ARRAY_TASK_COUNT": "4", "SLURM_ARRAY_TASK_MIN": "0",
            "SLURM_ARRAY_TASK_STEP": "5",
        ]
        #expect(try Shard.fromEnvironment(stepped, count: nil) == Shard(index: 2, count: 4))
        #expect(throws: ShardError.countMismatch(given: 3, environment: 8, variable: "SLURM_ARRAY_TASK_COUNT")) {
            try Shard.fromEnvironment(slurm, count: 3)
        }
        #expect(throws: ShardError.badVariable(name: "SLURM_ARRAY_TASK_ID", value: "9")) {
            try Shard.fromEnvironment(slurm.merging(["SLURM_ARRAY_TASK_ID": "9"]) { $1 }, count: nil)
        }
        #expect(throws: ShardError.noEnvironment) { try Shard.fromEnvironment([:], count: 2) }
        #expect(throws: ShardError.badVariable(name: "JOB_COMPLETION_INDEX", value: "x")) {
            try Shard.fromEnvironment(["JOB_COMPLETION_INDEX": "x"], count: 2)
        }
    }

    @Test("shards split by a hash of the path: disjoint, complete, even, and stable when files are added")
    func split() throws {
        let keys = (0..<2_000).map { "Artist \($0 % 37)/Song \($0)/song.ogg" }
        let count = 5
        var owners: [String: Int] = [:]
        for index in 0..<count {
            let shard = try Shard(index: index, count: count)
            for key in keys where shard.contains(key: key) {
                #expect(owners[key] == nil, "\(key) is in two shards")
                owners[key] = index
            }
        }
        #expect(owners.count == keys.count, "every file is in a shard")
        let sizes = (0..<count).map { index in owners.values.filter { $0 == index }.count }
        #expect(sizes.allSatisfy { abs($0 - keys.count / count) < keys.count / count / 5 }, "\(sizes)")
        // More files (inserted anywhere in sorted order) move none of the others.
        let more = keys + (0..<500).map { "Artist 0/Another \($0)/song.ogg" }
        for key in keys { #expect(Shard.bucket(of: key, count: count) == owners[key]) }
        #expect(more.count == 2_500)
        // The documented recipe: int(hashlib.sha256(key.encode()).hexdigest()[:16], 16) % 7.
        #expect(Shard.bucket(of: "Artist/Song/song.ogg", count: 7) == 5)
        #expect(Shard.bucket(of: "a.ogg", count: 7) == 6)
    }

    @Test("a sharded plan keeps its files and its share of the files left out; clashes are found batch-wide")
    func shardedPlan() throws {
        let paths = (0..<40).flatMap {
            ["Artist \($0 % 4)/Song \($0)/song.ogg", "Artist \($0 % 4)/Song \($0)/guitar.ogg"]
        }
        let root = try Self.library(paths + ["Twins/a.ogg", "Twins/a.wav"])
        defer { try? FileManager.default.removeItem(at: root) }
        let out = URL(fileURLWithPath: "/maps", isDirectory: true)
        let whole = try AnalysisPlan.make(AnalysisPlan.Request(paths: [root.path], folder: out))
        var seen: [String] = []
        var excluded = 0
        var clashes = 0
        for index in 0..<3 {
            let plan = try AnalysisPlan.make(
                AnalysisPlan.Request(paths: [root.path], folder: out, shard: try Shard(index: index, count: 3)))
            seen += plan.jobs.map(\.key)
            excluded += plan.excluded.count
            clashes += plan.failures.count
            #expect(plan.otherShards == 82 - plan.jobs.count - plan.excluded.count)
            #expect(plan.notes.last?.message.hasPrefix("shard \(index + 1)/3: \(plan.jobs.count) file") == true)
        }
        #expect(seen.sorted() == whole.jobs.map(\.key).sorted())
        #expect(Set(seen).count == seen.count)
        #expect(excluded == 40)
        #expect(clashes == 1, "Twins/a.wav's map would overwrite Twins/a.ogg's, whichever shard has it")
    }

    @Test("summary records: one JSON line per file, appended whole by many writers at once")
    func summary() async throws {
        let folder = try Self.library([])
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("summary.jsonl")
        let summary = BatchSummary(url: url, shard: try Shard(index: 1, count: 4)) { "E: " + $0.message }
        try summary.prepare()
        #expect(try Data(contentsOf: url).isEmpty)
        let job = AnalysisJob(
            audio: URL(fileURLWithPath: "Lib/A/song.ogg"), map: URL(fileURLWithPath: "Out/A/song.beatmap.json"))
        let failed = summary.record(job, .failed(AnalysisFailure("Lib/A/song.ogg: not audio")))
        #expect(failed["status"] == .string("failed"))
        #expect(failed["shard"] == .string("2/4"))
        #expect(failed["error"] == .string("E: Lib/A/song.ogg: not audio"))
        #expect(failed["input"] == .string("Lib/A/song.ogg"))
        let skipped = summary.record(job, .skipped(.mapExists))
        #expect(skipped["reason"] == .string("map-exists"))

        let writers = 16
        let perWriter = 50
        await withTaskGroup(of: Void.self) { group in
            for writer in 0..<writers {
                group.addTask {
                    for line in 0..<perWriter {
                        let message = "writer \(writer) line \(line) " + String(repeating: "x", count: 3_000)
                        try? summary.append(job, .failed(AnalysisFailure(message)))
                    }
                }
            }
        }
        let lines = try String(contentsOf: url, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == writers * perWriter)
        for line in lines {
            let record = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            #expect(record["status"] as? String == "failed")
        }
    }
}
