// SPDX-License-Identifier: GPL-3.0-or-later

import Foundation

/// Helpers shared by the format converters: reading text with line numbers, strict number parsing,
/// checks before export and the duration of an import.
enum FormatSupport {
    /// The largest file an import reads: 64 MiB.
    static let maximumFileSize = 64 * 1024 * 1024

    /// The most beats a tempo-map import (StepMania, osu!, Beat Saber) lays on its grid: a million, a day
    /// of music at 694 BPM (a day at 120 BPM is 172,800 beats). Such a file is small however many beats it
    /// gives (one timing point and one far note), so the limit bounds what a few bytes can make an import
    /// build: 5 million beats from a 2 KB osu! file took over 10 s to import under AddressSanitizer.
    static let maximumGridBeats = 1_000_000

    /// The largest beat number a tempo-map import counts from or to: 2⁴⁰. Beat numbers come from the
    /// file (a recorded first beat, a timing point far before 0 s), and a `Double` that large no longer
    /// changes when 1 is added (1e20 + 1 == 1e20), so counting on from it would never end.
    static let maximumBeatNumber = 1_099_511_627_776.0

    /// The whole beat numbers `first…last` (`nil` when `last < first`), refusing a range that starts or
    /// ends beyond ``maximumBeatNumber`` or that, with the `counted` beats before it, gives more than
    /// ``maximumGridBeats``. Counting over the returned `Int`s always ends.
    static func gridBeats(
        from first: Double, through last: Double, counted: Int = 0, path: String, line: Int? = nil, what: String
    ) throws(InterchangeError) -> ClosedRange<Int>? {
        let first = first.rounded(.up)
        let last = last.rounded(.down)
        if last < first { return nil }
        guard last - first + Double(counted) < Double(maximumGridBeats) else {
            throw InterchangeError(path: path, line: line, "\(what) gives over a million beats")
        }
        guard abs(first) <= maximumBeatNumber, abs(last) <= maximumBeatNumber else {
            throw InterchangeError(
                path: path, line: line,
                "\(what) puts the beats at beat numbers \(describe(first))…\(describe(last)), beyond ±2^40")
        }
        return Int(first)...Int(last)
    }

    /// JSON values of a map besides its beats and tempo segments, at most: the root, `version`, `audio` and
    /// its members, the containers, and the `analysis` block an import writes.
    static let mapOverheadValues = 64

    /// Refuses an imported map whose file `BeatMapCodec` could not read back: a map file holds at most
    /// ``JSONParser/maximumValues`` JSON values (one per beat, up to four per tempo segment).
    static func checkFitsInMapFile(_ map: BeatMap, path: String) throws(InterchangeError) {
        let segments = map.tempo?.count ?? 0
        guard map.beats.count + 4 * segments + mapOverheadValues <= JSONParser.maximumValues else {
            throw InterchangeError(
                path: path,
                "gives \(map.beats.count) beats and \(segments) tempo segment\(segments == 1 ? "" : "s"), more than a map file holds (\(JSONParser.maximumValues) JSON values: about \(JSONParser.maximumValues - mapOverheadValues) beats)"
            )
        }
    }

    /// Text from a file as a message quotes it: at most 60 characters (then `…`), with control characters
    /// shown as escapes (`\u{1B}`), so that a 64 MiB line or a terminal escape sequence in a file never
    /// reaches the terminal whole.
    static func shown(_ text: some StringProtocol) -> String {
        var out = ""
        var count = 0
        for character in text {
            if count == 60 {
                out += "…"
                break
            }
            count += 1
            if character.unicodeScalars.contains(where: { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }) {
                for scalar in character.unicodeScalars {
                    out +=
                        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
                        ? "\\u{\(String(scalar.value, radix: 16, uppercase: true))}" : String(scalar)
                }
            } else {
                out.append(character)
            }
        }
        return out
    }

    /// A beat number for a message (`1e+20`, `12`).
    private static func describe(_ value: Double) -> String {
        abs(value) < 1e15 ? String(Int64(value)) : "\(value)"
    }

    /// The bytes of `url`, with errors naming the file.
    static func bytes(of url: URL) throws(InterchangeError) -> [UInt8] {
        do {
            return try BeatMapCodec.readBytes(of: url, limit: maximumFileSize)
        } catch {
            throw InterchangeError(path: url.path, message(of: error))
        }
    }

    private static func message(of error: BeatMapError) -> String {
        switch error {
        case .unreadable(_, let reason): return "cannot read: \(reason)"
        case .tooLarge(_, let bytes, let limit): return "file is \(bytes) bytes, over the \(limit)-byte limit"
        default: return error.localizedDescription
        }
    }

    /// The text of `url`: UTF-8 (a byte-order mark is dropped), or Latin-1 when it is not valid UTF-8
    /// (old simfiles). NUL bytes mean the file is not text.
    static func text(of url: URL) throws(InterchangeError) -> String {
        var bytes = try bytes(of: url)
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes.removeFirst(3) }
        if bytes.contains(0) { throw InterchangeError(path: url.path, "not a text file (it contains NUL bytes)") }
        if let text = String(validating: bytes, as: UTF8.self) { return text }
        return String(bytes.map { Character(Unicode.Scalar($0)) })
    }

    /// The lines of `text` with their 1-based numbers (`\n`, `\r\n` and `\r` all end a line).
    static func numberedLines(_ text: String) -> [(number: Int, text: Substring)] {
        var lines: [(Int, Substring)] = []
        var number = 1
        var start = text.startIndex
        var index = text.startIndex
        while index < text.endIndex {
            let character = text[index]
            if character == "\n" || character == "\r" || character == "\r\n" {
                lines.append((number, text[start..<index]))
                number += 1
                index = text.index(after: index)
                start = index
            } else {
                index = text.index(after: index)
            }
        }
        if start < text.endIndex { lines.append((number, text[start..<text.endIndex])) }
        return lines
    }

    /// A finite decimal number (`12`, `-0.5`, `1e-3`): no `nan`, `inf`, hex or stray characters.
    static func number(_ text: some StringProtocol) -> Double? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty, trimmed.utf8.count < 64,
            trimmed.unicodeScalars.allSatisfy({ "0123456789+-.eE".unicodeScalars.contains($0) }),
            let value = Double(trimmed), value.isFinite
        else { return nil }
        return value
    }

    /// A whole number.
    static func integer(_ text: some StringProtocol) -> Int? {
        Int(text.trimmingCharacters(in: .whitespaces))
    }

    /// Refuses maps a format cannot represent: no beats, non-finite or negative times, or (for tempo-map
    /// formats) beats that are not strictly increasing.
    static func checkExportable(_ map: BeatMap, for format: InterchangeFormat) throws(InterchangeError) {
        if let index = map.beats.firstIndex(where: { !$0.isFinite }) {
            throw InterchangeError(
                path: nil, "cannot export to \(format.rawValue): beats[\(index)] is not a finite number")
        }
        guard map.audio.duration.isFinite, map.audio.duration > 0 else {
            throw InterchangeError(
                path: nil, "cannot export to \(format.rawValue): audio.duration must be a positive number")
        }
        guard format.storesTempoMap else { return }
        guard !map.beats.isEmpty else {
            throw InterchangeError(path: nil, "cannot export to \(format.rawValue): the map has no beats")
        }
        if let index = map.beats.firstIndex(where: { $0 < 0 }) {
            throw InterchangeError(
                path: nil,
                "cannot export to \(format.rawValue): beats[\(index)] is negative (\(NumberFormatting.decimal(map.beats[index])) s)"
            )
        }
        for index in 1..<map.beats.count where !(map.beats[index] - map.beats[index - 1] >= 0.001) {
            throw InterchangeError(
                path: nil,
                "cannot export to \(format.rawValue): beats[\(index)] (\(NumberFormatting.decimal(map.beats[index])) s) is not at least 1 ms after beats[\(index - 1)] (\(NumberFormatting.decimal(map.beats[index - 1])) s)",
                remedy: .validateMap)
        }
    }

    /// The audio file name to write into a game format: the option, else the last component of the
    /// map's `audio.path`, else `fallback`.
    static func audioFileName(_ map: BeatMap, _ options: ExportOptions, fallback: String = "audio.ogg") -> String {
        if let name = options.audioFileName, !name.isEmpty { return name }
        if let path = map.audio.path, !path.isEmpty { return (path as NSString).lastPathComponent }
        return fallback
    }

    /// The title to write into a game format: the option, else the audio file's name without extension
    /// (its folder's name when the file is called `song.*`, as in a library laid out one song per
    /// folder, if `audio.path` names the folder).
    static func title(_ map: BeatMap, _ options: ExportOptions) -> String {
        if let title = options.title, !title.isEmpty { return title }
        if let path = map.audio.path, !path.isEmpty {
            let url = URL(fileURLWithPath: path)
            if let folder = folderTitle(of: url) { return folder }
            return (url.lastPathComponent as NSString).deletingPathExtension
        }
        return "Untitled"
    }

    /// File names (without extension, lowercase) that say nothing of the song: one-song-per-folder
    /// libraries (Frets on Fire, Clone Hero, Rock Band exports) call every mix `song.ogg`.
    static let genericNames: Set<String> = ["song"]

    /// The name of `file`'s folder when `file` is called `song.*` (or `song.beatmap.json`) and the
    /// folder is a real name (not `.`, `..` or the root), else `nil`.
    static func folderTitle(of file: URL) -> String? {
        var name = file.lastPathComponent.lowercased()
        if name.hasSuffix(BeatMap.fileExtension) { name.removeLast(BeatMap.fileExtension.count) }
        name = (name as NSString).deletingPathExtension
        guard genericNames.contains(name) else { return nil }
        let folder = file.deletingLastPathComponent().lastPathComponent
        guard !folder.isEmpty, folder != ".", folder != "..", folder != "/" else { return nil }
        return folder
    }

    /// The title of the map at `mapURL` when its audio (or, without `audio.path`, the map itself) is
    /// called `song.*`: the folder it lies in. `nil` when the file name is a title of its own.
    static func folderTitle(of map: BeatMap, at mapURL: URL) -> String? {
        if let audio = map.audio.resolvedURL(relativeTo: mapURL) { return folderTitle(of: audio) }
        return folderTitle(of: mapURL.standardizedFileURL)
    }

    /// The duration of an imported map: the file's own, else `options.duration`, else the measured
    /// length of the audio the file names, else an estimate (the last beat plus one interval) with a note.
    static func duration(
        fromFile fileDuration: TimeInterval?, audioPath: String?, source url: URL, beats: [TimeInterval],
        options: ImportOptions, notes: inout [ImportNote]
    ) throws(InterchangeError) -> TimeInterval {
        if let known = try knownDuration(fromFile: fileDuration, audioPath: audioPath, source: url, options: options) {
            return known
        }
        let last = beats.last ?? 0
        var step = 0.5
        if beats.count >= 2 { step = max(beats[beats.count - 1] - beats[beats.count - 2], 0.001) }
        let estimate = NumberFormatting.roundedToMicroseconds(max(last + step, 0.001))
        notes.append(
            ImportNote(
                "\(url.path) does not give the audio's duration"
                    + (audioPath.map { " and its audio \(shown($0)) was not found or could not be decoded" } ?? "")
                    + "; audio.duration set to \(NumberFormatting.decimal(estimate)) s (the last beat plus one interval)",
                remedy: .giveDuration))
        return estimate
    }

    /// The audio's duration when something gives it — the file, `options.duration`, or the audio measured —
    /// or `nil` when it could only be estimated.
    static func knownDuration(
        fromFile fileDuration: TimeInterval?, audioPath: String?, source url: URL, options: ImportOptions
    ) throws(InterchangeError) -> TimeInterval? {
        if let fileDuration, fileDuration.isFinite, fileDuration > 0 { return fileDuration }
        if let duration = options.duration {
            guard duration.isFinite, duration > 0 else {
                throw InterchangeError(path: nil, "the duration must be a positive number of seconds")
            }
            return duration
        }
        if let audioPath, !audioPath.isEmpty, let measure = options.measureAudio {
            let audioURL =
                audioPath.hasPrefix("/")
                ? URL(fileURLWithPath: audioPath) : url.deletingLastPathComponent().appendingPathComponent(audioPath)
            if let measured = measure(audioURL.standardizedFileURL), measured > 0 { return measured }
        }
        return nil
    }

    /// The file name of `url` without any folder, for provenance.
    static func fileName(_ url: URL) -> String { url.lastPathComponent }

    /// The provenance block of an imported map.
    static func analysis(format: InterchangeFormat, source url: URL) -> JSONValue {
        .object(
            JSONObject([
                ("tool", .string("beatmap import")), ("format", .string(format.rawValue)),
                ("source", .string(fileName(url))),
            ]))
    }

    /// Time text for exports: microsecond precision, no float noise (`0.5`, `12.345678`).
    static func seconds(_ value: Double) -> String { NumberFormatting.decimal(value) }

    /// A number with up to `digits` decimals and no trailing zeros (`120`, `127.5`, `333.333333`).
    static func decimal(_ value: Double, digits: Int) -> String {
        let scale = pow(10, Double(digits))
        let rounded = (value * scale).rounded() / scale
        if rounded == rounded.rounded(), abs(rounded) < 1e15 { return String(Int64(rounded)) }
        var text = String(format: "%.\(digits)f", rounded)
        while text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
        return text == "-0" ? "0" : text
    }
}
