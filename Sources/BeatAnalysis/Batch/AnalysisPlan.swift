// SPDX-License-Identifier: GPL-3.0-or-later

public import BeatMapKit
public import Foundation

/// Which files a batch analyses and where each map goes, decided before any audio is read.
///
/// Files found in a folder keep their place below it: `Library/Artist/Song/song.ogg` analysed into
/// `Maps` becomes `Maps/Artist/Song/song.beatmap.json`, so the many `song.ogg` of a one-song-per-folder
/// library never collide. Files named one by one go straight into the output folder. A ``FileSelection``
/// leaves out stems and what the patterns say; a ``Shard`` keeps its part of the rest.
public struct AnalysisPlan: Sendable {
    /// What to plan.
    public struct Request: Sendable {
        /// Audio files and folders, as the user gave them.
        public var paths: [String]
        /// The map file for a single audio file, if one was named.
        public var output: URL?
        /// The folder maps go to (mirroring the folders given).
        public var folder: URL
        /// Which files found in folders are taken.
        public var selection: FileSelection
        /// The part of the batch this run does, if it is split.
        public var shard: Shard?

        /// A request for `paths`, writing into `folder` (or `output`, for one file).
        public init(
            paths: [String], output: URL? = nil, folder: URL, selection: FileSelection = FileSelection(),
            shard: Shard? = nil
        ) {
            self.paths = paths
            self.output = output
            self.folder = folder
            self.selection = selection
            self.shard = shard
        }
    }

    /// This run's files, in the order given (folders' contents sorted by path).
    public var jobs: [AnalysisJob]
    /// Files of ``jobs`` that fail before they start (by index), such as a second file whose map would
    /// overwrite the first's.
    public var failures: [Int: AnalysisFailure]
    /// This run's files that the selection left out.
    public var excluded: [ExcludedFile]
    /// The shard, if the batch is split.
    public var shard: Shard?
    /// How many files (taken or left out) belong to other shards.
    public var otherShards: Int

    /// Plans `request`: finds the audio files, leaves out what the selection says, decides each map's
    /// path, marks clashing outputs (over the whole batch, so every shard agrees), and keeps the shard's
    /// part.
    public static func make(_ request: Request) throws(AnalysisBatchError) -> AnalysisPlan {
        let found = try AudioFileFinder.entries(request.paths)
        var candidates: [AnalysisJob] = []
        var excluded: [(file: ExcludedFile, key: String)] = []
        for entry in found {
            if let below = entry.below, let reason = request.selection.exclusion(of: below) {
                excluded.append((ExcludedFile(path: entry.url.relativePath, reason: reason), entry.key))
                continue
            }
            candidates.append(job(for: entry, request: request))
        }
        guard !candidates.isEmpty else { throw .allExcluded(count: excluded.count) }
        if request.output != nil, candidates.count != 1 { throw .outputNeedsOneFile(count: candidates.count) }
        let clashes = AnalysisBatch.clashes(candidates)
        guard let shard = request.shard else {
            return AnalysisPlan(
                jobs: candidates, failures: clashes, excluded: excluded.map(\.file), shard: nil, otherShards: 0)
        }
        var jobs: [AnalysisJob] = []
        var failures: [Int: AnalysisFailure] = [:]
        for (index, job) in candidates.enumerated() where shard.contains(key: job.key) {
            failures[jobs.count] = clashes[index]
            jobs.append(job)
        }
        let mine = excluded.filter { shard.contains(key: $0.key) }.map(\.file)
        let others = candidates.count - jobs.count + excluded.count - mine.count
        return AnalysisPlan(jobs: jobs, failures: failures, excluded: mine, shard: shard, otherShards: others)
    }

    /// The job for one audio file: `output` if named, else its place below the output folder.
    static func job(for entry: AudioFileFinder.Entry, request: Request) -> AnalysisJob {
        if let output = request.output { return AnalysisJob(audio: entry.url, map: output, key: entry.key) }
        let name = entry.url.deletingPathExtension().lastPathComponent + BeatMap.fileExtension
        var folder = request.folder
        if let below = entry.below {
            for component in (below as NSString).deletingLastPathComponent.split(separator: "/") {
                folder = folder.appendingPathComponent(String(component), isDirectory: true)
            }
        }
        return AnalysisJob(audio: entry.url, map: folder.appendingPathComponent(name), key: entry.key)
    }

    /// What a person should know about the plan before it runs: the files left out (with what takes
    /// them), and the shard's share.
    public var notes: [(message: String, remedy: Remedy?)] {
        var notes: [(message: String, remedy: Remedy?)] = ExcludedFile.describe(excluded).map {
            ($0, .includeSkippedFiles)
        }
        if let shard {
            notes.append(
                (
                    "shard \(shard): \(jobs.count) file\(jobs.count == 1 ? "" : "s") of this batch; \(otherShards) belong\(otherShards == 1 ? "s" : "") to the other shards",
                    nil
                ))
        }
        return notes
    }
}
