// SPDX-License-Identifier: GPL-3.0-or-later

public import Foundation

/// Standard MIDI Files (`.mid`, `.midi`, formats 0 and 1): the tempo map a DAW exports.
///
/// Import reads the resolution, every `set_tempo` and time-signature event (of any track) and lays the
/// beats of that tempo map: a beat is the time signature's note value, bars start at each time signature,
/// and before the first one the beats are quarter notes. The beats run from tick 0 to the end of the audio
/// (the given duration, else the end of the file's longest track), or, in a file this converter wrote,
/// from its first-beat marker to its last-beat marker. Tempo segments follow the tempo and meter changes.
///
/// Export writes a format 1 file with one tempo track at 960 ticks per quarter note: each beat of the map
/// on a whole quarter note, tempo events for the tempo map fitted through the beats (``BeatGridFit``;
/// beats that follow no steady tempo get a tempo event each), rounded to whole microseconds with
/// corrections that keep every beat within 50 µs of the fit, time signatures (`n/4`) at the map's
/// downbeats, markers at the first and last beat, and the End of Track at the audio's end.
public struct MIDIFileFormat: BeatMapConverter {
    /// A converter.
    public init() {}

    public var identifier: String { "midi" }
    public var fileExtension: String { "mid" }
    public var impliedExtensions: [String] { ["mid", "midi"] }
    public var storesTempoMap: Bool { true }
    public var isBinary: Bool { true }

    /// Ticks per quarter note of an export.
    public static let ticksPerQuarter = 960
    /// The marker text at an export's first beat.
    public static let firstBeatMarker = "beatmap first beat"
    /// The marker text at an export's last beat.
    public static let lastBeatMarker = "beatmap last beat"

    public func export(_ map: BeatMap, options: ExportOptions) throws(InterchangeError) -> [ExportedFile] {
        try FormatSupport.checkExportable(map, for: .midi)
        let plan = try TickTempoPlan(
            map: map, ticksPerQuarter: Int64(Self.ticksPerQuarter), unit: .microsecondsPerQuarter,
            tolerance: options.fitTolerance, format: .midi)
        var events: [(tick: Int64, order: Int, type: UInt8, data: [UInt8])] = []
        for meter in plan.meterEvents {
            // n/4, 24 MIDI clocks per click, 8 thirty-seconds per quarter.
            events.append((meter.tick, 0, 0x58, [UInt8(min(meter.numerator, 255)), 2, 24, 8]))
        }
        for tempo in plan.tempoEvents {
            let value = Int(tempo.value)
            events.append(
                (tempo.tick, 1, 0x51, [UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]))
        }
        events.append((plan.firstBeatTick, 2, 0x06, Array(Self.firstBeatMarker.utf8)))
        events.append((plan.lastBeatTick, 3, 0x06, Array(Self.lastBeatMarker.utf8)))
        events.sort { ($0.tick, $0.order) < ($1.tick, $1.order) }
        let bytes = StandardMIDIFile.bytes(
            ticksPerQuarter: Self.ticksPerQuarter, trackName: FormatSupport.title(map, options),
            events: events.map { ($0.tick, $0.type, $0.data) }, endTick: plan.endTick)
        return [ExportedFile(bytes: bytes)]
    }

    public func importMap(from url: URL, options: ImportOptions) throws(InterchangeError) -> ImportedMap {
        try parse(try FormatSupport.bytes(of: url), url: url, options: options)
    }

    /// Reads the bytes of a MIDI file read from `url`.
    public func parse(_ bytes: [UInt8], url: URL, options: ImportOptions) throws(InterchangeError) -> ImportedMap {
        let path = url.path
        guard options.beats == .grid else {
            throw InterchangeError(
                path: path, "a MIDI file's beats come from its tempo map; one beat per note is not read from MIDI")
        }
        let file = try StandardMIDIFile(bytes: bytes, path: path)
        let tempoMap = TickTempoMap(
            ticksPerQuarter: file.ticksPerQuarter,
            tempos: file.tempos.map {
                .init(tick: Double($0.tick), secondsPerQuarter: Double($0.microsecondsPerQuarter) / 1e6)
            },
            meters: file.timeSignatures.map {
                .init(tick: Double($0.tick), numerator: $0.numerator, denominator: $0.denominator)
            })
        var notes: [ImportNote] = []
        if file.readAsSimultaneous {
            notes.append(
                ImportNote(
                    "\(path) says it is a format 0 file (one track) but holds \(file.trackCount); its tracks were read as simultaneous, as in format 1"
                ))
        }
        let firstMarker = file.markers.first { $0.text == Self.firstBeatMarker }
        let lastMarker = file.markers.last { $0.text == Self.lastBeatMarker }
        let fileEnd = tempoMap.time(ofTick: Double(file.endTick))
        let duration: TimeInterval
        if let given = try FormatSupport.knownDuration(fromFile: nil, audioPath: nil, source: url, options: options) {
            duration = given
        } else if fileEnd > 0 {
            duration = NumberFormatting.roundedToMicroseconds(fileEnd)
            if firstMarker == nil {
                notes.append(
                    ImportNote(
                        "\(path) does not give the audio's duration; audio.duration set to \(NumberFormatting.decimal(duration)) s, where the file's longest track ends",
                        remedy: .giveDuration))
            }
        } else {
            throw InterchangeError(
                path: path,
                "the file's tracks end at tick 0, so it does not say how long the song is", remedy: .giveDuration)
        }
        var start = 0.0
        var end = Double.infinity
        if let firstMarker, let lastMarker, lastMarker.tick >= firstMarker.tick {
            start = Double(firstMarker.tick)
            end = Double(lastMarker.tick)
        }
        let beats = try tempoMap.beats(fromTick: start, throughTick: end, endTime: duration, path: path)
        guard !beats.isEmpty else {
            throw InterchangeError(
                path: path, "the tempo map has no beat within the audio's \(NumberFormatting.decimal(duration)) s")
        }
        let times = beats.map { NumberFormatting.roundedToMicroseconds($0.time) }
        let map = BeatMap(
            audio: AudioReference(duration: max(duration, times.last ?? 0)), tempo: tempoMap.segments(of: beats),
            beats: times, analysis: FormatSupport.analysis(format: .midi, source: url))
        return ImportedMap(map: map, notes: notes)
    }
}

extension InterchangeFormat {
    /// Standard MIDI File (`.mid`, `.midi`): a tempo track with tempo and time-signature events.
    public static let midi = InterchangeFormat(MIDIFileFormat())
}
