// SPDX-License-Identifier: GPL-3.0-or-later

public import Foundation

/// Beat times read from a file: a beat map's `beats`, or a plain-text list.
public struct BeatTimesFile: Sendable, Equatable {
    /// What kind of file the times came from.
    public enum Format: String, Sendable, Equatable {
        /// A `*.beatmap.json` map (its `beats`).
        case beatMap = "beat map"
        /// Plain text, one time per line.
        case text
    }

    /// The path as given (or `-` / a name for standard input).
    public var path: String
    /// The kind of file.
    public var format: Format
    /// The times in seconds, in file order (checked: finite, within range, non-decreasing).
    public var times: [Double]

    /// Times read from `path`.
    public init(path: String, format: Format, times: [Double]) {
        self.path = path
        self.format = format
        self.times = times
    }
}

/// Why a beat-times file could not be used.
public enum BeatTimesError: Error, LocalizedError, Sendable, Equatable {
    /// The file could not be read (missing, a directory, no permission, too large).
    case unreadable(path: String, reason: String)
    /// A beat map that is not valid JSON or not a valid map.
    case invalidMap(BeatMapError)
    /// The text is not UTF-8 (at `line`).
    case notText(path: String, line: Int)
    /// A line whose first field is not a number.
    case notATime(path: String, line: Int, text: String)
    /// A time that is NaN or infinite (beat maps may hold those extension tokens).
    case nonFinite(path: String, location: SourceLocation, text: String)
    /// A time earlier than the one before it.
    case notIncreasing(path: String, location: SourceLocation, time: Double, previous: Double)
    /// A time beyond ±``BeatEvaluator/maximumBeatTime`` seconds.
    case outOfRange(path: String, location: SourceLocation, time: Double)

    /// Whether the file itself could not be read (as opposed to read and found wrong).
    public var isUnreadable: Bool {
        if case .unreadable = self { return true }
        return false
    }

    public var errorDescription: String? {
        switch self {
        case .unreadable(let path, let reason): return "\(path): cannot read: \(reason)"
        case .invalidMap(let error): return error.localizedDescription
        case .notText(let path, let line): return "\(path):\(line): not UTF-8 text (and not a beat map)"
        case .notATime(let path, let line, let text):
            return
                "\(path):\(line): \"\(text)\" is not a time in seconds (expected one number per line, # for comments)"
        case .nonFinite(let path, let location, let text):
            return "\(path):\(location): \(text) is not a finite time"
        case .notIncreasing(let path, let location, let time, let previous):
            return "\(path):\(location): \(Self.seconds(time)) s comes before the previous time "
                + "\(Self.seconds(previous)) s; times must be in increasing order"
        case .outOfRange(let path, let location, let time):
            return "\(path):\(location): \(Self.seconds(time)) s is beyond ±\(Int(BeatEvaluator.maximumBeatTime)) s "
                + "(are the times in seconds?)"
        }
    }

    private static func seconds(_ time: Double) -> String {
        abs(time) < 1e12 ? NumberFormatting.decimal(time) : "\(time)"
    }
}

/// Reads beat times for evaluation from a beat map or a plain-text list.
///
/// A file whose first non-blank character is `{` is read as a beat map (its `beats`). Anything else
/// is text: one time in seconds per line; the first field counts (fields are separated by blanks or
/// commas, so `time label` annotation files work); `#` starts a comment; blank lines are skipped.
/// The times must be finite, within ±``BeatEvaluator/maximumBeatTime`` s and in non-decreasing order;
/// an error names the file and line.
public enum BeatTimesReader {
    /// Reads the file at `url`; errors name it `displayPath` (by default the URL's path).
    public static func read(from url: URL, displayPath: String? = nil) throws(BeatTimesError) -> BeatTimesFile {
        let path = displayPath ?? url.path
        let bytes: [UInt8]
        do {
            bytes = try BeatMapCodec.readBytes(of: url)
        } catch {
            switch error {
            case .unreadable(_, let reason): throw .unreadable(path: path, reason: reason)
            case .tooLarge(_, let size, let limit):
                throw .unreadable(path: path, reason: "file is \(size) bytes, over the \(limit)-byte limit")
            default: throw .unreadable(path: path, reason: error.localizedDescription)
            }
        }
        return try parse(bytes, path: path)
    }

    /// Reads file contents; `path` names the source in errors.
    public static func parse(_ bytes: [UInt8], path: String) throws(BeatTimesError) -> BeatTimesFile {
        var start = 0
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { start = 3 }
        while start < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[start]) { start += 1 }
        if start < bytes.count, bytes[start] == UInt8(ascii: "{") { return try parseMap(bytes, path: path) }
        return try parseText(bytes, path: path)
    }

    private static func parseMap(_ bytes: [UInt8], path: String) throws(BeatTimesError) -> BeatTimesFile {
        switch BeatMapCodec.decode(bytes) {
        case .invalidJSON(let message, let location):
            throw .invalidMap(.invalidJSON(path: path, message: message, location: location))
        case .schemaViolations(let issues):
            throw .invalidMap(.schema(path: path, issues: issues))
        case .map(let map, let source):
            var previous = -Double.infinity
            for (index, time) in map.beats.enumerated() {
                let location = source.location(ofBeat: index)
                guard time.isFinite else { throw .nonFinite(path: path, location: location, text: "beats[\(index)]") }
                try check(time, previous: previous, path: path, location: location)
                previous = time
            }
            return BeatTimesFile(path: path, format: .beatMap, times: map.beats)
        }
    }

    private static func parseText(_ bytes: [UInt8], path: String) throws(BeatTimesError) -> BeatTimesFile {
        var times: [Double] = []
        var previous = -Double.infinity
        var lineNumber = 0
        var lineStart = 0
        while lineStart <= bytes.count {
            lineNumber += 1
            var lineEnd = lineStart
            while lineEnd < bytes.count && bytes[lineEnd] != UInt8(ascii: "\n") { lineEnd += 1 }
            defer { lineStart = lineEnd + 1 }
            var contentEnd = lineStart
            while contentEnd < lineEnd && bytes[contentEnd] != UInt8(ascii: "#") { contentEnd += 1 }
            guard let line = String(bytes: bytes[lineStart..<contentEnd], encoding: .utf8) else {
                throw .notText(path: path, line: lineNumber)
            }
            let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "," || $0 == "\r" })
            guard let field = fields.first else { continue }
            guard let time = decimal(field) else {
                throw .notATime(path: path, line: lineNumber, text: String(field.prefix(40)))
            }
            let column = line.utf8.distance(from: line.startIndex, to: field.startIndex) + 1
            try check(time, previous: previous, path: path, location: SourceLocation(line: lineNumber, column: column))
            times.append(time)
            previous = time
        }
        return BeatTimesFile(path: path, format: .text, times: times)
    }

    private static func check(
        _ time: Double, previous: Double, path: String, location: SourceLocation
    ) throws(BeatTimesError) {
        guard abs(time) <= BeatEvaluator.maximumBeatTime else {
            throw .outOfRange(path: path, location: location, time: time)
        }
        guard time >= previous else {
            throw .notIncreasing(path: path, location: location, time: time, previous: previous)
        }
    }

    /// A decimal number (`12`, `-0.5`, `1.5e2`); no hexadecimal, no `inf`/`nan`.
    private static func decimal(_ text: Substring) -> Double? {
        var digits = 0
        var index = text.utf8.startIndex
        let utf8 = text.utf8
        func skipDigits() {
            while index < utf8.endIndex, (48...57).contains(utf8[index]) {
                digits += 1
                index = utf8.index(after: index)
            }
        }
        if index < utf8.endIndex, utf8[index] == UInt8(ascii: "+") || utf8[index] == UInt8(ascii: "-") {
            index = utf8.index(after: index)
        }
        skipDigits()
        if index < utf8.endIndex, utf8[index] == UInt8(ascii: ".") {
            index = utf8.index(after: index)
            skipDigits()
        }
        guard digits > 0 else { return nil }
        if index < utf8.endIndex, utf8[index] == UInt8(ascii: "e") || utf8[index] == UInt8(ascii: "E") {
            index = utf8.index(after: index)
            if index < utf8.endIndex, utf8[index] == UInt8(ascii: "+") || utf8[index] == UInt8(ascii: "-") {
                index = utf8.index(after: index)
            }
            digits = 0
            skipDigits()
            guard digits > 0 else { return nil }
        }
        guard index == utf8.endIndex, let value = Double(String(text)), value.isFinite else { return nil }
        return value
    }
}
