// SPDX-License-Identifier: GPL-3.0-or-later

public import BeatMapKit
public import Foundation

/// Why a batch could not start.
public enum AnalysisBatchError: Error, LocalizedError, Sendable, Equatable {
    /// A path does not exist.
    case noSuchPath(String)
    /// A folder holds no audio files.
    case noAudio(String)
    /// One map file was named as the output of more than one audio file.
    case outputNeedsOneFile(count: Int)
    /// Every audio file found was left out by the file selection.
    case allExcluded(count: Int)

    public var errorDescription: String? {
        switch self {
        case .noSuchPath(let path): return "\(path): no such file or directory"
        case .noAudio(let path):
            return
                "\(path): no audio files found (looked for \(AudioFileFinder.extensions.sorted().joined(separator: ", ")))"
        case .outputNeedsOneFile(let count):
            return "one map file was named for \(count) audio files; name a folder for their maps instead"
        case .allExcluded(let count):
            return "all \(count) audio file\(count == 1 ? " found was" : "s found were") left out by the file selection"
        }
    }
}

/// Expands paths to audio files: files as given, folders searched recursively for known extensions.
public enum AudioFileFinder {
    /// File extensions taken from folders (lowercase).
    public static let extensions: Set<String> = [
        "wav", "wave", "aif", "aiff", "aifc", "flac", "ogg", "oga", "opus", "mp3", "caf", "w64", "au", "snd",
    ]

    /// An audio file found: where it is, and its path below the folder given (`nil` for a file given
    /// by name).
    public struct Entry: Sendable, Equatable {
        /// The file (its `relativePath` is the path as the user gave it, or the folder as given joined
        /// with the path below it).
        public var url: URL
        /// Its path below the folder given, for a file found in a folder.
        public var below: String?

        /// What identifies the file wherever the folder is mounted: its path below the folder given, or
        /// the path as given.
        public var key: String { below ?? url.relativePath }
    }

    /// The audio files under `paths`, in the order given and sorted within each folder.
    public static func find(_ paths: [String]) throws(AnalysisBatchError) -> [URL] {
        try entries(paths).map(\.url)
    }

    /// The audio files under `paths` with their paths below the folders given, in the order given and
    /// sorted within each folder.
    public static func entries(_ paths: [String]) throws(AnalysisBatchError) -> [Entry] {
        var files: [Entry] = []
        for path in paths {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
                throw .noSuchPath(path)
            }
            if !isDirectory.boolValue {
                files.append(Entry(url: URL(fileURLWithPath: path)))
                continue
            }
            let root = URL(fileURLWithPath: path, isDirectory: true)
            let found = FileTree.relativePaths(under: root) {
                extensions.contains(($0 as NSString).pathExtension.lowercased())
            }
            guard !found.isEmpty else { throw .noAudio(path) }
            files += found.map { Entry(url: root.appendingPathComponent($0), below: $0) }
        }
        return files
    }
}

/// One file of a batch: its audio and where its map goes.
public struct AnalysisJob: Sendable, Equatable {
    /// The audio file (its `relativePath` is the path as the user gave it).
    public var audio: URL
    /// The map file to write (its `relativePath` is the path as the user gave it).
    public var map: URL
    /// What identifies the file wherever its folder is mounted (its path below the folder given, or as
    /// given): what a ``Shard`` splits by.
    public var key: String

    /// `audio`'s map at `map`, identified by `key` (by default the audio's path as given).
    public init(audio: URL, map: URL, key: String? = nil) {
        self.audio = audio
        self.map = map
        self.key = key ?? audio.relativePath
    }
}

/// Why a file of a batch was skipped.
public enum AnalysisSkip: String, Sendable, Equatable {
    /// Its map already exists, and the batch resumes rather than replaces.
    case mapExists = "map-exists"
}

/// What became of one file.
public enum AnalysisOutcome: Sendable {
    /// The map was written.
    case written(AnalyzedBeatMap)
    /// The file was skipped.
    case skipped(AnalysisSkip)
    /// The file failed.
    case failed(AnalysisFailure)
}

/// Why one file of a batch failed: a message naming the files as the user gave them, and what the user
/// can do about it.
public struct AnalysisFailure: Error, LocalizedError, Sendable, Equatable {
    /// What went wrong, naming the file.
    public var message: String
    /// What the user can do about it, if anything.
    public var remedy: Remedy?

    /// A failure saying `message`.
    public init(_ message: String, remedy: Remedy? = nil) {
        self.message = message
        self.remedy = remedy
    }

    public var errorDescription: String? { message }
}

/// Progress of a batch, reported as it happens (from the tasks doing the work).
public enum AnalysisProgress: Sendable {
    /// File `index` started.
    case started(index: Int)
    /// File `index` is `fraction` decoded.
    case advanced(index: Int, fraction: Double)
    /// File `index` is done.
    case finished(index: Int, succeeded: Bool)
}

/// Analyses many files in parallel, one aubio object set per task, writing each map atomically.
public struct AnalysisBatch: Sendable {
    /// How each file is analysed.
    public var options: BeatMapAnalysisOptions
    /// Files analysed at once.
    public var jobs: Int
    /// Whether existing maps are replaced.
    public var overwrite: Bool
    /// Whether a file whose map exists is skipped (a batch resumed), rather than failed.
    public var skipExisting = false
    /// Where a record of each file is appended as it is done, if anywhere.
    public var summary: BatchSummary?

    /// A batch runner.
    public init(options: BeatMapAnalysisOptions, jobs: Int, overwrite: Bool) {
        self.options = options
        self.jobs = max(1, jobs)
        self.overwrite = overwrite
    }

    /// The jobs for `audio` files: `output` for a single file, else `folder/<name>.beatmap.json`.
    public static func plan(_ audio: [URL], output: URL?, folder: URL) throws(AnalysisBatchError) -> [AnalysisJob] {
        if let output {
            guard audio.count == 1 else { throw .outputNeedsOneFile(count: audio.count) }
            return [AnalysisJob(audio: audio[0], map: output)]
        }
        return audio.map { url in
            let name = url.deletingPathExtension().lastPathComponent
            return AnalysisJob(audio: url, map: folder.appendingPathComponent(name + BeatMap.fileExtension))
        }
    }

    /// The jobs (by index) whose map has the same path as an earlier job's: they fail instead of
    /// overwriting it.
    public static func clashes(_ jobs: [AnalysisJob]) -> [Int: AnalysisFailure] {
        var firstByMap: [String: Int] = [:]
        var duplicates: [Int: AnalysisFailure] = [:]
        for (index, job) in jobs.enumerated() {
            let key = job.map.standardizedFileURL.path
            if let first = firstByMap[key] {
                duplicates[index] = AnalysisFailure(
                    "\(job.audio.relativePath): its map \(job.map.relativePath) would overwrite the map of \(jobs[first].audio.relativePath)",
                    remedy: .nameEachOutput)
            } else {
                firstByMap[key] = index
            }
        }
        return duplicates
    }

    /// Runs `jobs`, reporting progress, and returns the outcomes in the jobs' order. A failing file
    /// never stops the others. `failures` (by index) fail without being analysed; so do jobs whose
    /// map would overwrite an earlier job's.
    public func run(
        _ jobs: [AnalysisJob], failures: [Int: AnalysisFailure] = [:],
        progress: (@Sendable (AnalysisProgress) -> Void)? = nil
    ) async -> [AnalysisOutcome] {
        let width = self.jobs
        let frozenDuplicates = Self.clashes(jobs).merging(failures) { clash, _ in clash }
        // A file's helper threads (decode-ahead, hashing) only pay while cores would otherwise idle:
        // with as many files running as there are cores, they add thread switches and nothing else.
        var options = self.options
        options.helperThreads =
            options.helperThreads
            && Self.helpersPay(filesAtOnce: min(width, jobs.count), cores: Concurrently.availableCores)
        let analyzer = BeatMapAnalyzer(options: options)
        return await Concurrently.map(count: jobs.count, width: width) { index in
            let job = jobs[index]
            let duplicate = frozenDuplicates[index]
            progress?(.started(index: index))
            let outcome: AnalysisOutcome
            if let duplicate {
                outcome = .failed(duplicate)
            } else {
                outcome = self.process(job, with: analyzer) { fraction in
                    progress?(.advanced(index: index, fraction: fraction))
                }
            }
            let recorded = self.record(job, outcome)
            if case .failed = recorded {
                progress?(.finished(index: index, succeeded: false))
            } else {
                progress?(.finished(index: index, succeeded: true))
            }
            return recorded
        }
    }

    /// Whether each file's helper threads are worth starting when `filesAtOnce` files run on `cores`
    /// cores: only if every file can have a second core.
    public static func helpersPay(filesAtOnce: Int, cores: Int) -> Bool {
        filesAtOnce * 2 <= cores
    }

    /// Appends `job`'s record to the summary, if there is one; a record that cannot be written fails the
    /// file (its map may be there, but a merged summary would miss it).
    func record(_ job: AnalysisJob, _ outcome: AnalysisOutcome) -> AnalysisOutcome {
        guard let summary else { return outcome }
        do {
            try summary.append(job, outcome)
            return outcome
        } catch {
            return .failed(AnalysisFailure("\(job.audio.relativePath): \(error.localizedDescription)"))
        }
    }

    /// Analyses one file and writes its map; messages name the files as the user gave them.
    func process(
        _ job: AnalysisJob, with analyzer: BeatMapAnalyzer, progress: @escaping @Sendable (Double) -> Void
    ) -> AnalysisOutcome {
        let outcome = analyseAndWrite(job, with: analyzer, progress: progress)
        guard case .failed(var failure) = outcome else { return outcome }
        failure.message = failure.message.replacingOccurrences(of: job.audio.path, with: job.audio.relativePath)
            .replacingOccurrences(of: job.map.path, with: job.map.relativePath)
        return .failed(failure)
    }

    func analyseAndWrite(
        _ job: AnalysisJob, with analyzer: BeatMapAnalyzer, progress: @escaping @Sendable (Double) -> Void
    ) -> AnalysisOutcome {
        if !overwrite, FileManager.default.fileExists(atPath: job.map.path) {
            if skipExisting { return .skipped(.mapExists) }
            return .failed(AnalysisFailure("\(job.map.path) already exists", remedy: .allowOverwrite))
        }
        let folder = job.map.deletingLastPathComponent()
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        } catch {
            return .failed(AnalysisFailure("\(folder.path): cannot create the folder: \(error.localizedDescription)"))
        }
        do {
            let result = try analyzer.analyze(job.audio, mapURL: job.map, progress: progress)
            try BeatMapCodec.write(result.map, to: job.map, overwrite: overwrite)
            return .written(result)
        } catch let error as AnalysisError {
            return .failed(AnalysisFailure(error.localizedDescription, remedy: error.remedy))
        } catch let error as BeatMapError {
            return .failed(AnalysisFailure(error.localizedDescription, remedy: error.remedy))
        } catch {
            return .failed(AnalysisFailure("\(job.audio.path): \(error.localizedDescription)"))
        }
    }
}
