// SPDX-License-Identifier: GPL-3.0-or-later

import Foundation

/// A file format that beat maps are exported to and imported from: games, editors and research tools.
public enum InterchangeFormat: String, Sendable, CaseIterable, Equatable {
    /// Swift source declaring the beat times as `[TimeInterval]` (for a game that compiles its map in).
    case swift
    /// StepMania 5 `.sm` simfile: `#OFFSET`, `#BPMS` and a dance-single chart with a note on each beat.
    case sm
    /// StepMania 5 `.ssc` simfile (version 0.83): as `.sm`, with the chart in `#NOTEDATA` form.
    case ssc
    /// osu! beatmap (`osu file format v14`): uninherited timing points and a circle on each beat.
    case osu
    /// Beat Saber map folder, format v4: `Info.dat` (v4.0.0) and `AudioData.dat` (v4.0.0, BPM regions).
    case beatsaber
    /// Audacity label track (tab-separated `start end label`, exported/imported by Audacity).
    case audacity
    /// Sonic Visualiser time-instants annotation layer as CSV (`time,label`).
    case sonicVisualiser = "sonic-visualiser"
    /// JAMS (JSON Annotated Music Specification) file with a `beat` annotation.
    case jams
    /// One beat time in seconds per line, `.csv` (mir_eval and most research tools read it).
    case csv
    /// One beat time in seconds per line, `.txt` (mir_eval's `load_events` format).
    case txt
    /// Standard MIDI File (`.mid`, `.midi`): a tempo track with tempo and time-signature events.
    case midi
    /// Clone Hero / YARG `.chart`: `[Song]`, `[SyncTrack]` tempo and time signatures, `[Events]`.
    case chart
    /// C# source (Unity, Godot .NET): a static class with a `double[]` of beat times.
    case csharp
    /// GDScript source (Godot 4): a `const` `PackedFloat64Array` of beat times.
    case gdscript

    /// The usual file-name extension (for Beat Saber, the output is a folder).
    public var fileExtension: String {
        switch self {
        case .swift: return "swift"
        case .sm: return "sm"
        case .ssc: return "ssc"
        case .osu: return "osu"
        case .beatsaber: return ""
        case .audacity: return "txt"
        case .sonicVisualiser: return "csv"
        case .jams: return "jams"
        case .csv: return "csv"
        case .txt: return "txt"
        case .midi: return "mid"
        case .chart: return "chart"
        case .csharp: return "cs"
        case .gdscript: return "gd"
        }
    }

    /// Whether the export is a folder of files rather than one file.
    public var writesFolder: Bool { self == .beatsaber }

    /// Whether the export is binary rather than text (MIDI).
    public var isBinary: Bool { self == .midi }

    /// Whether the format stores a tempo map rather than a list of beat times (StepMania, osu!, Beat Saber):
    /// such a format keeps beat times exactly only as grid points of its tempo map.
    public var storesTempoMap: Bool {
        switch self {
        case .sm, .ssc, .osu, .beatsaber, .midi, .chart: return true
        default: return false
        }
    }

    /// The converter for this format.
    public var converter: any BeatMapConverter {
        switch self {
        case .swift: return SwiftSourceFormat()
        case .sm: return StepManiaFormat(dialect: .sm)
        case .ssc: return StepManiaFormat(dialect: .ssc)
        case .osu: return OsuFormat()
        case .beatsaber: return BeatSaberFormat()
        case .audacity: return AudacityLabelFormat()
        case .sonicVisualiser: return SonicVisualiserFormat()
        case .jams: return JAMSFormat()
        case .csv: return PlainTimesFormat(flavour: .csv)
        case .txt: return PlainTimesFormat(flavour: .txt)
        case .midi: return MIDIFileFormat()
        case .chart: return ChartFormat()
        case .csharp: return CSharpSourceFormat()
        case .gdscript: return GDScriptSourceFormat()
        }
    }

    /// The format a file name unambiguously implies (`.sm`, `.ssc`, `.osu`, `.jams`, `.swift`, `.mid`,
    /// `.midi`, `.chart`, `.cs`, `.gd`, `Info.dat`),
    /// or `nil` when the extension is shared (`.csv`, `.txt`) or unknown.
    public static func inferred(fromPath path: String) -> InterchangeFormat? {
        let name = (path as NSString).lastPathComponent.lowercased()
        if name == "info.dat" || name == "audiodata.dat" || name == "bpminfo.dat" { return .beatsaber }
        switch (name as NSString).pathExtension {
        case "swift": return .swift
        case "sm": return .sm
        case "ssc": return .ssc
        case "osu": return .osu
        case "jams": return .jams
        case "mid", "midi": return .midi
        case "chart": return .chart
        case "cs": return .csharp
        case "gd": return .gdscript
        default: return nil
        }
    }
}

/// Converts beat maps to and from one interchange format.
public protocol BeatMapConverter: Sendable {
    /// The format this converter handles.
    var format: InterchangeFormat { get }

    /// The files that represent `map` in this format. Single-file formats return one file whose
    /// ``ExportedFile/name`` is `nil`; folder formats return named files. The same map and options always
    /// give the same bytes.
    func export(_ map: BeatMap, options: ExportOptions) throws(InterchangeError) -> [ExportedFile]

    /// Reads the file (or, for folder formats, the folder or one of its files) at `url` as a beat map.
    func importMap(from url: URL, options: ImportOptions) throws(InterchangeError) -> ImportedMap
}

/// One file of an export.
public struct ExportedFile: Sendable, Equatable {
    /// The file's name inside the output folder, or `nil` for the single file of a one-file format.
    public var name: String?
    /// The file's text (UTF-8); empty for a binary file.
    public var text: String
    /// The bytes of a binary file (MIDI), or `nil` for a text file.
    public var bytes: [UInt8]?

    /// A file named `name` holding `text`.
    public init(name: String? = nil, text: String) {
        self.name = name
        self.text = text
    }

    /// A binary file named `name` holding `bytes`.
    public init(name: String? = nil, bytes: [UInt8]) {
        self.name = name
        self.text = ""
        self.bytes = bytes
    }

    /// What is written to disk: the bytes, or the text as UTF-8.
    public var contents: Data { bytes.map { Data($0) } ?? Data(text.utf8) }
}

/// Settings for exporting.
public struct ExportOptions: Sendable, Equatable {
    /// How the Swift export declares its constants.
    public enum SwiftDeclaration: String, Sendable, Equatable, CaseIterable {
        /// `enum Name { … }`: a new caseless enum.
        case `enum`
        /// `extension Name { … }`: adds the constants to an existing type.
        case `extension`
    }

    /// Swift: the type that holds the constants. Default `GameConstants`.
    public var swiftTypeName = "GameConstants"
    /// Swift: the beat-times property. Default `beatMap`; the BPM and duration constants are named after it
    /// (`beatMapBPM`, `beatMapDuration`).
    public var swiftPropertyName = "beatMap"
    /// Swift: declare a new enum or extend an existing type.
    public var swiftDeclaration = SwiftDeclaration.enum
    /// Swift: access level of the declarations (`public`, `package`, `internal`), or `nil` for none.
    public var swiftAccessLevel: String?
    /// C#: the static class holding the constants. Default `BeatMapData`.
    public var csharpClassName = "BeatMapData"
    /// C#: the namespace (dotted names allowed), or `nil` for none.
    public var csharpNamespace: String?
    /// Title written into game formats (StepMania, osu!, Beat Saber, MIDI's track name, `.chart`); default:
    /// the audio file's name.
    public var title: String?
    /// How far a beat may move when a tempo map is fitted through the beats for StepMania, osu! and Beat
    /// Saber (seconds). Default 0.25 ms: segments merge only where the beats already lie on one tempo.
    public var fitTolerance: TimeInterval = 0.000_25
    /// The audio file's path as the exported file should name it (relative to the exported file), or
    /// `nil` for the last component of the map's `audio.path`.
    public var audioFileName: String?
    /// The map file's name, for comments in the output (never a full path, so output does not depend on
    /// where the map lives).
    public var sourceName: String?

    /// Default settings.
    public init() {}
}

/// Which positions a tempo-map format's import turns into beats.
public enum ImportedBeats: String, Sendable, Equatable, CaseIterable {
    /// Every whole beat of the tempo map, from the first to the last note (or over the whole audio when
    /// the file has no notes). The default for StepMania, osu! and Beat Saber.
    case grid
    /// One beat per note row (StepMania) or hit object (osu!): keeps gaps, needs a chart with notes.
    case notes
}

/// Settings for importing.
public struct ImportOptions: Sendable {
    /// The audio's duration in seconds, when the file does not say and the audio cannot be measured.
    public var duration: TimeInterval?
    /// For StepMania and osu!: beats from the tempo grid or from the notes.
    public var beats = ImportedBeats.grid
    /// For Swift source: the beat-times property to read, or `nil` for the first `[TimeInterval]` array.
    public var swiftPropertyName: String?
    /// Measures the audio file the imported file names (absolute URL), or returns `nil`. The library
    /// does not decode audio itself; the command-line tool passes a libsndfile probe here.
    public var measureAudio: (@Sendable (URL) -> TimeInterval?)?

    /// Default settings.
    public init(
        duration: TimeInterval? = nil, beats: ImportedBeats = .grid,
        measureAudio: (@Sendable (URL) -> TimeInterval?)? = nil
    ) {
        self.duration = duration
        self.beats = beats
        self.measureAudio = measureAudio
    }
}

/// The result of an import: the map and what the user should know about it.
public struct ImportedMap: Sendable, Equatable {
    /// The map. Its `audio.path` is as the imported file names the audio, relative to that file's folder.
    public var map: BeatMap
    /// Facts about the conversion worth telling (an estimated duration, a skipped chart), one per line.
    public var notes: [String]

    /// A result of `map` with `notes`.
    public init(map: BeatMap, notes: [String] = []) {
        self.map = map
        self.notes = notes
    }
}

/// Why a conversion failed: names the file (and line, for text formats) and what is wrong.
public struct InterchangeError: Error, LocalizedError, Sendable, Equatable {
    /// The file the problem is in, if it is about a file.
    public var path: String?
    /// The 1-based line, when known.
    public var line: Int?
    /// What is wrong.
    public var message: String

    /// An error about `path` (at `line`, if known).
    public init(path: String?, line: Int? = nil, _ message: String) {
        self.path = path
        self.line = line
        self.message = message
    }

    public var errorDescription: String? {
        var text = ""
        if let path { text += path + (line.map { ":\($0)" } ?? "") + ": " }
        return text + message
    }
}
