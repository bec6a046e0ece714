// SPDX-License-Identifier: GPL-3.0-or-later

public import Foundation

/// osu! beatmaps (`osu file format v14`, osu!standard).
///
/// Export writes one uninherited timing point per segment of the tempo map fitted through the beats
/// (``BeatGridFit``): offset in whole milliseconds (as osu! writes it), beat length in milliseconds with
/// the decimals needed, meter from the map's beats per bar (default 4). Each beat also gets a hit circle
/// (time in whole milliseconds), so the difficulty plays the beat map. Beat lengths are computed between
/// the rounded offsets, so a beat moves by at most 0.5 ms plus the fit tolerance. osu! starts a measure
/// at every uninherited timing point, so they go on the map's downbeats: the first on the downbeat at
/// or before the first beat (a pickup plays before it), and one inside a bar becomes a partial measure
/// to the next downbeat (meter = the beats left, "omit first bar line" set) and a timing point there.
///
/// Import reads the uninherited timing points: with ``ImportedBeats/grid``, the whole beats of each
/// timing section from the first timing point (or the first hit object, if later) to the last hit
/// object (or to the end of the audio); with ``ImportedBeats/notes``, one beat per hit object. Each
/// timing point's meter becomes its segment's beats per bar (its time a downbeat), except a partial
/// measure's ("omit first bar line"), whose beats count on in the bars before it; a timing point that
/// repeats the tempo and meter before it is left out unless it starts a measure where those bars have
/// none. Export likewise gives a bar that starts again at the same tempo a timing point of its own.
public struct OsuFormat: BeatMapConverter {
    /// A converter.
    public init() {}

    public var identifier: String { "osu" }
    public var fileExtension: String { "osu" }
    public var impliedExtensions: [String] { ["osu"] }
    public var storesTempoMap: Bool { true }

    public func export(_ map: BeatMap, options: ExportOptions) throws(InterchangeError) -> [ExportedFile] {
        try FormatSupport.checkExportable(map, for: .osu)
        let fit = BeatGridFit(beats: map.beats, tempo: map.tempo, tolerance: options.fitTolerance)
        let title = Self.clean(FormatSupport.title(map, options))
        let positions = BarPositions.positionsCountingBack(of: map)
        let grid = map.tempo.flatMap { TempoGrid(segments: $0) }
        let lastBeat = map.beats.last ?? 0

        var out = "osu file format v14\n\n[General]\n"
        out += "AudioFilename: \(Self.clean(FormatSupport.audioFileName(map, options)))\n"
        out += "AudioLeadIn: 0\nPreviewTime: -1\nCountdown: 0\nSampleSet: Normal\nStackLeniency: 0.7\nMode: 0\n"
        out += "LetterboxInBreaks: 0\nWidescreenStoryboard: 0\n\n"
        out += "[Editor]\nDistanceSpacing: 1\nBeatDivisor: 4\nGridSize: 32\nTimelineZoom: 1\n\n"
        out += "[Metadata]\nTitle:\(title)\nTitleUnicode:\(title)\nArtist:Unknown\nArtistUnicode:Unknown\n"
        out += "Creator:beatmap\nVersion:Beats\nSource:\nTags:beatmap\nBeatmapID:0\nBeatmapSetID:-1\n\n"
        out += "[Difficulty]\nHPDrainRate:5\nCircleSize:4\nOverallDifficulty:5\nApproachRate:5\n"
        out += "SliderMultiplier:1.4\nSliderTickRate:1\n\n"
        out += "[Events]\n//Background and Video events\n//Break Periods\n\n"
        out += "[TimingPoints]\n"
        // The meter in force at `time`: the segment's, or that of the last segment before it that gives
        // one (4 without).
        func meterInForce(at time: Double) -> Int {
            guard let grid,
                let perBar = grid.segments[...grid.segmentIndex(at: time)].last(where: { $0.beatsPerBar != nil })?
                    .beatsPerBar, perBar > 0, perBar < 100
            else { return 4 }
            return perBar
        }
        var previousLine = ""
        // osu!'s measure in force: the beat number it started on and its beats.
        var measure: (start: Int, meter: Int)?
        var beatIndex = 0
        for (index, knot) in fit.knots.enumerated() {
            let offset = (knot.time * 1000).rounded()
            let beatLength: Double
            if index + 1 < fit.knots.count {
                let next = (fit.knots[index + 1].time * 1000).rounded()
                beatLength = (next - offset) / Double(fit.knots[index + 1].beat - knot.beat)
            } else {
                beatLength = fit.finalBeatLength * 1000
            }
            let meter = meterInForce(at: knot.time)
            let lengthText = FormatSupport.decimal(beatLength, digits: 9)
            // A timing point that only repeats the previous tempo adds nothing.
            let key = lengthText + "," + String(meter)
            let repeats = key == previousLine
            if !repeats {
                previousLine = key
                // osu! starts a measure at every uninherited timing point: put them on downbeats. The
                // first goes to the downbeat before the first beat (a pickup plays before it, on its
                // tempo); a later one inside a bar is a partial measure up to the next downbeat (its
                // first bar line omitted), followed by a timing point there.
                let knotIndex = fit.beatNumbers.firstIndex(of: knot.beat)
                let position = knotIndex.flatMap { positions[$0] }.map { ($0 - 1) % meter + 1 }
                if let position, position != 1, index == 0 {
                    let lead = position - 1
                    out += "\(Int((offset - Double(lead) * beatLength).rounded())),\(lengthText),\(meter),1,0,100,1,0\n"
                    measure = (knot.beat - lead, meter)
                } else if let position, position != 1, let knotIndex {
                    // The beats left in the bar, or up to the map's next downbeat when a bar starts
                    // again sooner (a segment anchored on a downbeat inside the bar).
                    let next = positions[(knotIndex + 1)...].firstIndex { $0 == 1 }.map {
                        fit.beatNumbers[$0] - knot.beat
                    }
                    let rest = min(meter - position + 1, next ?? Int.max)
                    out += "\(Int(offset)),\(lengthText),\(rest),1,0,100,1,8\n"
                    measure = (knot.beat, rest)
                    let downbeat = offset + Double(rest) * beatLength
                    // Up to the next knot, or (after the last) within the map's beats.
                    let limit =
                        index + 1 < fit.knots.count ? fit.knots[index + 1].time * 1000 - 0.5 : lastBeat * 1000 + 0.5
                    if downbeat < limit {
                        out += "\(Int(downbeat.rounded())),\(lengthText),\(meter),1,0,100,1,0\n"
                        measure = (knot.beat + rest, meter)
                    }
                } else {
                    out += "\(Int(offset)),\(lengthText),\(meter),1,0,100,1,0\n"
                    measure = (knot.beat, meter)
                }
            }
            // A bar that starts again inside the knot's span at the same tempo (a downbeat osu!'s measure
            // does not put there, or a new meter) gets a timing point of its own on that beat: a map's
            // segment of the same tempo whose anchor is a downbeat, as `edit --shift-bar` makes and an
            // osu! mapper adds (session 100; until then the measures ran on from the last tempo change).
            let end = index + 1 < fit.knots.count ? fit.knots[index + 1].beat : Int.max
            while beatIndex < fit.beatNumbers.count, fit.beatNumbers[beatIndex] < end {
                defer { beatIndex += 1 }
                let number = fit.beatNumbers[beatIndex]
                // The knot's own beat too when it repeated the tempo before and got no point.
                guard number > knot.beat || repeats, positions[beatIndex] == 1, let running = measure else {
                    continue
                }
                let here = meterInForce(at: map.beats[beatIndex])
                guard
                    ((number - running.start) % running.meter + running.meter) % running.meter != 0
                        || here != running.meter
                else { continue }
                out += "\(Int((map.beats[beatIndex] * 1000).rounded())),\(lengthText),\(here),1,0,100,1,0\n"
                measure = (number, here)
                previousLine = lengthText + "," + String(here)
            }
        }
        out += "\n\n[HitObjects]\n"
        for (index, beat) in map.beats.enumerated() {
            // Circles across the playfield, a new combo on each downbeat (or every four beats).
            let x = 64 + (index % 4) * 128
            let newCombo = index == 0 || (positions[index].map { $0 == 1 } ?? (fit.beatNumbers[index] % 4 == 0))
            out += "\(x),192,\(Int((beat * 1000).rounded())),\(newCombo ? 5 : 1),0,0:0:0:0:\n"
        }
        return [ExportedFile(text: out)]
    }

    /// osu! values are single lines.
    static func clean(_ text: String) -> String {
        String(text.map { $0 == "\n" || $0 == "\r" ? " " : $0 })
    }

    public func importMap(from url: URL, options: ImportOptions) throws(InterchangeError) -> ImportedMap {
        try parse(try FormatSupport.text(of: url), url: url, options: options)
    }

    /// An uninherited timing point.
    struct RedLine {
        var time: Double
        var beatLength: Double
        var meter: Int
        var line: Int
        /// The "omit first bar line" effect: a partial measure, whose beats count on in the bars before.
        var partial = false
    }

    /// Parses `.osu` text read from `url`.
    public func parse(_ text: String, url: URL, options: ImportOptions) throws(InterchangeError) -> ImportedMap {
        let path = url.path
        var section = ""
        var sawHeader = false
        var audio: String?
        var redLines: [RedLine] = []
        var hitTimes: [Double] = []
        for (number, raw) in FormatSupport.numberedLines(text) {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("//") { continue }
            if !sawHeader {
                guard line.hasPrefix("osu file format v") else {
                    throw InterchangeError(
                        path: path, line: number, "not an osu! beatmap: the first line must be 'osu file format vN'")
                }
                sawHeader = true
                continue
            }
            if line.hasPrefix("[") && line.hasSuffix("]") {
                section = String(line.dropFirst().dropLast())
                continue
            }
            switch section {
            case "General":
                let pair = line.split(separator: ":", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
                if pair.count == 2 && pair[0] == "AudioFilename" { audio = pair[1] }
            case "TimingPoints":
                let fields = line.split(separator: ",", omittingEmptySubsequences: false).map {
                    $0.trimmingCharacters(in: .whitespaces)
                }
                guard fields.count >= 2, let time = FormatSupport.number(fields[0]),
                    let length = FormatSupport.number(fields[1])
                else {
                    throw InterchangeError(
                        path: path, line: number,
                        "timing point '\(FormatSupport.shown(line))' does not start with time,beatLength")
                }
                let uninherited = fields.count > 6 ? fields[6] == "1" : length > 0
                guard uninherited else { continue }
                guard length > 0 else {
                    throw InterchangeError(
                        path: path, line: number,
                        "uninherited timing point with beat length \(fields[1]) (must be positive)")
                }
                var meter = 4
                if fields.count > 2 {
                    guard let value = FormatSupport.integer(fields[2]), value > 0 else {
                        throw InterchangeError(
                            path: path, line: number,
                            "timing point meter '\(FormatSupport.shown(fields[2]))' is not a positive whole number"
                        )
                    }
                    meter = value
                }
                let effects = fields.count > 7 ? FormatSupport.integer(fields[7]) ?? 0 : 0
                redLines.append(
                    RedLine(
                        time: time / 1000, beatLength: length / 1000, meter: meter, line: number,
                        partial: effects & 8 != 0))
            case "HitObjects":
                let fields = line.split(separator: ",", omittingEmptySubsequences: false)
                guard fields.count >= 4, let time = FormatSupport.number(fields[2]) else {
                    throw InterchangeError(
                        path: path, line: number,
                        "hit object '\(FormatSupport.shown(line))' does not have x,y,time,type")
                }
                hitTimes.append(time / 1000)
            default:
                continue
            }
        }
        guard sawHeader else { throw InterchangeError(path: path, "empty file: not an osu! beatmap") }
        guard !redLines.isEmpty else {
            throw InterchangeError(path: path, "no uninherited timing points: the beatmap has no tempo")
        }
        redLines.sort { $0.time < $1.time }
        hitTimes.sort()

        var notes: [ImportNote] = []
        let audioPath = (audio?.isEmpty ?? true) ? nil : audio
        var beats: [TimeInterval] = []
        var knownDuration: TimeInterval?
        switch options.beats {
        case .notes:
            guard !hitTimes.isEmpty else {
                throw InterchangeError(path: path, "no hit objects to read beats from", remedy: .importGridBeats)
            }
            for time in hitTimes where beats.last.map({ time > $0 + 1e-9 }) ?? true { beats.append(time) }
        case .grid:
            let end: Double
            if let last = hitTimes.last {
                end = last + 0.002
            } else {
                guard
                    let duration = try FormatSupport.knownDuration(
                        fromFile: nil, audioPath: audioPath, source: url, options: options)
                else {
                    throw InterchangeError(
                        path: path,
                        "the file has no hit objects to say where the beats end, and the audio's duration is unknown",
                        remedy: .giveDuration
                    )
                }
                knownDuration = duration
                end = duration
            }
            for (index, red) in redLines.enumerated() {
                let next = index + 1 < redLines.count ? redLines[index + 1].time : Double.infinity
                // A beat within a tenth of a beat of the next timing point is that point's first beat.
                let limit = min(next - red.beatLength * 0.1, end)
                // Whole beats k ≥ 0 of this section at or after 0 s up to the limit; in the first section,
                // from the first hit object when it lies inside the first bar (a timing point on the
                // downbeat before a pickup).
                var first = max(0, -red.time / red.beatLength)
                if index == 0, let firstHit = hitTimes.first {
                    let pickup = ((firstHit - 0.002 - red.time) / red.beatLength).rounded(.up)
                    if pickup > first, pickup < Double(red.meter) { first = pickup }
                }
                let last = (limit - red.time) / red.beatLength
                guard
                    let range = try FormatSupport.gridBeats(
                        from: first, through: last, counted: beats.count, path: path, line: red.line,
                        what: "the timing point")
                else { continue }
                for k in range { beats.append(red.time + Double(k) * red.beatLength) }
            }
        }
        let duration = try FormatSupport.duration(
            fromFile: knownDuration, audioPath: audioPath, source: url, beats: beats, options: options, notes: &notes)
        var segments: [TempoSegment] = []
        for red in redLines {
            let bpm = 60 / red.beatLength
            let perBar: Int? = red.partial && !segments.isEmpty ? nil : red.meter
            if let last = segments.last, abs(last.bpm - bpm) < 1e-9, last.beatsPerBar == perBar {
                // The same tempo and meter: a repeat, unless it starts a measure where the previous
                // point's measures have none (osu! starts one at every timing point: a mapper moves the
                // bar lines with one).
                let beatsOn = (red.time - last.time) / red.beatLength
                let continues =
                    perBar.map { meter in
                        abs(beatsOn - beatsOn.rounded()) < 0.01
                            && (Int(beatsOn.rounded()) % meter + meter) % meter == 0
                    } ?? true
                if continues { continue }
            }
            var segment = TempoSegment(time: red.time, bpm: bpm, beatsPerBar: perBar)
            // A first timing point before 0 s (the downbeat before a pickup) is anchored a bar later.
            while segment.time < 0, let meter = perBar { segment.time += Double(meter) * red.beatLength }
            segments.append(segment)
        }
        let map = BeatMap(
            audio: AudioReference(path: audioPath, duration: duration), tempo: segments, beats: beats,
            analysis: FormatSupport.analysis(format: .osu, source: url))
        return ImportedMap(map: map, notes: notes)
    }
}

extension InterchangeFormat {
    /// osu! beatmap (`osu file format v14`): uninherited timing points and a circle on each beat.
    public static let osu = InterchangeFormat(OsuFormat())
}
