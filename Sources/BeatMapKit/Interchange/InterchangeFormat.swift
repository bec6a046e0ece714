// SPDX-License-Identifier: GPL-3.0-or-later

public import Foundation

/// A file format that beat maps are exported to and imported from: games, editors and research tools.
///
/// A format is its converter; ``allCases`` is the one list of them. Adding a format is one new file —
/// a ``BeatMapConverter`` and the static member that names it (`extension InterchangeFormat { public
/// static let name = InterchangeFormat(NameFormat()) }`) — plus its line in ``allCases``: the
/// command line's `--format` values, its help and the file-name inference all follow from the list.
public struct InterchangeFormat: Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// Every format, in the order they are listed.
    public static let allCases: [InterchangeFormat] = [
        .swift,
        .sm,
        .ssc,
        .osu,
        .beatsaber,
        .audacity,
        .sonicVisualiser,
        .jams,
        .csv,
        .txt,
        .midi,
        .chart,
        .csharp,
        .gdscript,
    ]

    /// The converter for this format.
    public let converter: any BeatMapConverter

    /// The format `converter` reads and writes.
    public init(_ converter: any BeatMapConverter) { self.converter = converter }

    /// The format named `rawValue` (`sm`, `sonic-visualiser`, …), if there is one.
    public init?(rawValue: String) {
        guard let format = Self.allCases.first(where: { $0.rawValue == rawValue }) else { return nil }
        self = format
    }

    /// The format's name, as `--format` takes it.
    public var rawValue: String { converter.identifier }

    public var description: String { rawValue }

    /// The usual file-name extension (for a format that writes a folder, none).
    public var fileExtension: String { converter.fileExtension }

    /// Whether the export is a folder of files rather than one file.
    public var writesFolder: Bool { converter.writesFolder }

    /// Whether the export is binary rather than text (MIDI).
    public var isBinary: Bool { converter.isBinary }

    /// Whether the format stores a tempo map rather than a list of beat times (StepMania, osu!, Beat Saber):
    /// such a format keeps beat times exactly only as grid points of its tempo map.
    public var storesTempoMap: Bool { converter.storesTempoMap }

    /// The format a path names, or `nil`: an existing folder holding a file that names a folder format
    /// (a Beat Saber folder with its `Info.dat`), a file name that names one format (`Info.dat`), an
    /// extension only one format uses (`.sm`, `.osu`, `.jams`, `.swift`, `.mid`, `.midi`, `.chart`,
    /// `.cs`, `.gd`), or an extension that is a format's own name (`.csv`, `.txt`: the plain formats of
    /// that name). Unknown extensions are `nil`.
    public static func inferred(fromPath path: String) -> InterchangeFormat? {
        var isFolder: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), isFolder.boolValue {
            let names = Set(
                ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).map { $0.lowercased() })
            return allCases.first { $0.writesFolder && !names.isDisjoint(with: $0.converter.impliedFileNames) }
        }
        let name = (path as NSString).lastPathComponent.lowercased()
        if let named = allCases.first(where: { $0.converter.impliedFileNames.contains(name) }) { return named }
        let pathExtension = (name as NSString).pathExtension
        guard !pathExtension.isEmpty else { return nil }
        return allCases.first { $0.converter.impliedExtensions.contains(pathExtension) }
            ?? allCases.first { $0.rawValue == pathExtension }
    }

    /// Whether a file named `path` may hold this format: its extension is unknown to every format, or is
    /// this format's own (`.txt` for `audacity`, `.midi` for `midi`). `labels.sm` cannot hold `txt`.
    public func fits(path: String) -> Bool {
        let pathExtension = ((path as NSString).pathExtension).lowercased()
        guard !pathExtension.isEmpty, !writesFolder else { return true }
        let known = Self.allCases.contains {
            $0.fileExtension == pathExtension || $0.converter.impliedExtensions.contains(pathExtension)
        }
        return !known || fileExtension == pathExtension || converter.impliedExtensions.contains(pathExtension)
    }

    public static func == (lhs: InterchangeFormat, rhs: InterchangeFormat) -> Bool { lhs.rawValue == rhs.rawValue }

    public func hash(into hasher: inout Hasher) { hasher.combine(rawValue) }
}

/// Converts beat maps to and from one interchange format.
public protocol BeatMapConverter: Sendable {
    /// The format's name, as `--format` takes it (`sm`, `sonic-visualiser`).
    var identifier: String { get }
    /// The usual file-name extension (for a format that writes a folder, none).
    var fileExtension: String { get }
    /// Whether the export is a folder of files rather than one file. Default: no.
    var writesFolder: Bool { get }
    /// Whether the format stores a tempo map rather than a list of beat times. Default: no.
    var storesTempoMap: Bool { get }
    /// Whether the export is binary rather than text (MIDI). Default: no.
    var isBinary: Bool { get }
    /// The file-name extensions (lowercase) that name this format alone. Default: none.
    var impliedExtensions: [String] { get }
    /// File names (lowercase) that name this format alone, such as `info.dat`. Default: none.
    var impliedFileNames: [String] { get }

    /// The files that represent `map` in this format. Single-file formats return one file whose
    /// ``ExportedFile/name`` is `nil`; folder formats return named files. The same map and options always
    /// give the same bytes.
    func export(_ map: BeatMap, options: ExportOptions) throws(InterchangeError) -> [ExportedFile]

    /// Reads the file (or, for folder formats, the folder or one of its files) at `url` as a beat map.
    func importMap(from url: URL, options: ImportOptions) throws(InterchangeError) -> ImportedMap
}

extension BeatMapConverter {
    /// The format this converter handles.
    public var format: InterchangeFormat { InterchangeFormat(self) }
    /// No: one file.
    public var writesFolder: Bool { false }
    /// No: a list of beat times.
    public var storesTempoMap: Bool { false }
    /// No: text.
    public var isBinary: Bool { false }
    /// None.
    public var impliedExtensions: [String] { [] }
    /// None.
    public var impliedFileNames: [String] { [] }
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
    /// the audio file's name, or its folder's name when the file is called `song.*` (a library laid out one
    /// song per folder).
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
    /// Facts about the conversion worth telling (an estimated duration, a skipped chart).
    public var notes: [ImportNote]

    /// A result of `map` with `notes`.
    public init(map: BeatMap, notes: [ImportNote] = []) {
        self.map = map
        self.notes = notes
    }
}

/// A fact about an import worth telling, and what the user can do about it.
public struct ImportNote: Sendable, Equatable, CustomStringConvertible {
    /// The fact, for a person.
    public var message: String
    /// What the user can do about it, if anything.
    public var remedy: Remedy?

    /// A note saying `message`.
    public init(_ message: String, remedy: Remedy? = nil) {
        self.message = message
        self.remedy = remedy
    }

    public var description: String { message }
}

/// Why a conversion failed: names the file (and line, for text formats) and what is wrong.
public struct InterchangeError: Error, LocalizedError, Sendable, Equatable {
    /// The file the problem is in, if it is about a file.
    public var path: String?
    /// The 1-based line, when known.
    public var line: Int?
    /// What is wrong.
    public var message: String
    /// What the user can do about it, if anything (a front end says it in its own words).
    public var remedy: Remedy?

    /// An error about `path` (at `line`, if known).
    public init(path: String?, line: Int? = nil, _ message: String, remedy: Remedy? = nil) {
        self.path = path
        self.line = line
        self.message = message
        self.remedy = remedy
    }

    public var errorDescription: String? {
        var text = ""
        if let path { text += path + (line.map { ":\($0)" } ?? "") + ": " }
        return text + message
    }
}
