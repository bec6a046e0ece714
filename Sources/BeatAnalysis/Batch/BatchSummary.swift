// SPDX-License-Identifier: GPL-3.0-or-later

public import BeatMapKit
public import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Why the summary file cannot be written.
public struct BatchSummaryError: Error, LocalizedError, Sendable, Equatable {
    /// The summary file.
    public var path: String
    /// What went wrong.
    public var reason: String

    public var errorDescription: String? { "\(path): cannot write the summary: \(reason)" }
}

/// A batch's JSON-lines summary: one record per file, appended as each file is done.
///
/// Records are independent, so the summaries of many shards (or of a batch resumed after a crash) merge
/// by concatenation: `cat summary-*.jsonl`. Each record is one `write(2)` to a file opened with
/// `O_APPEND`, so shards on one machine may share a file (on a network file system, give each shard its
/// own). A file processed twice (a resumed batch) has two records; the later one is the current one.
public struct BatchSummary: Sendable {
    /// The summary file.
    public var url: URL
    /// The shard this run is, recorded in every record.
    public var shard: Shard?
    /// How a failure is worded in its record (a front end adds what its user can do).
    public var describe: @Sendable (AnalysisFailure) -> String

    /// A summary appended to `url`, naming `shard`, wording failures with `describe`.
    public init(
        url: URL, shard: Shard? = nil, describe: @escaping @Sendable (AnalysisFailure) -> String = { $0.message }
    ) {
        self.url = url
        self.shard = shard
        self.describe = describe
    }

    /// Checks that the summary can be appended to (creating it if need be), before any work is done.
    public func prepare() throws(BatchSummaryError) {
        try append(Data())
    }

    /// Appends `job`'s record.
    public func append(_ job: AnalysisJob, _ outcome: AnalysisOutcome) throws(BatchSummaryError) {
        try append(Data((JSONWriter.compactString(.object(record(job, outcome))) + "\n").utf8))
    }

    /// `job`'s record: `input`, `output`, `status` (`written`, `skipped` or `failed`), `shard` when the
    /// batch is sharded; for a written map `method`, `bpm` (the tempo of the segment with the most
    /// beats, or 60 / the median interval when the beats are not on a grid), `segments` (the map's tempo
    /// segments), `beats`, `confidence`, `duration` and `warnings`; for a skipped file `reason`; for a
    /// failed one `error`.
    public func record(_ job: AnalysisJob, _ outcome: AnalysisOutcome) -> JSONObject {
        var record = JSONObject([
            ("input", .string(job.audio.relativePath)), ("output", .string(job.map.relativePath)),
        ])
        switch outcome {
        case .written(let result):
            record["status"] = .string("written")
            if let shard { record["shard"] = .string(shard.description) }
            record["method"] = .string(result.fit.method.rawValue)
            if let bpm = Self.mainTempo(result) { record["bpm"] = .double((bpm * 100).rounded() / 100) }
            record["segments"] = .int(result.map.tempo?.count ?? 0)
            record["beats"] = .int(result.map.beats.count)
            record["confidence"] = .double((result.fit.confidence * 1000).rounded() / 1000)
            record["duration"] = .double(result.map.audio.duration)
            record["warnings"] = .array(result.warnings.map { .string($0.description) })
        case .skipped(let reason):
            record["status"] = .string("skipped")
            if let shard { record["shard"] = .string(shard.description) }
            record["reason"] = .string(reason.rawValue)
        case .failed(let failure):
            record["status"] = .string("failed")
            if let shard { record["shard"] = .string(shard.description) }
            record["error"] = .string(describe(failure))
        }
        return record
    }

    /// The tempo a person would name for the map.
    static func mainTempo(_ result: AnalyzedBeatMap) -> Double? {
        if result.fit.method.isGrid,
            let longest = result.fit.segments.enumerated().max(by: {
                ($0.element.beats.count, $1.offset) < ($1.element.beats.count, $0.offset)
            })
        {
            return longest.element.bpm
        }
        let beats = result.map.beats
        guard beats.count >= 2 else { return nil }
        let intervals = zip(beats.dropFirst(), beats).map { $0 - $1 }.sorted()
        let median = intervals[intervals.count / 2]
        return median > 0 ? 60 / median : nil
    }

    /// Appends `data` with one `write(2)` (retried only for what a short write left).
    private func append(_ data: Data) throws(BatchSummaryError) {
        let descriptor = open(url.path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw failure(errno) }
        defer { close(descriptor) }
        var problem: Int32?
        data.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count, let base = buffer.baseAddress {
                let written = write(descriptor, base + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    problem = errno
                    return
                }
                offset += written
            }
        }
        if let problem { throw failure(problem) }
    }

    private func failure(_ code: Int32) -> BatchSummaryError {
        BatchSummaryError(path: url.relativePath, reason: String(cString: strerror(code)))
    }
}
