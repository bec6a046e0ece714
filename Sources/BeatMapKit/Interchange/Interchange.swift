// SPDX-License-Identifier: GPL-3.0-or-later

public import Foundation

/// File-level export and import: reads the input, converts, fixes up relative audio paths and writes the
/// output atomically (never replacing an existing file unless asked to).
public enum Interchange {
    /// What an export produced.
    public struct ExportResult: Sendable, Equatable {
        /// The files, as converted.
        public var files: [ExportedFile]
        /// Where they were written (empty when the caller asked for the text only).
        public var written: [URL]

        /// What to show the user: the exported text when nothing was written, else a
        /// `wrote PATH` line per file.
        public var text: String {
            written.isEmpty ? files.map(\.text).joined() : written.map { "wrote \($0.path)\n" }.joined()
        }
    }

    /// What an import produced.
    public struct ImportResult: Sendable, Equatable {
        /// The map (as written) and the notes about it.
        public var imported: ImportedMap
        /// The map file's text.
        public var text: String
        /// The errors `validate` (default settings, without the audio) finds in the map as written:
        /// the source's own faults (an imported map is written as the file says, and checked first).
        public var errors: [Finding] = []

        /// What to show the user: `wrote PATH (N beats)` when the map was written to `output` (named as
        /// the user gave it), else the map file's text.
        public func report(output: String?) -> String {
            guard let output else { return text }
            return "wrote \(output) (\(imported.map.beats.count) beats)\n"
        }
    }

    /// Exports the map file at `mapURL` to `format`. With `output`, the result is written there (a folder
    /// for Beat Saber, created if needed); without, the text is returned for the caller to print.
    /// Game formats name the audio by its file name alone: games expect it beside the exported file.
    public static func export(
        mapAt mapURL: URL, format: InterchangeFormat, options: ExportOptions, to output: URL?, overwrite: Bool
    ) throws(InterchangeError) -> ExportResult {
        let map: BeatMap
        do {
            map = try BeatMapCodec.read(from: mapURL)
        } catch {
            throw InterchangeError(path: nil, error.localizedDescription, remedy: error.remedy)
        }
        var options = options
        if options.sourceName == nil { options.sourceName = mapURL.lastPathComponent }
        if options.title == nil { options.title = FormatSupport.folderTitle(of: map, at: mapURL) }
        let files: [ExportedFile]
        do {
            files = try format.converter.export(map, options: options)
        } catch {
            throw InterchangeError(path: mapURL.path, error.message, remedy: error.remedy)
        }
        guard let output else {
            guard !format.writesFolder else {
                throw InterchangeError(
                    path: nil, "\(format.rawValue) export writes a folder", remedy: .giveOutputFolder)
            }
            guard !format.isBinary else {
                throw InterchangeError(path: nil, "\(format.rawValue) export is a binary file: give an output file")
            }
            return ExportResult(files: files, written: [])
        }
        var targets: [(URL, ExportedFile)] = []
        if format.writesFolder {
            var isFolder: ObjCBool = false
            if FileManager.default.fileExists(atPath: output.path, isDirectory: &isFolder), !isFolder.boolValue {
                throw InterchangeError(path: output.path, "is a file; \(format.rawValue) export writes a folder")
            }
            do {
                try FileManager.default.createDirectory(at: output, withIntermediateDirectories: true)
            } catch {
                throw InterchangeError(path: output.path, "cannot create the folder: \(FileSystemErrors.reason(error))")
            }
            targets = files.map { (output.appendingPathComponent($0.name ?? format.rawValue), $0) }
        } else {
            targets = files.map { (output, $0) }
        }
        if !overwrite, let existing = targets.first(where: { FileManager.default.fileExists(atPath: $0.0.path) }) {
            throw InterchangeError(path: existing.0.path, "already exists", remedy: .allowOverwrite)
        }
        for (url, file) in targets { try write(file.contents, to: url, overwrite: overwrite) }
        return ExportResult(files: files, written: targets.map(\.0))
    }

    /// Imports the file (or Beat Saber folder) at `input` as `format`. With `output`, the map is written
    /// there and its audio path is made relative to the output's folder; without, relative to
    /// `workingFolder`. A relative audio path in the input is taken from the input's folder, or from
    /// `sourceFolder` when given (a file read from standard input has no folder of its own). Returns the map
    /// (as written) and its notes.
    public static func importMap(
        from input: URL, format: InterchangeFormat, options: ImportOptions, to output: URL?, workingFolder: URL,
        sourceFolder: URL? = nil, overwrite: Bool
    ) throws(InterchangeError) -> ImportResult {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: input.path, isDirectory: &isFolder) else {
            throw InterchangeError(path: input.path, "no such file or directory")
        }
        if isFolder.boolValue && !format.writesFolder {
            throw InterchangeError(path: input.path, "is a folder; \(format.rawValue) import reads a file")
        }
        if let output, !overwrite, FileManager.default.fileExists(atPath: output.path) {
            throw InterchangeError(path: output.path, "already exists", remedy: .allowOverwrite)
        }
        var imported = try format.converter.importMap(from: input, options: options)
        // Within the map file's size limit before anything more is read into it.
        try FormatSupport.checkFitsInMapFile(imported.map, path: input.path)
        imported = withTempoThroughDriftingBeats(imported)
        if let tempo = imported.map.tempo, tempo.contains(where: { $0.time < 0 }) {
            // A chart's beat 0 before the audio (StepMania's measure 0 begun by a partial measure, a
            // lead-in): the anchor goes on by whole bars (beats without a meter) into the track.
            imported.map.tempo = BeatMapEditor.carried(
                tempo, to: \.time, beats: imported.map.beats, duration: imported.map.audio.duration)
        }
        if let path = imported.map.audio.path, !path.isEmpty, !path.hasPrefix("/") {
            let base = sourceFolder ?? (isFolder.boolValue ? input : input.deletingLastPathComponent())
            let audio = base.appendingPathComponent(path).standardizedFileURL
            let folder = output?.deletingLastPathComponent() ?? workingFolder
            imported.map.audio.path = relativePath(from: folder, to: audio)
        }
        try FormatSupport.checkFitsInMapFile(imported.map, path: input.path)
        let text: String
        do {
            text = try BeatMapCodec.encode(imported.map)
        } catch {
            throw InterchangeError(path: input.path, error.localizedDescription)
        }
        // Checked as `validate` checks it; what it finds is the source's and is reported, the map still
        // written as the file says (the editor and the validator's fixes can then work on it).
        let report = Validator().validate(bytes: Array(text.utf8), path: output?.path ?? input.path)
        let errors = report.findings.filter { $0.severity == .error }
        if !errors.isEmpty {
            var counts: [String: Int] = [:]
            for finding in errors { counts[finding.ruleID, default: 0] += 1 }
            let rules = counts.sorted { $0.key < $1.key }.map { "\($0.key) ×\($0.value)" }.joined(separator: ", ")
            imported.notes.append(
                ImportNote(
                    "the map as the file gives it fails validation: \(errors.count) error\(errors.count == 1 ? "" : "s") (\(rules)); `beatmap validate` lists them"
                ))
        }
        if let output { try write(Data(text.utf8), to: output, overwrite: overwrite) }
        var result = ImportResult(imported: imported, text: text)
        result.errors = errors
        return result
    }

    /// `imported` with a tempo map fitted through its beats when it has none and its beats follow no
    /// one tempo (a beat list from a live recording, or a followed map exported as beat times): one
    /// tempo is all `validate` can infer for a bare beat list, and a drifting list is off it. The
    /// beats do not move; the tempo map passes within 1 ms of each (``BeatGridFit``, as the tempo
    /// formats' exports fit theirs), one segment where the tempo holds and more where it moves, as
    /// `analyze` writes followed beats. A steady list stays a bare list.
    static func withTempoThroughDriftingBeats(_ imported: ImportedMap) -> ImportedMap {
        let beats = imported.map.beats
        guard imported.map.tempo == nil, beats.count >= 3, beats.allSatisfy(\.isFinite),
            zip(beats.dropFirst(), beats).allSatisfy({ $0 > $1 }),
            let text = try? BeatMapCodec.encode(imported.map)
        else { return imported }
        let report = Validator().validate(bytes: Array(text.utf8), path: "imported")
        guard report.findings.contains(where: { $0.ruleID == OffGridRule.description.id }) else { return imported }
        let fit = BeatGridFit(beats: beats, tempo: nil, tolerance: 0.001)
        let segments = fit.knots.indices.map { index in
            TempoSegment(
                time: fit.knots[index].time,
                bpm: NumberFormatting.roundedToMicroseconds(60 / fit.beatLength(ofSegment: index)))
        }
        guard !segments.isEmpty, segments.allSatisfy({ BeatMapEditor.bpmRange.contains($0.bpm) }) else {
            return imported
        }
        var result = imported
        result.map.tempo = segments
        // A list that only just fits in a map file stays a bare list rather than not fitting, and so
        // does one the tempo map does not put on a grid (its beats numbered across what are not gaps).
        guard (try? FormatSupport.checkFitsInMapFile(result.map, path: "")) != nil,
            let fitted = try? BeatMapCodec.encode(result.map),
            !Validator().validate(bytes: Array(fitted.utf8), path: "imported").findings.contains(where: {
                $0.ruleID == OffGridRule.description.id
            })
        else { return imported }
        result.notes.append(
            ImportNote(
                "the beats follow no one tempo, so the map gets a tempo map through them (\(segments.count) segment\(segments.count == 1 ? "" : "s"), each beat within 1 ms of it; the beats are as the file gives them)"
            ))
        return result
    }

    private static func write(_ data: Data, to url: URL, overwrite: Bool) throws(InterchangeError) {
        do {
            try AtomicFile.write(data, to: url, overwrite: overwrite)
        } catch .exists(let path) {
            throw InterchangeError(path: path, "already exists", remedy: .allowOverwrite)
        } catch {
            throw InterchangeError(path: nil, error.localizedDescription, remedy: error.remedy)
        }
    }

    /// The path of `file` relative to `folder` (`../audio/song.ogg`), both made absolute first.
    public static func relativePath(from folder: URL, to file: URL) -> String {
        let base = folder.standardizedFileURL.pathComponents
        let target = file.standardizedFileURL.pathComponents
        var common = 0
        while common < base.count && common < target.count && base[common] == target[common] { common += 1 }
        if common <= 1 && base.count > 1 { return file.standardizedFileURL.path }
        let ups = [String](repeating: "..", count: base.count - common)
        return (ups + target[common...]).joined(separator: "/")
    }
}
