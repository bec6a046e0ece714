// SPDX-License-Identifier: GPL-3.0-or-later

public import Foundation

/// The facts `beatmap info` shows about a map: tempo, beat count and span, intervals, and the
/// validator's verdict.
public struct BeatMapSummary: Sendable, Equatable {
    /// One tempo segment as shown: its BPM over a stretch of the track and the beats in that stretch.
    public struct TempoStretch: Sendable, Equatable {
        /// Beats per minute.
        public var bpm: Double
        /// Where the stretch starts (the segment's anchor; the first starts at 0).
        public var from: TimeInterval
        /// Where it ends (the next segment's anchor, or the end of the audio).
        public var to: TimeInterval
        /// Beats per bar, if the map says.
        public var beatsPerBar: Int?
        /// How many of the map's beats fall in the stretch.
        public var beatCount: Int
    }

    /// Another metric level the analysis read (`analysis.alternatives`): what switching to it gives.
    public struct OtherLevel: Sendable, Equatable {
        /// The ratio to the map's level: `×2`, `½`, `⅔` or `3⁄2`.
        public var ratio: String
        /// Its tempo.
        public var bpm: Double

        /// A level at `ratio` to the map's, at `bpm`.
        public init(ratio: String, bpm: Double) {
            self.ratio = ratio
            self.bpm = bpm
        }
    }

    /// The validator's verdict in numbers.
    public struct Verdict: Sendable, Equatable {
        /// Error findings.
        public var errors: Int
        /// Warning findings.
        public var warnings: Int
        /// Findings per rule id, most frequent first (ties by id).
        public var rules: [(id: String, count: Int)]

        public static func == (lhs: Verdict, rhs: Verdict) -> Bool {
            lhs.errors == rhs.errors && lhs.warnings == rhs.warnings
                && lhs.rules.map(\.id) == rhs.rules.map(\.id) && lhs.rules.map(\.count) == rhs.rules.map(\.count)
        }

        /// `valid`, or `2 errors, 1 warning (off-grid ×2, gap ×1)`.
        public var line: String {
            guard errors + warnings > 0 else { return "valid: no findings" }
            var parts: [String] = []
            if errors > 0 { parts.append("\(errors) error" + (errors == 1 ? "" : "s")) }
            if warnings > 0 { parts.append("\(warnings) warning" + (warnings == 1 ? "" : "s")) }
            let rules = rules.map { "\($0.id) ×\($0.count)" }.joined(separator: ", ")
            return (errors > 0 ? "invalid: " : "valid with warnings: ") + parts.joined(separator: ", ") + " (\(rules))"
        }
    }

    /// The map file as given.
    public var path: String
    /// The audio's path as the map gives it.
    public var audioPath: String?
    /// The audio's duration in seconds.
    public var duration: TimeInterval
    /// The audio's sample rate, if given.
    public var sampleRate: Int?
    /// Whether the tempo was inferred from the beats because the map has no tempo map.
    public var tempoIsInferred: Bool
    /// The tempo stretches (empty when the map has no tempo and none can be inferred).
    public var tempo: [TempoStretch]
    /// Number of beats.
    public var beatCount: Int
    /// The earliest and latest finite beat.
    public var firstBeat: TimeInterval?
    /// The latest finite beat.
    public var lastBeat: TimeInterval?
    /// The share of the track between the first and the last beat (0…1).
    public var coverage: Double?
    /// The shortest interval between consecutive beats (in file order).
    public var minimumInterval: TimeInterval?
    /// The median interval.
    public var medianInterval: TimeInterval?
    /// The longest interval.
    public var maximumInterval: TimeInterval?
    /// The first beat at bar position 1, when the map gives bars.
    public var firstDownbeat: TimeInterval?
    /// The validator's verdict.
    public var verdict: Verdict
    /// The validator's remarks that are not findings (an inferred tempo, audio checks skipped).
    public var notes: [String]
    /// The other metric levels the map's analysis lists (`analysis.alternatives`, best first), which a
    /// metric-level edit switches to; empty for a map that lists none.
    public var otherLevels: [OtherLevel]
    /// The fixes the analysis made because its fitted beats drew a finding of the validator's audio
    /// rules against its own onsets (`analysis.audioFixes`, e.g. "audio-metric-level: metric level ×2");
    /// empty for a map that lists none.
    public var audioFixes: [String]

    /// The summary of `map` read from `path`, with the validator's `report` on it.
    public init(map: BeatMap, path: String, report: FileReport) {
        self.path = path
        audioPath = map.audio.path
        duration = map.audio.duration
        sampleRate = map.audio.sampleRate
        let finite = map.beats.filter(\.isFinite)
        beatCount = map.beats.count
        firstBeat = finite.min()
        lastBeat = finite.max()
        if let firstBeat, let lastBeat, duration > 0 { coverage = min(1, max(0, (lastBeat - firstBeat) / duration)) }
        var intervals: [Double] = []
        if finite.count >= 2 { for index in 1..<finite.count { intervals.append(finite[index] - finite[index - 1]) } }
        intervals.sort()
        minimumInterval = intervals.first
        maximumInterval = intervals.last
        if !intervals.isEmpty { medianInterval = NumPyArithmetic.median(intervals) }

        var segments = (map.tempo ?? []).filter { $0.time.isFinite && $0.bpm.isFinite }.sorted { $0.time < $1.time }
        tempoIsInferred = segments.isEmpty
        if segments.isEmpty, let inferred = TempoGrid.inferTempo(from: finite) { segments = [inferred] }
        let end = map.audio.duration
        tempo = segments.enumerated().map { index, segment in
            let from = index == 0 ? 0 : segment.time
            let to = index + 1 < segments.count ? segments[index + 1].time : max(end, from)
            let count = finite.count {
                $0 >= (index == 0 ? -Double.infinity : from) && (index + 1 < segments.count ? $0 < to : true)
            }
            return TempoStretch(
                bpm: segment.bpm, from: from, to: to, beatsPerBar: segment.beatsPerBar, beatCount: count)
        }

        firstDownbeat = BarPositions.positions(of: map).firstIndex { $0 == 1 }.map { map.beats[$0] }
        otherLevels = (map.analysis?.objectValue?["alternatives"]?.arrayValue ?? []).compactMap { entry in
            guard let object = entry.objectValue, let ratio = object["ratio"]?.stringValue,
                let bpm = object["bpm"]?.doubleValue, bpm.isFinite, bpm > 0
            else { return nil }
            return OtherLevel(ratio: ratio, bpm: bpm)
        }
        audioFixes = (map.analysis?.objectValue?["audioFixes"]?.arrayValue ?? []).compactMap(\.stringValue)
        notes = report.notes
        var byRule: [String: Int] = [:]
        for finding in report.findings { byRule[finding.ruleID, default: 0] += 1 }
        verdict = Verdict(
            errors: report.errorCount, warnings: report.warningCount,
            rules: byRule.map { ($0.key, $0.value) }.sorted { ($1.1, $0.0) < ($0.1, $1.0) })
    }

    // MARK: Text

    /// `1:05.250` (minutes, seconds, milliseconds); `0:32` for whole seconds (``ClockTime/formatted(_:)``).
    public static func clock(_ seconds: Double) -> String { ClockTime.formatted(seconds) }

    /// The summary of the map file at `url` (shown as `path`), with `validator`'s verdict on it.
    public static func load(fileAt url: URL, path: String, validator: Validator) throws(BeatMapError)
        -> BeatMapSummary
    {
        let map = try BeatMapCodec.read(from: url)
        return BeatMapSummary(map: map, path: path, report: validator.validateFile(at: url, path: path))
    }

    /// The summary of the map in `bytes` (shown as `path`; `mapURL` is where it is taken to be, for its
    /// relative audio path), with `validator`'s verdict on it: for a map read from standard input.
    public static func load(bytes: [UInt8], path: String, mapURL: URL, validator: Validator) throws(BeatMapError)
        -> BeatMapSummary
    {
        let map = try BeatMapCodec.map(from: bytes, path: path)
        return BeatMapSummary(
            map: map, path: path, report: validator.validate(bytes: bytes, path: path, mapURL: mapURL))
    }

    /// Seconds from `90`, `90.5`, `1:30` or `1:30.5` (minutes:seconds), or `nil` (``ClockTime/init(parsing:)``).
    public static func parseClock(_ text: String) -> Double? { ClockTime(parsing: text)?.seconds }

    private static func bpm(_ value: Double) -> String { FormatSupport.decimal(value, digits: 3) + " BPM" }
    private static func ms(_ value: Double) -> String { String(format: "%.1f ms", value * 1000) }
    private static func s(_ value: Double) -> String { FormatSupport.decimal(value, digits: 3) + " s" }

    /// The most tempo segments the text lists one by one: 12. A map whose beats were followed one by
    /// one (a segment a beat) gets their range and median instead; the JSON summary lists them all.
    public static let listedSegments = 12

    /// The tempo line of a map with more than ``listedSegments`` segments: how many, the BPM range and
    /// median, and the span they cover.
    private var manySegmentsText: String {
        let bpms = tempo.map(\.bpm)
        let median = NumPyArithmetic.median(bpms)
        let low = bpms.min() ?? median
        let high = bpms.max() ?? median
        let start = tempo.first?.from ?? 0
        let end = tempo.last?.to ?? start
        return
            "\(tempo.count) segments from \(Self.clock(start)) to \(Self.clock(end)): \(FormatSupport.decimal(low, digits: 3))–\(Self.bpm(high)), median \(Self.bpm(median)) (each in the JSON summary)"
    }

    /// The summary as aligned text lines.
    public var text: String {
        var lines: [(String, String)] = []
        var audio = audioPath.map { "\($0), " } ?? ""
        audio += "\(Self.s(duration)) (\(Self.clock(duration)))"
        if let sampleRate { audio += ", \(sampleRate) Hz" }
        lines.append(("audio", audio))
        if tempo.isEmpty {
            lines.append(("tempo", "none (fewer than two beats)"))
        } else if tempoIsInferred, let only = tempo.first {
            lines.append(("tempo", "no tempo map; \(Self.bpm(only.bpm)) inferred from the beats"))
        } else if tempo.count > Self.listedSegments {
            lines.append(("tempo", manySegmentsText))
        } else {
            let header = tempo.count == 1 ? "" : "\(tempo.count) segments: "
            let parts = tempo.map { stretch in
                var part = "\(Self.bpm(stretch.bpm)) from \(Self.clock(stretch.from))"
                if let perBar = stretch.beatsPerBar { part += " (\(perBar) per bar)" }
                if tempo.count > 1 { part += ", \(stretch.beatCount) beat\(stretch.beatCount == 1 ? "" : "s")" }
                return part
            }
            lines.append(("tempo", header + parts.joined(separator: "; ")))
        }
        lines.append(("meter", meterText))
        if !otherLevels.isEmpty {
            let levels = otherLevels.map { "\($0.ratio) \(Self.bpm($0.bpm))" }.joined(separator: ", ")
            lines.append(("levels", levels + " (the analysis's other readings of the beat, best first)"))
        }
        if !audioFixes.isEmpty {
            lines.append(
                ("fixed", audioFixes.joined(separator: "; ") + " (by the analysis's check against its own onsets)"))
        }
        if let firstBeat, let lastBeat {
            lines.append(("beats", "\(beatCount), first \(Self.s(firstBeat)), last \(Self.s(lastBeat))"))
        } else {
            lines.append(("beats", "\(beatCount)"))
        }
        if let coverage, let firstBeat, let lastBeat {
            lines.append(
                (
                    "coverage",
                    "\(Self.clock(firstBeat))–\(Self.clock(lastBeat)) of \(Self.clock(duration)): \(String(format: "%.1f", coverage * 100)) %"
                ))
        }
        if let minimumInterval, let medianInterval, let maximumInterval {
            lines.append(
                (
                    "intervals",
                    "min \(Self.ms(minimumInterval)), median \(Self.ms(medianInterval)), max \(Self.ms(maximumInterval))"
                ))
        }
        lines.append(("verdict", verdict.line))
        for note in notes { lines.append(("note", note)) }
        var out = path + "\n"
        for (key, value) in lines {
            out += "  " + key.padding(toLength: 11, withPad: " ", startingAt: 0) + value + "\n"
        }
        return out
    }

    /// The meter line: the beats per bar (per segment when they differ) and the first downbeat.
    var meterText: String {
        let meters = tempo.enumerated().compactMap { index, stretch in stretch.beatsPerBar.map { (index, $0) } }
        guard !meters.isEmpty, !tempoIsInferred else { return "none given (no beatsPerBar: bars unknown)" }
        let distinct = Set(meters.map(\.1))
        var text: String
        if distinct.count == 1, let only = distinct.first {
            text = "\(only) beats per bar"
        } else {
            text = meters.map { "\($0.1) beats per bar from \(Self.clock(tempo[$0.0].from))" }.joined(separator: ", ")
        }
        if let firstDownbeat { text += ", first downbeat \(Self.s(firstDownbeat))" }
        return text
    }

    // MARK: JSON

    /// The summary as a JSON object (deterministic member order, times rounded to microseconds).
    public var json: JSONValue {
        func optional(_ value: Double?) -> JSONValue { value.map { .double($0) } ?? .null }
        var audio = JSONObject()
        audio["path"] = audioPath.map { .string($0) } ?? .null
        audio["duration"] = .double(duration)
        audio["sampleRate"] = sampleRate.map { .int($0) } ?? .null
        let segments: [JSONValue] = tempo.map { stretch in
            .object(
                JSONObject([
                    ("from", .double(stretch.from)), ("to", .double(stretch.to)), ("bpm", .double(stretch.bpm)),
                    ("beatsPerBar", stretch.beatsPerBar.map { .int($0) } ?? .null), ("beats", .int(stretch.beatCount)),
                ]))
        }
        var rules = JSONObject()
        for rule in verdict.rules { rules[rule.id] = .int(rule.count) }
        return .object(
            JSONObject([
                ("path", .string(path)), ("audio", .object(audio)),
                (
                    "tempo",
                    .object(
                        JSONObject([
                            ("inferred", .bool(tempoIsInferred)), ("segments", .array(segments)),
                            ("firstDownbeat", optional(firstDownbeat)),
                        ]))
                ),
                (
                    "beats",
                    .object(
                        JSONObject([
                            ("count", .int(beatCount)), ("first", optional(firstBeat)), ("last", optional(lastBeat)),
                        ]))
                ),
                ("coverage", coverage.map { .double($0) } ?? .null),
                (
                    "intervals",
                    .object(
                        JSONObject([
                            ("min", optional(minimumInterval)), ("median", optional(medianInterval)),
                            ("max", optional(maximumInterval)),
                        ]))
                ),
                (
                    "verdict",
                    .object(
                        JSONObject([
                            ("valid", .bool(verdict.errors == 0)), ("errors", .int(verdict.errors)),
                            ("warnings", .int(verdict.warnings)),
                            ("rules", .object(rules)), ("summary", .string(verdict.line)),
                        ]))
                ),
                ("notes", .array(notes.map { .string($0) })),
                (
                    "otherLevels",
                    .array(
                        otherLevels.map { level in
                            .object(JSONObject([("ratio", .string(level.ratio)), ("bpm", .double(level.bpm))]))
                        })
                ),
                ("audioFixes", .array(audioFixes.map { .string($0) })),
            ]))
    }
}
