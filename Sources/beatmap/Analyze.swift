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
        if bpm != nil && grid == .free { throw ValidationError("--bpm cannot be used with --grid free") }
    }

    func run() async throws {
        var options = BeatMapAnalysisOptions()
        options.grid.mode = grid
        options.grid.forcedBPM = bpm
        options.grid.minimumBPM = minBPM
        options.grid.maximumBPM = maxBPM
        let planned: [AnalysisJob]
        do {
            let audio = try AudioFileFinder.find(paths)
            planned = try AnalysisBatch.plan(
                audio, output: output.map { URL(fileURLWithPath: $0) },
                folder: URL(fileURLWithPath: outDir ?? "BeatMaps", isDirectory: true))
        } catch {
            Console.error(error.localizedDescription)
            throw Exit.couldNotRun
        }
        let batch = AnalysisBatch(
            options: options, jobs: jobs ?? Concurrently.availableCores, overwrite: force)
        let bar =
            !noProgress && isatty(STDERR_FILENO) == 1 ? ProgressBar(files: planned.map(\.audio.lastPathComponent)) : nil
        let outcomes = await batch.run(planned) { event in bar?.update(event) }
        bar?.finish()

        var failed = 0
        var text = ""
        var entries: [JSONValue] = []
        for (job, outcome) in zip(planned, outcomes) {
            switch outcome {
            case .written(let result):
                for warning in result.warnings { Console.warning("\(job.audio.relativePath): \(warning)") }
                text += "\(job.audio.relativePath) → \(job.map.relativePath): \(AnalysisSummary.describe(result))\n"
                entries.append(AnalysisSummary.json(job, result))
            case .failed(let message):
                failed += 1
                Console.error(message)
                entries.append(
                    .object(
                        JSONObject([
                            ("audio", .string(job.audio.relativePath)), ("map", .string(job.map.relativePath)),
                            ("status", .string("failed")),
                            ("error", .string(message)),
                        ])))
            }
        }
        if json {
            let summary = JSONObject([
                ("files", .array(entries)), ("written", .int(planned.count - failed)), ("failed", .int(failed)),
            ])
            Console.out(JSONWriter.string(.object(summary), indent: 0) + "\n")
        } else {
            Console.out(text)
        }
        if failed > 0 { throw Exit.failure }
    }
}

/// How a written map is summarised.
enum AnalysisSummary {
    static func bpm(_ value: Double) -> String { String(format: "%.2f", value) }

    /// `120.00 BPM, 64 beats, confidence 0.98`.
    static func describe(_ result: AnalyzedBeatMap) -> String {
        let fit = result.fit
        let tempo: String
        if fit.method == .aubioTempo {
            tempo = "aubio beats (free)"
        } else if fit.method == .follow {
            let tempi = fit.segments.map(\.bpm)
            tempo = "beats followed at \(bpm(tempi.min() ?? 0))–\(bpm(tempi.max() ?? 0)) BPM"
        } else if fit.segments.count == 1 {
            tempo = "\(bpm(fit.segments[0].bpm)) BPM"
        } else {
            tempo = fit.segments.map { bpm($0.bpm) }.joined(separator: " → ") + " BPM (\(fit.segments.count) segments)"
        }
        return "\(tempo), \(fit.beats.count) beats, confidence \(String(format: "%.2f", fit.confidence))"
    }

    static func json(_ job: AnalysisJob, _ result: AnalyzedBeatMap) -> JSONValue {
        let fit = result.fit
        var object = JSONObject([
            ("audio", .string(job.audio.relativePath)), ("map", .string(job.map.relativePath)),
            ("status", .string("written")),
            ("method", .string(fit.method.rawValue)), ("beats", .int(fit.beats.count)),
            ("confidence", .double(fit.confidence)), ("duration", .double(result.analysis.duration)),
        ])
        if fit.method.isGrid {
            object["segments"] = .array(
                fit.segments.map {
                    .object(
                        JSONObject([
                            ("time", .double($0.firstBeat)), ("bpm", .double(($0.bpm * 10_000).rounded() / 10_000)),
                        ]))
                })
        }
        return .object(object)
    }
}
