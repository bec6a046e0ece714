// SPDX-License-Identifier: GPL-3.0-or-later

public import Foundation

/// Clone Hero / YARG / Moonscraper `.chart` files: the `[Song]` section's `Resolution` (ticks per quarter
/// note) and `Offset`, and the `[SyncTrack]` section's `B` (tempo, BPM × 1000) and `TS` (time signature:
/// numerator and, optionally, the power of two of its denominator) events.
///
/// Import lays the beats of that tempo map as for MIDI (``TickTempoMap``): a beat is the time
/// signature's note value, bars start at each `TS`. `Offset` (seconds) is the time of tick 0. The beats run
/// from tick 0 to the end of the audio (the given duration, else the measured `MusicStream`, else the
/// last note), or, in a chart this converter wrote, between its `beatmap_first_beat` and
/// `beatmap_last_beat` events.
///
/// Export writes what Moonscraper writes — `[Song]`, `[SyncTrack]`, `[Events]` — and an empty
/// `[ExpertSingle]` note track: resolution 192, `Offset = 0`, each beat on a whole quarter note after a
/// lead-in, `B` values rounded to thousandths of a BPM with corrections that keep every beat within
/// 50 µs of the fitted tempo map, `TS` events at the map's downbeats.
public struct ChartFormat: BeatMapConverter {
    /// A converter.
    public init() {}

    public var identifier: String { "chart" }
    public var fileExtension: String { "chart" }
    public var impliedExtensions: [String] { ["chart"] }
    public var storesTempoMap: Bool { true }

    /// Ticks per quarter note of an export (Moonscraper's default).
    public static let resolution = 192
    /// The global event at an export's first beat.
    public static let firstBeatEvent = "beatmap_first_beat"
    /// The global event at an export's last beat.
    public static let lastBeatEvent = "beatmap_last_beat"

    /// A `[Song]` value as a quoted string: quotes and line breaks cannot be escaped in `.chart`.
    static func quoted(_ text: String) -> String {
        "\"" + String(text.map { $0 == "\"" || $0 == "\n" || $0 == "\r" ? " " : $0 }) + "\""
    }

    public func export(_ map: BeatMap, options: ExportOptions) throws(InterchangeError) -> [ExportedFile] {
        try FormatSupport.checkExportable(map, for: .chart)
        let plan = try TickTempoPlan(
            map: map, ticksPerQuarter: Int64(Self.resolution), unit: .milliBPM, tolerance: options.fitTolerance,
            format: .chart)
        var out = "[Song]\n{\n"
        out += "  Name = \(Self.quoted(FormatSupport.title(map, options)))\n"
        out += "  Artist = \"Unknown\"\n  Charter = \"beatmap\"\n"
        out += "  Offset = 0\n  Resolution = \(Self.resolution)\n  Player2 = bass\n  Difficulty = 0\n"
        out += "  PreviewStart = 0\n  PreviewEnd = 0\n  Genre = \"Unknown\"\n  MediaType = \"cd\"\n"
        out += "  MusicStream = \(Self.quoted(FormatSupport.audioFileName(map, options, fallback: "song.ogg")))\n"
        out += "}\n[SyncTrack]\n{\n"
        var lines: [(tick: Int64, order: Int, text: String)] = []
        // A chart always has a time signature at tick 0 (Moonscraper writes `0 = TS 4`; chartparse requires
        // it), and the map's first beat starts a bar: 4/4 when the map does not say.
        var meters = plan.meterEvents
        if meters.first.map({ $0.tick > plan.firstBeatTick }) ?? true {
            meters.insert(.init(tick: plan.firstBeatTick, numerator: 4), at: 0)
        }
        if meters[0].tick > 0 { meters.insert(.init(tick: 0, numerator: 4), at: 0) }
        for meter in meters { lines.append((meter.tick, 0, "TS \(meter.numerator)")) }
        for tempo in plan.tempoEvents { lines.append((tempo.tick, 1, "B \(tempo.value)")) }
        lines.sort { ($0.tick, $0.order) < ($1.tick, $1.order) }
        for line in lines { out += "  \(line.tick) = \(line.text)\n" }
        out += "}\n[Events]\n{\n"
        out += "  \(plan.firstBeatTick) = E \"\(Self.firstBeatEvent)\"\n"
        out += "  \(plan.lastBeatTick) = E \"\(Self.lastBeatEvent)\"\n"
        out += "}\n[ExpertSingle]\n{\n}\n"
        return [ExportedFile(text: out)]
    }

    public func importMap(from url: URL, options: ImportOptions) throws(InterchangeError) -> ImportedMap {
        try parse(try FormatSupport.text(of: url), url: url, options: options)
    }

    /// The largest tick a chart may use: 2⁴⁰ (a tick count beyond it is no song).
    static let maximumTick: Int64 = 1 << 40

    /// Parses `.chart` text read from `url`.
    public func parse(_ text: String, url: URL, options: ImportOptions) throws(InterchangeError) -> ImportedMap {
        let path = url.path
        guard options.beats == .grid else {
            throw InterchangeError(
                path: path, "a chart's beats come from its [SyncTrack] tempo map; one beat per note is not read")
        }
        var section: String?
        var inBody = false
        var sawSong = false
        var sawSync = false
        var resolution: Int?
        var offset = 0.0
        var music: String?
        var tempos: [TickTempoMap.Tempo] = []
        var meters: [TickTempoMap.Meter] = []
        var firstEvent: Int64?
        var lastEvent: Int64?
        var lastNote: Int64?
        for (number, raw) in FormatSupport.numberedLines(text) {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.isEmpty { continue }
            if !inBody {
                if line.hasPrefix("[") && line.hasSuffix("]") {
                    section = String(line.dropFirst().dropLast())
                    if section == "Song" { sawSong = true }
                    if section == "SyncTrack" { sawSync = true }
                } else if line == "{" && section != nil {
                    inBody = true
                } else {
                    throw InterchangeError(
                        path: path, line: number,
                        "'\(FormatSupport.shown(line))' outside a section (a .chart file is [Name] sections with { } bodies)"
                    )
                }
                continue
            }
            if line == "}" {
                inBody = false
                section = nil
                continue
            }
            let pair = line.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard pair.count == 2 else {
                throw InterchangeError(
                    path: path, line: number, "'\(FormatSupport.shown(line))' is not a 'key = value' line")
            }
            if section == "Song" {
                switch pair[0] {
                case "Resolution":
                    guard let value = FormatSupport.integer(pair[1]), value > 0, value <= 1_000_000 else {
                        throw InterchangeError(
                            path: path, line: number,
                            "Resolution '\(FormatSupport.shown(pair[1]))' is not a whole number of ticks from 1 to 1000000"
                        )
                    }
                    resolution = value
                case "Offset":
                    guard let value = FormatSupport.number(pair[1]), abs(value) < 86_400 else {
                        throw InterchangeError(
                            path: path, line: number,
                            "Offset '\(FormatSupport.shown(pair[1]))' is not a number of seconds")
                    }
                    offset = value
                case "MusicStream":
                    var value = pair[1]
                    if value.hasPrefix("\"") && value.hasSuffix("\"") && value.count >= 2 {
                        value = String(value.dropFirst().dropLast())
                    }
                    if !value.isEmpty { music = value }
                default:
                    break
                }
                continue
            }
            let fields = pair[1].split(separator: " ", omittingEmptySubsequences: true)
            guard let tick = Int64(pair[0]), tick >= 0, tick <= Self.maximumTick else {
                throw InterchangeError(
                    path: path, line: number,
                    "'\(FormatSupport.shown(pair[0]))' is not a tick (a whole number from 0 to 2^40)")
            }
            guard let kind = fields.first else {
                throw InterchangeError(path: path, line: number, "an event at tick \(tick) without a type")
            }
            switch section {
            case "SyncTrack":
                switch kind {
                case "B":
                    guard fields.count == 2, let value = Int64(fields[1]), value > 0 else {
                        throw InterchangeError(
                            path: path, line: number,
                            "tempo '\(FormatSupport.shown(pair[1]))' is not 'B' and a positive whole number (BPM × 1000)"
                        )
                    }
                    tempos.append(.init(tick: Double(tick), secondsPerQuarter: 60_000 / Double(value)))
                case "TS":
                    guard fields.count == 2 || fields.count == 3, let numerator = Int(fields[1]), numerator > 0,
                        numerator <= 1000
                    else {
                        throw InterchangeError(
                            path: path, line: number,
                            "time signature '\(FormatSupport.shown(pair[1]))' is not 'TS', a numerator from 1 to 1000 and an optional power of two"
                        )
                    }
                    var denominator = 4
                    if fields.count == 3 {
                        guard let power = Int(fields[2]), power >= 0, power <= 6 else {
                            throw InterchangeError(
                                path: path, line: number,
                                "time signature '\(FormatSupport.shown(pair[1]))': the denominator's power of two must be 0…6"
                            )
                        }
                        denominator = 1 << power
                    }
                    meters.append(.init(tick: Double(tick), numerator: numerator, denominator: denominator))
                default:
                    // Anchors (A) and unknown events do not change the tempo map.
                    continue
                }
            case "Events":
                if kind == "E" {
                    let textValue = pair[1].dropFirst().trimmingCharacters(in: .whitespaces)
                    if textValue == "\"\(Self.firstBeatEvent)\"" { firstEvent = firstEvent ?? tick }
                    if textValue == "\"\(Self.lastBeatEvent)\"" { lastEvent = tick }
                }
            default:
                // Note tracks: only where their last note is.
                if kind == "N" || kind == "S" { lastNote = max(lastNote ?? 0, tick) }
            }
        }
        guard sawSong else { throw InterchangeError(path: path, "no [Song] section: not a .chart file") }
        guard !inBody else { throw InterchangeError(path: path, "the last section is not closed with '}'") }
        guard let resolution else { throw InterchangeError(path: path, "the [Song] section has no Resolution") }
        guard sawSync, !tempos.isEmpty else {
            throw InterchangeError(path: path, "no tempo ('B' event in [SyncTrack]): the chart has no tempo map")
        }
        let tempoMap = TickTempoMap(ticksPerQuarter: resolution, tempos: tempos, meters: meters, startTime: offset)
        var notes: [ImportNote] = []
        let known = try FormatSupport.knownDuration(fromFile: nil, audioPath: music, source: url, options: options)
        var start = 0.0
        var endTick = Double.infinity
        var endTime = known ?? .infinity
        if let firstEvent, let lastEvent, lastEvent >= firstEvent {
            start = Double(firstEvent)
            endTick = Double(lastEvent)
        } else if known == nil {
            guard let lastNote else {
                throw InterchangeError(
                    path: path,
                    "the chart has no notes to say where the beats end, and the audio's duration is unknown",
                    remedy: .giveDuration)
            }
            endTime = tempoMap.time(ofTick: Double(lastNote)) + 0.002
        }
        let beats = try tempoMap.beats(fromTick: start, throughTick: endTick, endTime: endTime, path: path)
            .filter { $0.time >= 0 }
        guard !beats.isEmpty else {
            throw InterchangeError(path: path, "the tempo map has no beat within the audio")
        }
        let times = beats.map { NumberFormatting.roundedToMicroseconds($0.time) }
        let duration = try FormatSupport.duration(
            fromFile: known, audioPath: music, source: url, beats: times, options: options, notes: &notes)
        let map = BeatMap(
            audio: AudioReference(path: music, duration: duration), tempo: tempoMap.segments(of: beats), beats: times,
            analysis: FormatSupport.analysis(format: .chart, source: url))
        return ImportedMap(map: map, notes: notes)
    }
}

extension InterchangeFormat {
    /// Clone Hero / YARG `.chart`: `[Song]`, `[SyncTrack]` tempo and time signatures, `[Events]`.
    public static let chart = InterchangeFormat(ChartFormat())
}
