// SPDX-License-Identifier: GPL-3.0-or-later

public import ArgumentParser
import BeatAnalysis
import BeatMapKit
import Foundation

extension GridMode: ExpressibleByArgument {}

/// `beatmap analyze AUDIO…`.
struct Analyze: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Make beat maps from audio: aubio onsets, a whole-song beat tracker and the simplest grid that fits.",
        discussion: """
            AUDIO is a file or a folder (searched recursively for audio files). Each map is written to \
            BeatMaps/<name>.beatmap.json unless -o or --out-dir says otherwise; files found in a folder keep \
            their place below it (Library/Artist/Song/song.ogg → OUT/Artist/Song/song.beatmap.json). Stems \
            of multitrack songs (guitar.*, drums.*, vocals.*, …) are left out unless --include names them. \
            An existing map is only replaced with --force (--skip-existing resumes a batch). Files are \
            analysed in parallel (--jobs, default: all cores).

            --shard I/N or --shard auto (Kubernetes Indexed Jobs, Slurm job arrays) splits a batch across \
            machines by a hash of each file's path; --summary appends one JSON line per file.

            -o - prints the one map on standard output (the summary line goes to standard error). An AUDIO \
            of - is read from standard input into a temporary file first (libsndfile reads only some formats \
            from a pipe); it needs -o, and its map records no audio path.

            \(Exit.summary) 1 means some file failed (the others are still written; skipped files are not \
            failures).
            """
    )

    @Argument(help: "Audio files or folders (- for standard input).")
    var paths: [String]

    @Option(name: .shortAndLong, help: "The map file to write (one audio file only; - for standard output).")
    var output: String?

    @Option(name: .customLong("out-dir"), help: "The folder to write maps to (default: BeatMaps).")
    var outDir: String?

    @Option(
        help:
            "Model: auto (the simplest the music supports: one grid, tempo segments, or followed beats), constant, segments, follow (beats followed one by one, for music without a click), or free (aubio's own beats)."
    )
    var grid: GridMode = .auto

    @Option(parsing: .unconditional, help: "Use this tempo instead of estimating one (a constant grid).")
    var bpm: Double?

    @Option(name: .customLong("min-bpm"), parsing: .unconditional, help: "The slowest tempo to choose as the beat.")
    var minBPM: Double = 60

    @Option(name: .customLong("max-bpm"), parsing: .unconditional, help: "The fastest tempo to choose as the beat.")
    var maxBPM: Double = 200

    @Option(
        name: .customLong("beats-per-bar"),
        help: "Bars of N beats instead of an estimated meter (the bar phase is still estimated).")
    var beatsPerBar: Int?

    @Option(parsing: .unconditional, help: "Files analysed at once (default: the number of cores).")
    var jobs: Int?

    @Flag(help: "Print a JSON summary on standard output.")
    var json = false

    @Flag(help: "Replace existing maps.")
    var force = false

    @Flag(name: .customLong("skip-existing"), help: "Skip files whose map exists: resume an interrupted batch.")
    var skipExisting = false

    @Option(
        name: .customLong("include"),
        help: ArgumentHelp(
            "Take only files in folders matching this glob (repeatable); a pattern with / matches the path below the folder, one without the file name.",
            valueName: "glob"))
    var include: [String] = []

    @Option(
        name: .customLong("exclude"),
        help: ArgumentHelp(
            "Leave out files in folders matching this glob (repeatable). Stems (\(FileSelection.stemPatterns.joined(separator: " "))) are left out unless --include names them.",
            valueName: "glob"))
    var exclude: [String] = []

    @Option(
        help: ArgumentHelp(
            "Do part I of N of the batch (1 ≤ I ≤ N), split by a hash of each file's path; auto reads JOB_COMPLETION_INDEX (Kubernetes, with --shard-count) or SLURM_ARRAY_TASK_ID.",
            valueName: "I/N|auto"))
    var shard: String?

    @Option(name: .customLong("shard-count"), help: "The number of shards, with --shard auto.")
    var shardCount: Int?

    @Option(
        help: ArgumentHelp("Append a JSON line per file to this file (mergeable across shards).", valueName: "file"))
    var summary: String?

    @Flag(name: .customLong("no-progress"), help: "No progress bar, even on a terminal.")
    var noProgress = false

    func validate() throws {
        if output != nil && outDir != nil { throw ValidationError("-o and --out-dir cannot be used together") }
        if force && skipExisting { throw ValidationError("--force and --skip-existing cannot be used together") }
        if shardCount != nil && shard != "auto" { throw ValidationError("--shard-count goes with --shard auto") }
        if let shardCount, shardCount < 1 { throw ValidationError("--shard-count must be at least 1") }
        if let shard, shard != "auto" {
            do { _ = try Shard.parse(shard) } catch { throw ValidationError("--shard: \(error.localizedDescription)") }
        }
        if let jobs, jobs < 1 { throw ValidationError("--jobs must be at least 1") }
        guard minBPM.isFinite, maxBPM.isFinite, minBPM >= TempoLimits.minimumBPM, maxBPM <= TempoLimits.maximumBPM,
            minBPM * 1.5 <= maxBPM
        else {
            throw ValidationError(
                "--min-bpm and --max-bpm must lie within \(Int(TempoLimits.minimumBPM))…\(Int(TempoLimits.maximumBPM)) with the maximum at least 1.5 × the minimum"
            )
        }
        if let bpm, !(bpm.isFinite && bpm >= TempoLimits.minimumBPM && bpm <= TempoLimits.maximumBPM) {
            throw ValidationError(
                "--bpm must be between \(Int(TempoLimits.minimumBPM)) and \(Int(TempoLimits.maximumBPM))")
        }
        if let beatsPerBar, !(1...64).contains(beatsPerBar) {
            throw ValidationError("--beats-per-bar must be from 1 to 64")
        }
        if bpm != nil && grid == .free { throw ValidationError("--bpm cannot be used with --grid free") }
        try OutputName.require(output, option: "-o", suffixes: [".json"], writes: "a beat map (JSON)")
        if StandardStreams.isDash(output) && json {
            throw ValidationError("-o - and --json both write to standard output; choose one")
        }
        if paths.contains(StandardStreams.dash) && (paths.count > 1 || output == nil) {
            throw ValidationError("audio from standard input (-) is one file: give it alone, with -o FILE or -o -")
        }
    }

    /// The analysis settings the flags give.
    var options: BeatMapAnalysisOptions {
        var options = BeatMapAnalysisOptions()
        options.grid.mode = grid
        options.grid.forcedBPM = bpm
        options.grid.minimumBPM = minBPM
        options.grid.maximumBPM = maxBPM
        options.beatsPerBar = beatsPerBar
        return options
    }

    /// The plan the flags ask for: the files, the selection and this run's shard.
    func makePlan() throws -> AnalysisPlan {
        let shard: Shard? =
            switch self.shard {
            case nil: nil
            case "auto"?: try Shard.fromEnvironment(ProcessInfo.processInfo.environment, count: shardCount)
            case let text?: try Shard.parse(text)
            }
        return try AnalysisPlan.make(
            AnalysisPlan.Request(
                paths: paths, output: output.map { URL(fileURLWithPath: $0) },
                folder: URL(fileURLWithPath: outDir ?? "BeatMaps", isDirectory: true),
                selection: FileSelection(include: include, exclude: exclude), shard: shard))
    }

    /// The batch the flags ask for, its summary checked before any work.
    func batch(for plan: AnalysisPlan) throws -> AnalysisBatch {
        var batch = AnalysisBatch(options: options, jobs: jobs ?? Concurrently.availableCores, overwrite: force)
        batch.skipExisting = skipExisting
        batch.summary = summary.map {
            BatchSummary(url: URL(fileURLWithPath: $0), shard: plan.shard) { FlagHints.describe($0) }
        }
        try batch.summary?.prepare()
        return batch
    }

    func run() async throws {
        if paths.contains(StandardStreams.dash) || StandardStreams.isDash(output) { return try analyzeOneStream() }
        let plan = try exitOnError(Exit.couldNotRun) { try makePlan() }
        let batch = try exitOnError(Exit.couldNotRun) { try self.batch(for: plan) }
        for note in plan.notes { Console.note(note.message + FlagHints.hint(note.remedy)) }
        let bar = ProgressBar.onTerminal(files: plan.jobs.map(\.audio.lastPathComponent), enabled: !noProgress)
        let report = await batch.report(plan) { event in bar?.update(event) }
        bar?.finish()
        for diagnostic in report.diagnostics {
            switch diagnostic {
            case .warning(let warning): Console.warning(warning)
            case .note(let note): Console.note(note)
            case .failure(let failure): Console.error(failure)
            }
        }
        Console.out(json ? report.json { FlagHints.describe($0) } : report.text)
        if report.failedCount > 0 { throw Exit.failure }
    }

    /// One file from or to a stream (`-`): the analyzer itself, the map printed or written, the summary on
    /// standard error.
    private func analyzeOneStream() throws {
        let output = output ?? StandardStreams.dash
        let here = URL(fileURLWithPath: FileManager.default.currentDirectoryPath, isDirectory: true)
        let mapURL =
            StandardStreams.isDash(output) ? here.appendingPathComponent("stdout") : URL(fileURLWithPath: output)
        try exitOnError(Exit.couldNotRun) {
            let audio = paths.first ?? StandardStreams.dash
            var result = try BeatMapAnalyzer(options: options).analyze(
                StandardStreams.readableURL(audio), mapURL: mapURL)
            if StandardStreams.isDash(audio) { result.map.audio.path = nil }
            if StandardStreams.isDash(output) {
                Console.out(try BeatMapCodec.encode(result.map))
            } else {
                try BeatMapCodec.write(result.map, to: mapURL, overwrite: force)
            }
            for warning in result.warnings { Console.warning("\(StandardStreams.displayName(audio)): \(warning)") }
            Console.info("\(StandardStreams.displayName(audio)) → \(output): \(AnalysisReport.describe(result))")
        }
    }
}
