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
            AUDIO is a file or a folder (searched recursively for audio files). Each map is written to
            BeatMaps/<name>.beatmap.json unless -o or --out-dir says otherwise; an existing map is only
            replaced with --force. Files are analysed in parallel (--jobs, default: all cores).
            Exit status: 0 every map written, 1 some file failed (the others are still written),
            2 could not run.
            """
    )

    @Argument(help: "Audio files or folders.")
    var paths: [String]

    @Option(name: .shortAndLong, help: "The map file to write (one audio file only).")
    var output: String?

    @Option(name: .customLong("out-dir"), help: "The folder to write maps to (default: BeatMaps).")
    var outDir: String?

    @Option(
        help:
            "Model: auto (the simplest the music supports: one grid, tempo segments, or followed beats), constant, segments, follow (beats followed one by one, for music without a click), or free (aubio's own beats)."
    )
    var grid: GridMode = .auto

    @Option(help: "Use this tempo instead of estimating one (a constant grid).")
    var bpm: Double?

    @Option(name: .customLong("min-bpm"), help: "The slowest tempo to choose as the beat (default 60).")
    var minBPM: Double = 60

    @Option(name: .customLong("max-bpm"), help: "The fastest tempo to choose as the beat (default 200).")
    var maxBPM: Double = 200

    @Option(
        name: .customLong("beats-per-bar"),
        help: "Bars of N beats instead of an estimated meter (the bar phase is still estimated).")
    var beatsPerBar: Int?

    @Option(help: "Files analysed at once (default: the number of cores).")
    var jobs: Int?

    @Flag(help: "Print a JSON summary on standard output.")
    var json = false

    @Flag(help: "Replace existing maps.")
    var force = false

    @Flag(name: .customLong("no-progress"), help: "No progress bar, even on a terminal.")
    var noProgress = false

    func validate() throws {
        if output != nil && outDir != nil { throw ValidationError("-o and --out-dir cannot be used together") }
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

    func run() async throws {
        let planned = try exitOnError(Exit.couldNotRun) {
            try AnalysisBatch.plan(
                paths: paths, output: output.map { URL(fileURLWithPath: $0) },
                folder: URL(fileURLWithPath: outDir ?? "BeatMaps", isDirectory: true))
        }
        let batch = AnalysisBatch(options: options, jobs: jobs ?? Concurrently.availableCores, overwrite: force)
        let bar = ProgressBar.onTerminal(files: planned.map(\.audio.lastPathComponent), enabled: !noProgress)
        let report = await batch.report(planned) { event in bar?.update(event) }
        bar?.finish()
        for diagnostic in report.diagnostics {
            switch diagnostic {
            case .warning(let warning): Console.warning(warning)
            case .failure(let failure): Console.error(failure)
            }
        }
        Console.out(json ? report.json { FlagHints.describe($0) } : report.text)
        if report.failedCount > 0 { throw Exit.failure }
    }
}
