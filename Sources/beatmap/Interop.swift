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

/// The interchange format: `--format`, else implied by a file name.
private func resolveFormat(_ format: InterchangeFormat?, implied paths: [String?]) throws -> InterchangeFormat {
    if let format { return format }
    for path in paths.compactMap({ $0 }) {
        if let inferred = InterchangeFormat.inferred(fromPath: path) { return inferred }
    }
    throw ValidationError("give --format (one of \(InterchangeFormat.allValueStrings.joined(separator: ", ")))")
}

/// `beatmap export MAP --format F [-o FILE]`.
struct Export: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Convert a beat map for a game, an editor or a research tool.",
        discussion: """
            Formats: \(InterchangeFormat.helpList()). Without -o the result is printed.

            StepMania, osu!, Beat Saber, MIDI and .chart store a tempo map, which is fitted through the beats: each beat \
            moves at most --fit-tolerance-ms (plus up to 0.5 ms for osu!'s whole milliseconds). \
            docs/interop.md says what each format keeps and loses.
            """
    )

    @Argument(help: "The beat map (*.beatmap.json).")
    var map: String

    @Option(help: "Output format (default: implied by -o's extension).")
    var format: InterchangeFormat?

    @Option(name: .shortAndLong, help: "Output file (a folder for beatsaber); default: standard output.")
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
        name: .customLong("fit-tolerance-ms"), help: "How far a beat may move, in ms, when a tempo map is fitted.")
    var fitToleranceMs = 0.25

    func validate() throws {
        guard fitToleranceMs.isFinite, fitToleranceMs >= 0, fitToleranceMs <= 100 else {
            throw ValidationError("--fit-tolerance-ms must be between 0 and 100")
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
        let format = try resolveFormat(format, implied: [output])
        let result = try exitOnError(Exit.failure) {
            try Interchange.export(
                mapAt: URL(fileURLWithPath: map), format: format, options: options,
                to: output.map { URL(fileURLWithPath: $0) }, overwrite: force)
        }
        Console.out(result.text)
    }
}

/// `beatmap import FILE --format F [-o MAP]`.
struct Import: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Read beats or a tempo map from another format as a beat map.",
        discussion: """
            Formats: \(InterchangeFormat.helpList(folder: "a map folder or its Info.dat")). Without -o the map is \
            printed.

            The audio's duration comes from the file when it stores it (swift, beatsaber, jams, csharp, \
            gdscript), else --duration, else for MIDI where its longest track ends, else the length of \
            the audio file it names (measured), else it is estimated (with a warning).
            """
    )

    @Argument(help: "The file to read.")
    var file: String

    @Option(help: "Input format (default: implied by the file name).")
    var format: InterchangeFormat?

    @Option(name: .shortAndLong, help: "Output map file; default: standard output.")
    var output: String?

    @Flag(help: "Replace an existing output.")
    var force = false

    @Option(help: "The audio's duration in seconds, for formats that do not store it.")
    var duration: Double?

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
        if let duration, !(duration.isFinite && duration > 0) {
            throw ValidationError("--duration must be a positive number of seconds")
        }
    }

    /// The import settings the flags give; the audio a file names is measured with libsndfile.
    var options: ImportOptions {
        var options = ImportOptions(
            duration: duration, beats: beats, measureAudio: { SndfileAudioInspector.measuredDuration(of: $0) })
        options.swiftPropertyName = swiftProperty
        return options
    }

    func run() throws {
        let format = try resolveFormat(format, implied: [file])
        let result = try exitOnError(Exit.failure) {
            try Interchange.importMap(
                from: URL(fileURLWithPath: file), format: format, options: options,
                to: output.map { URL(fileURLWithPath: $0) },
                workingFolder: URL(fileURLWithPath: FileManager.default.currentDirectoryPath), overwrite: force)
        }
        for note in result.imported.notes { Console.warning(FlagHints.describe(note)) }
        Console.out(result.report(output: output))
    }
}
