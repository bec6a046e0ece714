// SPDX-License-Identifier: GPL-3.0-or-later

public import Foundation

/// Edits of one map file, in the order they are made.
public struct MapEditRequest: Sendable, Equatable {
    /// The map file.
    public var mapURL: URL
    /// The file's path as the user gave it, for messages.
    public var path: String
    /// The edits, made one after the other on the map as the previous one left it.
    public var edits: [BeatMapEdit]
    /// Whether the file's previous content is kept as `NAME.bak`.
    public var keepsBackup: Bool

    /// A request to make `edits` to the map at `mapURL`.
    public init(mapURL: URL, path: String? = nil, edits: [BeatMapEdit], keepsBackup: Bool = true) {
        self.mapURL = mapURL
        self.path = path ?? mapURL.path
        self.edits = edits
        self.keepsBackup = keepsBackup
    }
}

/// What editing a map file did.
public struct MapEditReport: Sendable, Equatable {
    /// The map file.
    public var path: String
    /// What changed, one sentence each; empty when the edits changed nothing (and nothing was written).
    public var changes: [String]
    /// Where the previous content was kept, if a backup was made.
    public var backupPath: String?

    /// Whether the file was written.
    public var wrote: Bool { !changes.isEmpty }

    /// The report as text lines.
    public var text: String {
        guard wrote else { return "\(path): nothing to change\n" }
        var out = "\(path): edited\n"
        for change in changes { out += "  \(change)\n" }
        if let backupPath { out += "  previous version kept as \(backupPath)\n" }
        return out
    }
}

/// Why a map file was not edited. Nothing was written.
public enum MapEditRunError: Error, LocalizedError, Sendable, Equatable {
    /// The map could not be read.
    case read(BeatMapError)
    /// An edit could not be made.
    case edit(path: String, BeatMapEditError)
    /// The edited map was refused by the validator, or could not be written.
    case save(SaveError)

    public var errorDescription: String? {
        switch self {
        case .read(let error): return error.localizedDescription
        case .edit(let path, let error): return "\(path): \(error.localizedDescription)"
        case .save(let error): return error.localizedDescription
        }
    }

    /// What the user can do about it, if anything.
    public var remedy: Remedy? {
        switch self {
        case .read(let error): return error.remedy
        case .edit(_, let error): return error.remedy
        case .save: return nil
        }
    }
}

/// Edits a map file: reads it, makes the edits with ``BeatMapEditor``, and writes the result through
/// ``MapFileSaver`` (validated first, a backup kept, replaced atomically), all or nothing.
public enum MapEditRun {
    /// Makes `request`'s edits, checking the result with `validator` before writing it.
    public static func run(_ request: MapEditRequest, validator: Validator) throws(MapEditRunError) -> MapEditReport {
        let path = request.path
        let original: BeatMap
        do { original = try BeatMapCodec.read(from: request.mapURL) } catch { throw .read(error) }
        let (map, changes) = try edited(original, request.edits, path: path)
        guard map != original else { return MapEditReport(path: path, changes: [], backupPath: nil) }
        var saver = MapFileSaver(
            mapURL: request.mapURL, original: original, validator: validator, keepsBackup: request.keepsBackup)
        let outcome: SaveOutcome
        do { outcome = try saver.save(map) } catch { throw .save(error) }
        // The backup's path as the user wrote the map's: the same suffix after it.
        let backup = outcome.backupPath.map { path + $0.dropFirst(request.mapURL.path.count) }
        return MapEditReport(path: path, changes: changes, backupPath: backup)
    }

    /// Makes `edits` to the map in `bytes` (standard input, say), named `path` in messages and taken as
    /// a file at `mapURL` (its folder resolves the audio path), and returns the edited map's text, checked
    /// as ``run(_:validator:)`` checks it before writing, with the report; nothing is written. The text is
    /// the map as read, in canonical form, when the edits change nothing.
    public static func run(
        bytes: [UInt8], mapURL: URL, path: String, edits: [BeatMapEdit], validator: Validator
    ) throws(MapEditRunError) -> (text: String, report: MapEditReport) {
        let original: BeatMap
        do { original = try BeatMapCodec.map(from: bytes, path: path) } catch { throw .read(error) }
        let (map, changes) = try edited(original, edits, path: path)
        let report = MapEditReport(path: path, changes: map == original ? [] : changes, backupPath: nil)
        let saver = MapFileSaver(mapURL: mapURL, original: original, validator: validator, keepsBackup: false)
        let text: String
        if map == original {
            do { text = try BeatMapCodec.encode(map) } catch { throw .save(.write(error.localizedDescription)) }
        } else {
            do { text = try saver.checked(map) } catch { throw .save(error) }
        }
        return (text, report)
    }

    /// `original` with `edits` made one after the other, and what each changed (a headline, then its
    /// details indented).
    static func edited(_ original: BeatMap, _ edits: [BeatMapEdit], path: String) throws(MapEditRunError) -> (
        BeatMap, [String]
    ) {
        var map = original
        var changes: [String] = []
        for edit in edits {
            let edited: EditedMap
            do { edited = try BeatMapEditor.apply(edit, to: map) } catch { throw .edit(path: path, error) }
            map = edited.map
            if let headline = edited.changes.first {
                changes.append(headline)
                changes += edited.changes.dropFirst().map { "  " + $0 }
            }
        }
        return (map, changes)
    }
}
