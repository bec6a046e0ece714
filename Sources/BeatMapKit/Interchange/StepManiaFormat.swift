// SPDX-License-Identifier: GPL-3.0-or-later

public import Foundation

/// StepMania 5 simfiles, `.sm` and `.ssc` (version 0.83).
///
/// Export writes `#OFFSET` and `#BPMS` fitted through the map's beats (see ``BeatGridFit``; no `#STOPS`:
/// every tempo change is a BPM change on a whole beat) and one `dance-single` Beginner chart named
/// `beatmap` with a tap on each beat, so the file plays and its notes mark the beats. When the map gives
/// bars, measure 0 starts on a downbeat: a pickup is a leading partial measure (its first rows empty)
/// and `#OFFSET` is the time of that measure's start. `.ssc` also gets `#TIMESIGNATURES` with the
/// map's beats per bar (when its segments agree on one); `.sm` has no place for it (StepMania counts
/// four beats a measure).
///
/// Import computes times the way StepMania does (`#OFFSET`, `#BPMS`, `#STOPS`, `#DELAYS`; a `.ssc`
/// chart's own timing when it has one). With ``ImportedBeats/grid`` the beats are the whole beats from the
/// first to the last note of the first chart with notes (or from beat 0 to the end of the audio when
/// there are no notes); with ``ImportedBeats/notes``, one beat per note row. A `.ssc` file's
/// `#TIMESIGNATURES` gives the segments their beats per bar (a segment starting on a measure line of
/// its signature gets it; measure lines are downbeats). `#WARPS` and negative BPMs are refused.
public struct StepManiaFormat: BeatMapConverter {
    /// How far before 0 s a computed beat time may fall and still be the beat at 0 s: half the
    /// microsecond a map writes times to.
    static let zeroTolerance = 5e-7

    /// The two file flavours.
    public enum Dialect: Sendable, Equatable {
        /// `.sm`: charts in one `#NOTES` tag of six colon-separated fields.
        case sm
        /// `.ssc`: `#VERSION`, charts in `#NOTEDATA` sections with their own tags.
        case ssc
    }

    /// Which flavour this converter reads and writes.
    public let dialect: Dialect

    /// A converter for `dialect`.
    public init(dialect: Dialect) { self.dialect = dialect }

    public var identifier: String { dialect == .sm ? "sm" : "ssc" }
    public var fileExtension: String { identifier }
    public var impliedExtensions: [String] { [identifier] }
    public var storesTempoMap: Bool { true }

    /// The chart's name in exports.
    static let chartName = "beatmap"

    // MARK: Export

    public func export(_ map: BeatMap, options: ExportOptions) throws(InterchangeError) -> [ExportedFile] {
        try FormatSupport.checkExportable(map, for: format)
        let fit = BeatGridFit(beats: map.beats, tempo: map.tempo, tolerance: options.fitTolerance)
        let title = Self.escape(FormatSupport.title(map, options))
        let music = Self.escape(FormatSupport.audioFileName(map, options))
        // Measure 0 starts on a downbeat: a first beat later in its bar is `lead` beats into it (the
        // rows before it left empty), and beat 0 lies that many beats of the first tempo earlier.
        let lead = (BarPositions.positionsCountingBack(of: map).first ?? nil).map { $0 - 1 } ?? 0
        let firstTime = NumberFormatting.roundedToMicroseconds(fit.knots[0].time)

        // BPMs with error feedback: each segment's BPM is computed from where the rounded BPMs before it
        // really put its first knot, so rounding never accumulates.
        var bpmEntries: [String] = []
        var reached = firstTime
        var previous = ""
        var firstBPM = 0.0
        for (index, knot) in fit.knots.enumerated() {
            let bpm: Double
            if index + 1 < fit.knots.count {
                let span = Double(fit.knots[index + 1].beat - knot.beat)
                bpm = NumberFormatting.roundedToMicroseconds(60 * span / (fit.knots[index + 1].time - reached))
                reached += span * 60 / bpm
            } else {
                bpm = NumberFormatting.roundedToMicroseconds(60 / fit.finalBeatLength)
            }
            if index == 0 { firstBPM = bpm }
            let text = NumberFormatting.decimal(bpm)
            if text == previous { continue }
            previous = text
            let beat = index == 0 ? 0 : knot.beat + lead
            bpmEntries.append(String(format: "%.3f", Double(beat)) + "=" + text)
        }
        let offset = firstTime - Double(lead) * 60 / firstBPM

        var out = ""
        if dialect == .ssc { out += "#VERSION:0.83;\n" }
        out += "#TITLE:\(title);\n#SUBTITLE:;\n#ARTIST:;\n#CREDIT:beatmap;\n#MUSIC:\(music);\n"
        out += "#OFFSET:\(NumberFormatting.decimal(-offset));\n"
        out += "#SAMPLESTART:0;\n#SAMPLELENGTH:10;\n#SELECTABLE:YES;\n"
        out += "#BPMS:" + bpmEntries.joined(separator: ",\n") + ";\n"
        out += "#STOPS:;\n"
        if dialect == .ssc {
            out += "#DELAYS:;\n#WARPS:;\n"
            if let meter = Self.meter(of: map) { out += "#TIMESIGNATURES:0.000=\(meter)=4;\n" }
        }
        out += "\n//---------------dance-single - \(Self.chartName)----------------\n"
        if dialect == .ssc {
            out +=
                "#NOTEDATA:;\n#CHARTNAME:\(Self.chartName);\n#STEPSTYPE:dance-single;\n#DESCRIPTION:\(Self.chartName);\n"
            out +=
                "#CHARTSTYLE:;\n#DIFFICULTY:Beginner;\n#METER:1;\n#RADARVALUES:0,0,0,0,0;\n#CREDIT:beatmap;\n#NOTES:\n"
        } else {
            out += "#NOTES:\n     dance-single:\n     \(Self.chartName):\n     Beginner:\n     1:\n     0,0,0,0,0:\n"
        }
        out += Self.chart(beatNumbers: fit.beatNumbers.map { $0 + lead })
        out += ";\n"
        return [ExportedFile(text: out)]
    }

    /// The map's beats per bar when all its segments that give one agree.
    static func meter(of map: BeatMap) -> Int? {
        let meters = Set((map.tempo ?? []).compactMap(\.beatsPerBar))
        guard meters.count == 1, let meter = meters.first, meter > 0, meter < 100 else { return nil }
        return meter
    }

    /// Four rows per measure (one per beat), a tap on each numbered beat, columns rotating left to right.
    static func chart(beatNumbers: [Int]) -> String {
        let last = beatNumbers.last ?? 0
        let measures = last / 4 + 1
        let patterns = ["1000", "0100", "0010", "0001"]
        var out = ""
        out.reserveCapacity(measures * 22)
        var next = 0
        for measure in 0..<measures {
            if measure > 0 { out += ",\n" }
            for row in 0..<4 {
                let beat = measure * 4 + row
                if next < beatNumbers.count && beatNumbers[next] == beat {
                    out += patterns[next % 4]
                    next += 1
                } else {
                    out += "0000"
                }
                out += "\n"
            }
        }
        return out
    }

    /// MSD values cannot hold `;`, `:`, `#` or `\` unescaped.
    static func escape(_ text: String) -> String {
        var out = ""
        for character in text {
            if character == ";" || character == ":" || character == "#" || character == "\\" { out += "\\" }
            if character == "\n" || character == "\r" { out += " " } else { out.append(character) }
        }
        return out
    }

    // MARK: Import

    public func importMap(from url: URL, options: ImportOptions) throws(InterchangeError) -> ImportedMap {
        try parse(try FormatSupport.text(of: url), url: url, options: options)
    }

    /// Timing tags of the song or of one `.ssc` chart.
    struct Timing {
        var offset: (value: String, line: Int)?
        var bpms: (value: String, line: Int)?
        var stops: (value: String, line: Int)?
        var delays: (value: String, line: Int)?
        var warps: (value: String, line: Int)?
        var timeSignatures: (value: String, line: Int)?

        var isEmpty: Bool { offset == nil && bpms == nil && stops == nil && delays == nil && warps == nil }

        /// `#TIMESIGNATURES` as (beat, beats per bar), sorted; entries that do not read are skipped.
        var signatures: [(beat: Double, perBar: Int)] {
            guard let timeSignatures else { return [] }
            return timeSignatures.value.split(separator: ",").compactMap { entry in
                let parts = entry.split(separator: "=").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
                guard parts.count >= 2, let beat = FormatSupport.number(parts[0]), let perBar = Int(parts[1]),
                    perBar > 0, perBar < 100
                else { return nil }
                return (beat, perBar)
            }.sorted { $0.beat < $1.beat }
        }

        /// The beats per bar of a tempo segment whose first whole beat is at or after `beat`: the time
        /// signature in force, when that beat starts one of its measures (else `nil`: it counts on).
        func beatsPerBar(at beat: Double) -> Int? {
            let whole = beat.rounded(.up)
            guard let signature = signatures.last(where: { $0.beat <= whole + 1e-6 }) else { return nil }
            let offset = (whole - signature.beat).rounded()
            return offset.truncatingRemainder(dividingBy: Double(signature.perBar)) == 0 ? signature.perBar : nil
        }

        mutating func take(_ tag: MSDTag) -> Bool {
            switch tag.name {
            case "OFFSET": offset = (tag.value, tag.line)
            case "BPMS": bpms = (tag.value, tag.line)
            case "STOPS", "FREEZES": stops = (tag.value, tag.line)
            case "DELAYS": delays = (tag.value, tag.line)
            case "WARPS": warps = (tag.value, tag.line)
            case "TIMESIGNATURES": timeSignatures = (tag.value, tag.line)
            default: return false
            }
            return true
        }
    }

    /// A chart: its type, description and notes text.
    struct Chart {
        var stepsType = ""
        var description = ""
        var notes: (value: String, line: Int)?
        var timing = Timing()
    }

    /// Parses simfile `text` read from `url`.
    public func parse(_ text: String, url: URL, options: ImportOptions) throws(InterchangeError) -> ImportedMap {
        let path = url.path
        let tags = MSDParser.parse(text)
        var song = Timing()
        var charts: [Chart] = []
        var music: String?
        var inChart = false
        for tag in tags {
            switch dialect {
            case .sm:
                if tag.name == "NOTES" {
                    let fields = tag.value.split(separator: ":", maxSplits: 5, omittingEmptySubsequences: false)
                    guard fields.count == 6 else {
                        throw InterchangeError(
                            path: path, line: tag.line,
                            "#NOTES needs six fields (type:description:difficulty:meter:radar:notes), found \(fields.count)"
                        )
                    }
                    charts.append(
                        Chart(
                            stepsType: fields[0].trimmingCharacters(in: .whitespacesAndNewlines),
                            description: fields[1].trimmingCharacters(in: .whitespacesAndNewlines),
                            notes: (String(fields[5]), tag.line)))
                    continue
                }
            case .ssc:
                if tag.name == "NOTEDATA" {
                    charts.append(Chart())
                    inChart = true
                    continue
                }
                if inChart, let last = charts.indices.last {
                    switch tag.name {
                    case "STEPSTYPE": charts[last].stepsType = tag.value.trimmingCharacters(in: .whitespacesAndNewlines)
                    case "DESCRIPTION": charts[last].description = tag.value
                    case "NOTES", "NOTES2": charts[last].notes = (tag.value, tag.line)
                    default: _ = charts[last].timing.take(tag)
                    }
                    continue
                }
            }
            if song.take(tag) { continue }
            if tag.name == "MUSIC" { music = tag.value.trimmingCharacters(in: .whitespacesAndNewlines) }
        }

        // The first chart with notes.
        var chosen: (chart: Chart, rows: [Double])?
        for chart in charts {
            guard let notes = chart.notes else { continue }
            let rows = try Self.noteBeats(notes.value, line: notes.line, path: path)
            if !rows.isEmpty {
                chosen = (chart, rows)
                break
            }
        }
        let timing = (chosen.map { $0.chart.timing.isEmpty ? song : $0.chart.timing }) ?? song
        let engine = try Engine(timing, path: path)

        var notes: [ImportNote] = []
        if let chosen, charts.count > 1 {
            notes.append(
                ImportNote(
                    "\(path): beats taken from the \(FormatSupport.shown(chosen.chart.stepsType)) chart '\(FormatSupport.shown(chosen.chart.description))' (the first with notes of \(charts.count))"
                ))
        }
        var beats: [TimeInterval] = []
        let audioPath = (music?.isEmpty ?? true) ? nil : music
        var duration: TimeInterval?
        switch options.beats {
        case .notes:
            guard let chosen else {
                throw InterchangeError(path: path, "no chart has notes to read beats from", remedy: .importGridBeats)
            }
            var previous = -Double.infinity
            for beat in chosen.rows {
                let time = engine.noteTime(ofBeat: beat)
                if time > previous + 1e-9 { beats.append(time) }
                previous = time
            }
        case .grid:
            var first: Double
            var last: Double
            if let chosen, let low = chosen.rows.first, let high = chosen.rows.last {
                first = (low - 1e-6).rounded(.up)
                last = (high + 1e-6).rounded(.down)
            } else {
                guard
                    let end = try FormatSupport.knownDuration(
                        fromFile: nil, audioPath: audioPath, source: url, options: options)
                else {
                    throw InterchangeError(
                        path: path,
                        "the file has no notes to say where the beats end, and the audio's duration is unknown",
                        remedy: .giveDuration
                    )
                }
                duration = end
                first = 0
                last = engine.timeline.beat(atTime: end).rounded(.down)
                // Checked before stepping back over beats that stops push past the end.
                _ = try FormatSupport.gridBeats(
                    from: first, through: last, path: path, line: timing.bpms?.line, what: "#BPMS")
                while last >= first && engine.noteTime(ofBeat: last) > end { last -= 1 }
            }
            first = max(first, 0)
            if let range = try FormatSupport.gridBeats(
                from: first, through: last, path: path, line: timing.bpms?.line, what: "#BPMS")
            {
                for beat in range {
                    let time = engine.noteTime(ofBeat: Double(beat))
                    if time >= -Self.zeroTolerance { beats.append(time) }
                }
            }
        }
        let dropped = beats.count
        // A beat at 0 s computed back from a measure 0 before it (a pickup counted back from the first
        // downbeat) may come out a fraction of a microsecond early: it is the beat at 0 s.
        beats = beats.map { $0 < 0 && $0 >= -Self.zeroTolerance ? 0 : $0 }
        beats.removeAll { $0 < 0 }
        if beats.count < dropped {
            notes.append(ImportNote("\(path): \(dropped - beats.count) beats before 0 s dropped"))
        }
        let mapDuration = try FormatSupport.duration(
            fromFile: duration, audioPath: audioPath, source: url, beats: beats, options: options, notes: &notes)
        var tempo = engine.timeline.segments(timeOfBeat: engine.noteTime(ofBeat:), beatsPerBar: timing.beatsPerBar(at:))
        // Measure 0 may start before 0 s (a pickup at the start of the audio): anchor on a later downbeat.
        if var first = tempo.first, let perBar = first.beatsPerBar, first.time < 0 {
            let bars = (-first.time / (Double(perBar) * first.beatLength)).rounded(.up)
            first.time = NumberFormatting.roundedToMicroseconds(first.time + bars * Double(perBar) * first.beatLength)
            if tempo.count == 1 || first.time < tempo[1].time { tempo[0] = first }
        }
        let map = BeatMap(
            audio: AudioReference(path: audioPath, duration: mapDuration), tempo: tempo, beats: beats,
            analysis: FormatSupport.analysis(format: format, source: url))
        return ImportedMap(map: map, notes: notes)
    }

    /// The beats (4 per measure) of the rows that hold a tap, hold or roll head, or lift, in order.
    static func noteBeats(_ notes: String, line: Int, path: String) throws(InterchangeError) -> [Double] {
        var beats: [Double] = []
        for (measureIndex, measure) in notes.split(separator: ",", omittingEmptySubsequences: false).enumerated() {
            let rows = measure.split(whereSeparator: { $0 == "\n" || $0 == "\r" }).map {
                $0.trimmingCharacters(in: .whitespaces)
            }
            .filter { !$0.isEmpty }
            guard !rows.isEmpty else { continue }
            for (rowIndex, row) in rows.enumerated() where row.contains(where: { "124L".contains($0) }) {
                beats.append(Double(measureIndex) * 4 + 4 * Double(rowIndex) / Double(rows.count))
            }
        }
        return beats
    }

    /// StepMania's timing: beat → time through `#OFFSET`, `#BPMS`, `#STOPS` and `#DELAYS`.
    struct Engine {
        let timeline: TempoTimeline
        let stops: [(beat: Double, seconds: Double)]
        let delays: [(beat: Double, seconds: Double)]
        let stopsBefore: [Double]
        let delaysBefore: [Double]

        init(_ timing: Timing, path: String) throws(InterchangeError) {
            guard let bpms = timing.bpms else {
                throw InterchangeError(path: path, "no #BPMS tag: the file has no tempo")
            }
            var offset = 0.0
            if let tag = timing.offset {
                guard let value = FormatSupport.number(tag.value) else {
                    throw InterchangeError(
                        path: path, line: tag.line,
                        "#OFFSET: '\(FormatSupport.shown(tag.value))' is not a number of seconds")
                }
                offset = value
            }
            if let warps = timing.warps, !warps.value.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
                throw InterchangeError(path: path, line: warps.line, "#WARPS are not supported (they skip beats)")
            }
            let changes = try Self.pairs(bpms, tag: "BPMS", path: path)
            guard !changes.isEmpty else { throw InterchangeError(path: path, line: bpms.line, "#BPMS is empty") }
            if let bad = changes.first(where: { !($0.value > 0) }) {
                throw InterchangeError(
                    path: path, line: bpms.line,
                    "#BPMS: BPM \(NumberFormatting.decimal(bad.value)) at beat \(bad.beat) is not positive (not supported)"
                )
            }
            let sorted = changes.sorted { $0.beat < $1.beat }
            guard
                let timeline = TempoTimeline(changes: sorted.map { ($0.beat, 60 / $0.value) }, beat0: 0, time0: -offset)
            else {
                throw InterchangeError(path: path, line: bpms.line, "#BPMS cannot be used")
            }
            self.timeline = timeline
            stops =
                try timing.stops.map { tag throws(InterchangeError) in try Self.pairs(tag, tag: "STOPS", path: path) }?
                .map { ($0.beat, $0.value) }.sorted { $0.beat < $1.beat } ?? []
            delays =
                try timing.delays.map { tag throws(InterchangeError) in try Self.pairs(tag, tag: "DELAYS", path: path)
                }?
                .map { ($0.beat, $0.value) }.sorted { $0.beat < $1.beat } ?? []
            stopsBefore = Self.prefixSums(stops)
            delaysBefore = Self.prefixSums(delays)
        }

        /// `beat=value` pairs, comma-separated.
        static func pairs(_ tag: (value: String, line: Int), tag name: String, path: String) throws(InterchangeError)
            -> [(
                beat: Double, value: Double
            )]
        {
            var pairs: [(Double, Double)] = []
            for entry in tag.value.split(separator: ",") {
                let trimmed = entry.trimmingCharacters(in: .whitespacesAndNewlines)
                if trimmed.isEmpty { continue }
                let parts = trimmed.split(separator: "=")
                guard parts.count >= 2, let beat = FormatSupport.number(parts[0]),
                    let value = FormatSupport.number(parts[1])
                else {
                    throw InterchangeError(
                        path: path, line: tag.line, "#\(name): '\(FormatSupport.shown(trimmed))' is not beat=value")
                }
                pairs.append((beat, value))
            }
            return pairs
        }

        /// When a note at `beat` is hit: stops at earlier beats and delays at this beat or earlier have passed.
        func noteTime(ofBeat beat: Double) -> Double {
            timeline.time(ofBeat: beat) + Self.total(stops, stopsBefore, upTo: beat - 1e-9, inclusive: false)
                + Self.total(delays, delaysBefore, upTo: beat + 1e-9, inclusive: true)
        }

        /// Running sums: `sums[i]` is the pause of the first `i` entries.
        static func prefixSums(_ pauses: [(beat: Double, seconds: Double)]) -> [Double] {
            var sums = [0.0]
            sums.reserveCapacity(pauses.count + 1)
            for pause in pauses { sums.append(sums[sums.count - 1] + pause.seconds) }
            return sums
        }

        /// The pause of the entries at beats below `limit` (or at it, when `inclusive`), by binary search.
        static func total(
            _ pauses: [(beat: Double, seconds: Double)], _ sums: [Double], upTo limit: Double, inclusive: Bool
        )
            -> Double
        {
            sums[SortedSearch.partitioningIndex(in: pauses) { inclusive ? $0.beat <= limit : $0.beat < limit }]
        }
    }
}

/// A `#NAME:value;` tag of an MSD file (the text format of `.sm` and `.ssc`).
struct MSDTag: Equatable {
    /// The name, uppercased.
    var name: String
    /// The value, comments removed, escapes resolved.
    var value: String
    /// The 1-based line of the `#`.
    var line: Int
}

/// Reads MSD tags as StepMania does: `//` comments run to the end of the line, `\` escapes the next
/// character, and a tag missing its `;` ends where a line starts with `#`.
enum MSDParser {
    static func parse(_ text: String) -> [MSDTag] {
        let scalars = Array(text.unicodeScalars)
        var tags: [MSDTag] = []
        var index = 0
        var line = 1
        func skipComment() {
            while index < scalars.count && scalars[index] != "\n" { index += 1 }
        }
        while index < scalars.count {
            let scalar = scalars[index]
            if scalar == "\n" {
                line += 1
                index += 1
            } else if scalar == "/" && index + 1 < scalars.count && scalars[index + 1] == "/" {
                skipComment()
            } else if scalar == "#" {
                let tagLine = line
                index += 1
                var name = ""
                while index < scalars.count && scalars[index] != ":" && scalars[index] != ";" && scalars[index] != "\n"
                {
                    name.unicodeScalars.append(scalars[index])
                    index += 1
                }
                var value = ""
                if index < scalars.count && scalars[index] == ":" {
                    index += 1
                    var atLineStart = false
                    valueLoop: while index < scalars.count {
                        let current = scalars[index]
                        switch current {
                        case ";":
                            index += 1
                            break valueLoop
                        case "\\":
                            if index + 1 < scalars.count && scalars[index + 1] != "\n" {
                                value.unicodeScalars.append(scalars[index + 1])
                                index += 2
                            } else {
                                index += 1
                            }
                            atLineStart = false
                        case "/" where index + 1 < scalars.count && scalars[index + 1] == "/":
                            skipComment()
                        case "\n":
                            line += 1
                            value.unicodeScalars.append(current)
                            index += 1
                            atLineStart = true
                        case "#" where atLineStart:
                            break valueLoop
                        default:
                            if current != " " && current != "\t" && current != "\r" { atLineStart = false }
                            value.unicodeScalars.append(current)
                            index += 1
                        }
                    }
                } else if index < scalars.count && scalars[index] == ";" {
                    index += 1
                }
                tags.append(
                    MSDTag(name: name.trimmingCharacters(in: .whitespaces).uppercased(), value: value, line: tagLine))
            } else {
                index += 1
            }
        }
        return tags
    }
}

extension InterchangeFormat {
    /// StepMania 5 `.sm` simfile: `#OFFSET`, `#BPMS` and a dance-single chart with a note on each beat.
    public static let sm = InterchangeFormat(StepManiaFormat(dialect: .sm))
    /// StepMania 5 `.ssc` simfile (version 0.83): as `.sm`, with the chart in `#NOTEDATA` form.
    public static let ssc = InterchangeFormat(StepManiaFormat(dialect: .ssc))
}
