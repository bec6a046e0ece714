// SPDX-License-Identifier: GPL-3.0-or-later

import BeatMapKit
public import Foundation

/// What a batch did: each file's outcome, as a person reads it (``text``) or a script does (``json``).
public struct AnalysisReport: Sendable {
    /// Something to tell the user about one file, in the files' order.
    public enum Diagnostic: Sendable, Equatable {
        /// A map was written but deserves a second look: `path: warning`.
        case warning(String)
        /// Something worth knowing that is not a problem, such as files skipped because their maps exist.
        case note(String)
        /// A file failed.
        case failure(AnalysisFailure)
    }

    /// The files, in the order given.
    public var jobs: [AnalysisJob]
    /// What became of each (parallel to ``jobs``).
    public var outcomes: [AnalysisOutcome]

    /// A report of `outcomes` (parallel to `jobs`).
    public init(jobs: [AnalysisJob], outcomes: [AnalysisOutcome]) {
        self.jobs = jobs
        self.outcomes = outcomes
    }

    /// How many files failed.
    public var failedCount: Int {
        outcomes.filter {
            if case .failed = $0 { return true }
            return false
        }.count
    }

    /// How many files were skipped.
    public var skippedCount: Int {
        outcomes.filter {
            if case .skipped = $0 { return true }
            return false
        }.count
    }

    /// How many maps were written.
    public var writtenCount: Int { outcomes.count - failedCount - skippedCount }

    /// The warnings and failures, in the files' order, then how many files were skipped.
    public var diagnostics: [Diagnostic] {
        let perFile = zip(jobs, outcomes).flatMap { job, outcome -> [Diagnostic] in
            switch outcome {
            case .written(let result): return result.warnings.map { .warning("\(job.audio.relativePath): \($0)") }
            case .skipped: return []
            case .failed(let failure): return [.failure(failure)]
            }
        }
        let skipped = skippedCount
        guard skipped > 0 else { return perFile }
        return perFile + [
            .note(
                "skipped \(skipped) file\(skipped == 1 ? "" : "s") whose map\(skipped == 1 ? "" : "s") already exist\(skipped == 1 ? "s" : "")"
            )
        ]
    }

    /// One line per written map: `Audio/a.ogg → BeatMaps/a.beatmap.json: 120.00 BPM, 64 beats, confidence 0.98`.
    public var text: String {
        zip(jobs, outcomes).map { job, outcome in
            guard case .written(let result) = outcome else { return "" }
            return "\(job.audio.relativePath) → \(job.map.relativePath): \(Self.describe(result))\n"
        }.joined()
    }

    /// `{"files":[…],"written":N,"failed":M}` (and `"skipped":K` when files were skipped) and a
    /// newline; a failed file's `"error"` is its failure as `describe` words it (by default its message).
    public func json(describing describe: (AnalysisFailure) -> String = { $0.message }) -> String {
        let entries: [JSONValue] = zip(jobs, outcomes).map { job, outcome in
            switch outcome {
            case .written(let result): return Self.json(job, result)
            case .skipped(let reason):
                return .object(
                    JSONObject([
                        ("audio", .string(job.audio.relativePath)), ("map", .string(job.map.relativePath)),
                        ("status", .string("skipped")), ("reason", .string(reason.rawValue)),
                    ]))
            case .failed(let failure):
                return .object(
                    JSONObject([
                        ("audio", .string(job.audio.relativePath)), ("map", .string(job.map.relativePath)),
                        ("status", .string("failed")), ("error", .string(describe(failure))),
                    ]))
            }
        }
        var summary = JSONObject([
            ("files", .array(entries)), ("written", .int(writtenCount)), ("failed", .int(failedCount)),
        ])
        if skippedCount > 0 { summary["skipped"] = .int(skippedCount) }
        return JSONWriter.string(.object(summary), indent: 0) + "\n"
    }

    /// `120.00`.
    static func bpm(_ value: Double) -> String { String(format: "%.2f", value) }

    /// Beat intervals whose median gives the tempo ``followedTempo(_:)`` reports at each point: two
    /// bars of 4/4.
    static let followedTempoIntervals = 8

    /// The slowest and fastest tempo (BPM) of followed `beats` (seconds, increasing), each read as the
    /// median of ``followedTempoIntervals`` consecutive intervals, and the median tempo of all of them.
    /// A single interval says little: where a tracker's beat sits a few milliseconds early or late,
    /// or where a repaired section meets the beats beside it, one interval can be a third shorter or
    /// longer than the music's, and a drifting 170 BPM song was summed up as followed at 88–227 BPM.
    /// With fewer intervals than that, the median of them all. Zeros for fewer than two beats.
    static func followedTempo(_ beats: [Double]) -> (lowest: Double, highest: Double, median: Double) {
        let intervals = zip(beats.dropFirst(), beats).map { $0 - $1 }.filter { $0 > 0 }
        let overall = GridFitter.median(intervals[...])
        guard overall > 0 else { return (0, 0, 0) }
        let width = min(followedTempoIntervals, intervals.count)
        let local = (0...(intervals.count - width)).map { GridFitter.median(intervals[$0..<($0 + width)]) }
        let slowest = local.max() ?? overall
        let fastest = local.min() ?? overall
        return (60 / slowest, 60 / fastest, 60 / overall)
    }

    /// `120.00 BPM, 64 beats, confidence 0.98`.
    public static func describe(_ result: AnalyzedBeatMap) -> String {
        let fit = result.fit
        let tempo: String
        if fit.method == .aubioTempo {
            tempo = "aubio beats (free)"
        } else if fit.method == .ramp, let first = fit.segments.first, let last = fit.segments.last {
            tempo = "tempo ramp \(bpm(first.bpm)) → \(bpm(last.bpm)) BPM"
        } else if fit.method == .follow {
            let (lowest, highest, median) = followedTempo(fit.beats)
            tempo = "beats followed at \(bpm(lowest))–\(bpm(highest)) BPM (median \(bpm(median)))"
        } else if fit.segments.count == 1, let only = fit.segments.first {
            tempo = "\(bpm(only.bpm)) BPM"
        } else {
            tempo = fit.segments.map { bpm($0.bpm) }.joined(separator: " → ") + " BPM (\(fit.segments.count) segments)"
        }
        return "\(tempo), \(fit.beats.count) beats, confidence \(String(format: "%.2f", fit.confidence))"
    }

    /// One written file's entry in ``json(describing:)``.
    static func json(_ job: AnalysisJob, _ result: AnalyzedBeatMap) -> JSONValue {
        let fit = result.fit
        var object = JSONObject([
            ("audio", .string(job.audio.relativePath)), ("map", .string(job.map.relativePath)),
            ("status", .string("written")),
            ("method", .string(fit.method.rawValue)), ("beats", .int(fit.beats.count)),
            ("confidence", .double(fit.confidence)), ("duration", .double(result.analysis.duration)),
            ("warnings", .array(result.warnings.map { .string($0.description) })),
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

extension AnalysisBatch {
    /// The jobs for `paths` (audio files, and folders searched for them): `output` for a single file,
    /// else `folder/<name>.beatmap.json`, below `folder` as below the folder given (every file taken;
    /// ``AnalysisPlan`` selects and shards).
    public static func plan(paths: [String], output: URL?, folder: URL) throws(AnalysisBatchError) -> [AnalysisJob] {
        try AnalysisPlan.make(
            AnalysisPlan.Request(
                paths: paths, output: output, folder: folder, selection: FileSelection(skipStems: false))
        ).jobs
    }

    /// Runs `plan`'s jobs as ``run(_:failures:progress:)`` does and reports what became of them.
    public func report(_ plan: AnalysisPlan, progress: (@Sendable (AnalysisProgress) -> Void)? = nil) async
        -> AnalysisReport
    {
        AnalysisReport(jobs: plan.jobs, outcomes: await run(plan.jobs, failures: plan.failures, progress: progress))
    }

    /// Runs `jobs` as ``run(_:progress:)`` does and reports what became of them.
    public func report(_ jobs: [AnalysisJob], progress: (@Sendable (AnalysisProgress) -> Void)? = nil) async
        -> AnalysisReport
    {
        AnalysisReport(jobs: jobs, outcomes: await run(jobs, progress: progress))
    }
}
