// SPDX-License-Identifier: GPL-3.0-or-later

public import Foundation

/// A map file read and put into canonical form.
public struct FormattedMap: Sendable {
    /// The file that was read (symbolic links resolved, so an in-place rewrite replaces the target and
    /// keeps the link).
    public let url: URL
    /// The path as given, for messages.
    public let path: String
    /// The file's bytes as read.
    public let original: [UInt8]
    /// The canonical text (``BeatMapCodec/encode(_:)`` of the decoded map).
    public let canonical: String

    /// Whether the file already holds exactly the canonical text.
    public var isCanonical: Bool { original.elementsEqual(canonical.utf8) }
}

/// Puts map files into the canonical form of ``BeatMapCodec/encode(_:)``: members in a stable order,
/// one beat per line, computed times rounded to microseconds, unknown members kept with their values
/// and number texts as written.
public enum BeatMapFormatter {
    /// The canonical text of map-file `bytes`, or an error naming `path` and what is wrong.
    public static func canonicalText(of bytes: [UInt8], path: String) throws(BeatMapError) -> String {
        switch BeatMapCodec.decode(bytes) {
        case .invalidJSON(let message, let location):
            throw .invalidJSON(path: path, message: message, location: location)
        case .schemaViolations(let issues):
            throw .schema(path: path, issues: issues)
        case .map(let map, let source):
            // JSON has no NaN or infinity; say where such a value is rather than which field.
            if let index = map.beats.firstIndex(where: { !$0.isFinite }) {
                throw .schema(path: path, issues: [nonFinite("beats[\(index)]", at: source.location(ofBeat: index))])
            }
            for (index, segment) in (map.tempo ?? []).enumerated() where !segment.time.isFinite || !segment.bpm.isFinite
            {
                throw .schema(
                    path: path, issues: [nonFinite("tempo[\(index)]", at: source.location(ofTempoSegment: index))])
            }
            do {
                return try BeatMapCodec.encode(map)
            } catch {
                throw .schema(path: path, issues: [SchemaIssue(message: error.localizedDescription, location: .start)])
            }
        }
    }

    private static func nonFinite(_ field: String, at location: SourceLocation) -> SchemaIssue {
        SchemaIssue(message: "\(field) is not a finite number (JSON has no NaN or infinity)", location: location)
    }

    /// The canonical text of the map in `bytes` (read from elsewhere, such as standard input; shown as
    /// `path`, taken to be at `url`).
    public static func format(bytes: [UInt8], path: String, url: URL) throws(BeatMapError) -> FormattedMap {
        FormattedMap(url: url, path: path, original: bytes, canonical: try canonicalText(of: bytes, path: path))
    }

    /// Reads the map at `url` (shown as `path`) and computes its canonical text.
    public static func format(fileAt url: URL, path: String? = nil) throws(BeatMapError) -> FormattedMap {
        let shown = path ?? url.path
        let resolved = url.resolvingSymlinksInPath()
        let bytes = try BeatMapCodec.readBytes(of: resolved)
        let text = try canonicalText(of: bytes, path: shown)
        return FormattedMap(url: resolved, path: shown, original: bytes, canonical: text)
    }

    /// Replaces the file with its canonical text, atomically, when it is not canonical already.
    /// Returns whether the file was rewritten (a canonical file is left untouched, mtime included).
    @discardableResult
    public static func rewriteInPlace(_ map: FormattedMap) throws(BeatMapError) -> Bool {
        if map.isCanonical { return false }
        try write(map.canonical, to: map.url, shownAs: map.path, overwrite: true)
        return true
    }

    /// Writes the canonical text of `map` to `destination` (shown as `path` in errors), atomically. An
    /// existing destination is replaced only when `overwrite` is true; otherwise
    /// ``BeatMapError/exists(path:)`` is thrown.
    public static func write(_ map: FormattedMap, to destination: URL, shownAs path: String? = nil, overwrite: Bool)
        throws(BeatMapError)
    {
        try write(map.canonical, to: destination, shownAs: path ?? destination.path, overwrite: overwrite)
    }

    private static func write(_ text: String, to url: URL, shownAs path: String, overwrite: Bool) throws(BeatMapError) {
        do {
            try AtomicFile.write(Data(text.utf8), to: url, overwrite: overwrite)
        } catch {
            switch error {
            case .exists: throw .exists(path: path)
            case .io(_, let reason): throw .writeFailed(path: path, reason: reason)
            }
        }
    }
}
