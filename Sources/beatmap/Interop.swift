// SPDX-License-Identifier: GPL-3.0-or-later

public import ArgumentParser
import BeatAnalysis
import BeatAudio
public import BeatMapKit
import Foundation

extension InterchangeFormat: ExpressibleByArgument {
    public init?(argument: String) { self.init(rawValue: argument) }

    public static var allValueStrings: [String] { allCases.map(\.rawValue) }

    /// `swift, sm, …, beatsaber (a folder), …, txt`: the formats, a folder format with `folder`.
    static func helpList(folder: String = "a folder") -> String {
        allCases.map { $0.rawValue + ($0.writesFolder ? " (\(folder))" : "") }.joined(separator: ", ")
    }
}

extension ImportedBeats: ExpressibleByArgument {}

extension ExportOptions.SwiftDeclaration: ExpressibleByArgument {}

/// The interchange format: `--format`, else the one `path` names (its extension, or the files of a
/// folder); a usage error when neither says, or when `--format` contradicts the file's extension.
/// `-` (standard input or output) names none.
private func resolveFormat(_ format: InterchangeFormat?, path: String?, role: String) throws -> InterchangeFormat {
    let named = path.flatMap { StandardStreams.isDash($0) ? nil : $0 }
    if let format {
        if let named, !format.fits(path: named) {
            let implied = InterchangeFormat.inferred(fromPath: named).map { " (it names \($0.rawValue))" } ?? ""
            throw ValidationError("--format \(format.rawValue) does not match \(role) \(named)\(implied)")
        }
        return format
    }
    if let named, let inferred = InterchangeFormat.inferred(fromPath: named) { return inferred }
    let formats = InterchangeFormat.allValueStrings.joined(separator: ", ")
    guard let named else { throw ValidationError("give --format (one of \(formats))") }
    throw ValidationError("cannot tell the format from \(role) \(named); give --format (one of \(formats))")
}

/// `beatmap export MAP --format F [-o FILE]`.
struct Export: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Convert a beat map for a game, an editor or a research tool.",
        discussion: """
            Formats: \(InterchangeFormat.helpList()). The format follows -o's extension unless --format \
            says (a contradicting extension is refused). Without -o, or with -o -, the result is printed. \
            MAP may be - (standard input).

            StepMania, osu!, Beat Saber, MIDI and .chart store a tempo map, which is fitted through the beats: each beat \
            moves at most --fit-tolerance-ms (plus up to 0.5 ms for osu!'s whole milliseconds). \
            docs/interop.md says what each format keeps and loses.

            \(Exit.summary)
            """
    )

    @Argument(help: "The beat map (*.beatmap.json; - for standard input).")
    var map: String

    @Option(help: "Output format (default: implied by -o's extension).")
    var format: InterchangeFormat?

    @Option(name: .shortAndLong, help: "Output file (a folder for beatsaber; - or none: standard output).")
    var output: String?

    @Flag(help: "Replace an existing output.")
    var force = false

    @Option(name: .customLong("swift-type"), help: "Swift: the type holding the constants.")
    var swiftType = "GameConstants"

    @Option(
        name: .customLong("swift-property"),
        help: "Swift: the beat-times property (BPM and duration constants are named after it).")
    var swiftProperty = "beatMap"

    @Option(
        name: .customLong("swift-declaration"),
        help: "Swift: declare a new `enum` or an `extension` of an existing type.")
    var swiftDeclaration = ExportOptions.SwiftDeclaration.enum

    @Option(name: .customLong("swift-access"), help: "Swift: access level (public, package, internal, fileprivate).")
    var swiftAccess: String?

    @Option(name: .customLong("csharp-class"), help: "C#: the static class holding the constants.")
    var csharpClass = "BeatMapData"

    @Option(name: .customLong("csharp-namespace"), help: "C#: the namespace (default: none).")
    var csharpNamespace: String?

    @Option(
        help:
            "Song title for StepMania, osu!, Beat Saber, MIDI and .chart (default: the audio file's name; its folder's when it is called song.*)."
    )
    var title: String?

    @Option(
        name: .customLong("fit-tolerance-ms"), parsing: .unconditional,
        help: "How far a beat may move, in ms, when a tempo map is fitted.")
    var fitToleranceMs = 0.25

    func validate() throws {
        guard fitToleranceMs.isFinite, fitToleranceMs >= 0, fitToleranceMs <= 100 else {
            throw ValidationError("--fit-tolerance-ms must be between 0 and 100")
        }
        let format = try resolveFormat(format, path: output, role: "-o")
        if format.writesFolder && (output == nil || StandardStreams.isDash(output)) {
            throw ValidationError("\(format.rawValue) export writes a folder: give it with -o FOLDER")
        }
    }

    /// The export settings the flags give.
    var options: ExportOptions {
        var options = ExportOptions()
        options.swiftTypeName = swiftType
        options.swiftPropertyName = swiftProperty
        options.swiftDeclaration = swiftDeclaration
        options.swiftAccessLevel = swiftAccess
        options.title = title
        options.csharpClassName = csharpClass
        options.csharpNamespace = csharpNamespace
        options.fitTolerance = fitToleranceMs / 1000
        return options
    }

    func run() throws {
        let format = try resolveFormat(format, path: output, role: "-o")
        var options = self.options
        if StandardStreams.isDash(map) { options.sourceName = StandardStreams.inputName }
        let result = try exitOnError(Exit.couldNotRun) {
            try Interchange.export(
                mapAt: StandardStreams.readableURL(map, pathExtension: "json"), format: format, options: options,
                to: output.flatMap { StandardStreams.isDash($0) ? nil : URL(fileURLWithPath: $0) }, overwrite: force)
        }
        Console.out(result.text)
    }
}

/// `beatmap import FILE --format F [-o MAP]`.
struct Import: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Read beats or a tempo map from another format as a beat map.",
        discussion: """
            Formats: \(InterchangeFormat.helpList(folder: "a map folder or its Info.dat")). The format follows \
            FILE's name (its extension, or the files of a folder) unless --format says. FILE may be - \
            (standard input, with --format). Without -o, or with -o -, the map is printed.

            The audio's duration comes from the file when it stores it (swift, beatsaber, jams, csharp, \
            gdscript), else --duration, else for MIDI where its longest track ends, else the length of \
            the audio file it names (measured), else it is estimated (with a warning).

            \(Exit.summary)
            """
    )

    @Argument(help: "The file (or map folder) to read; - for standard input.")
    var file: String

    @Option(help: "Input format (default: implied by the file name).")
    var format: InterchangeFormat?

    @Option(name: .shortAndLong, help: "Output map file (- or none: standard output).")
    var output: String?

    @Flag(help: "Replace an existing output.")
    var force = false

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "The audio's duration (seconds or m:ss), for formats that do not store it.", valueName: timeValueName))
    var duration: ClockTime?

    @Option(
        help:
            "StepMania and osu!: `grid` (every beat of the tempo map between the first and last note) or `notes` (one beat per note)."
    )
    var beats = ImportedBeats.grid

    @Option(
        name: .customLong("swift-property"),
        help: "Swift: the beat-times property to read (default: the first [TimeInterval] array).")
    var swiftProperty: String?

    func validate() throws {
        if let duration, duration.seconds <= 0 { throw ValidationError("--duration must be a time after 0:00") }
        let format = try resolveFormat(format, path: file, role: "FILE")
        if StandardStreams.isDash(file) && format.writesFolder {
            throw ValidationError("a \(format.rawValue) folder cannot be read from standard input")
        }
        try OutputName.require(output, option: "-o", suffixes: [".json"], writes: "a beat map (JSON)")
    }

    /// The import settings the flags give; the audio a file names is measured with libsndfile.
    var options: ImportOptions {
        var options = ImportOptions(
            duration: duration?.seconds, beats: beats, measureAudio: { SndfileAudioInspector.measuredDuration(of: $0) })
        options.swiftPropertyName = swiftProperty
        return options
    }

    func run() throws {
        let format = try resolveFormat(format, path: file, role: "FILE")
        let output = output.flatMap { StandardStreams.isDash($0) ? nil : $0 }
        let here = URL(fileURLWithPath: FileManager.default.currentDirectoryPath, isDirectory: true)
        let result = try exitOnError(Exit.couldNotRun) {
            try Interchange.importMap(
                from: StandardStreams.readableURL(file, pathExtension: format.fileExtension), format: format,
                options: options, to: output.map { URL(fileURLWithPath: $0) }, workingFolder: here,
                sourceFolder: StandardStreams.isDash(file) ? here : nil, overwrite: force)
        }
        for note in result.imported.notes { Console.warning(FlagHints.describe(note)) }
        Console.out(result.report(output: output))
    }
}
