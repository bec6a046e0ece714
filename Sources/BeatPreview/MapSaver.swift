// SPDX-License-Identifier: GPL-3.0-or-later

public import BeatAudio
public import BeatMapKit
public import Foundation

/// What saving a nudged map did.
public struct SaveOutcome: Sendable, Equatable {
    /// The map file written.
    public var path: String
    /// Where the file's previous content was kept (first save of a session), if anywhere.
    public var backupPath: String?
    /// The nudge applied, in seconds.
    public var offset: TimeInterval
}

/// Why a nudged map was not saved.
public enum SaveError: Error, LocalizedError, Sendable, Equatable {
    /// The nudged map has validation errors the original did not have.
    case invalid(path: String, problems: [String])
    /// Writing failed.
    case write(String)

    public var errorDescription: String? {
        switch self {
        case .invalid(let path, let problems):
            return "\(path): not saved — the nudged map fails validation: " + problems.prefix(3).joined(separator: "; ")
                + (problems.count > 3 ? " (and \(problems.count - 3) more)" : "")
        case .write(let reason): return "not saved: \(reason)"
        }
    }
}

/// Saves a map moved by a nudge: validated first, the previous file kept as a backup, written atomically.
public struct MapSaver: Sendable {
    /// The map file.
    public let mapURL: URL
    /// The map as it was loaded (the nudge is relative to it).
    public let original: BeatMap
    /// The validator used before saving.
    public var validator: Validator
    /// The backup made by this saver's first save, if any.
    public private(set) var backupURL: URL?

    /// A saver for `original`, read from `mapURL`.
    public init(
        mapURL: URL, original: BeatMap, validator: Validator = Validator(audioInspector: SndfileAudioInspector())
    ) {
        self.mapURL = mapURL
        self.original = original
        self.validator = validator
    }

    /// `map` with every beat and tempo anchor moved by `offset` seconds.
    public static func nudged(_ map: BeatMap, by offset: TimeInterval) -> BeatMap {
        var moved = map
        moved.beats = map.beats.map { $0 + offset }
        moved.tempo = map.tempo?.map { segment in
            var segment = segment
            segment.time += offset
            return segment
        }
        return moved
    }

    /// Validates `original` moved by `offset`, keeps the current file as `NAME.bak` (or `NAME.bak.2`, …)
    /// on the first save, then replaces the map file atomically.
    public mutating func save(offset: TimeInterval) throws(SaveError) -> SaveOutcome {
        let moved = Self.nudged(original, by: offset)
        let text: String
        do { text = try BeatMapCodec.encode(moved) } catch { throw .write(error.localizedDescription) }
        let report = validator.validate(bytes: Array(text.utf8), path: mapURL.path, mapURL: mapURL)
        let before: Int
        if let originalText = try? BeatMapCodec.encode(original) {
            before = validator.validate(bytes: Array(originalText.utf8), path: mapURL.path, mapURL: mapURL).errorCount
        } else {
            before = 0
        }
        if report.errorCount > before {
            let problems = report.findings.filter { $0.severity == .error }.map { "\($0.ruleID): \($0.message)" }
            throw .invalid(path: mapURL.path, problems: problems)
        }
        var madeBackup: URL?
        if backupURL == nil, FileManager.default.fileExists(atPath: mapURL.path) {
            let current: Data
            do { current = try Data(contentsOf: mapURL) } catch {
                throw .write("cannot read \(mapURL.path) to back it up")
            }
            var attempt = 1
            while true {
                let candidate = URL(fileURLWithPath: mapURL.path + (attempt == 1 ? ".bak" : ".bak.\(attempt)"))
                do {
                    try AtomicFile.write(current, to: candidate, overwrite: false)
                    madeBackup = candidate
                    break
                } catch .exists {
                    attempt += 1
                    if attempt > 999 { throw .write("too many backups of \(mapURL.path)") }
                } catch {
                    throw .write(error.localizedDescription)
                }
            }
            backupURL = madeBackup
        }
        do {
            try BeatMapCodec.write(moved, to: mapURL, overwrite: true)
        } catch {
            throw .write(error.localizedDescription)
        }
        return SaveOutcome(path: mapURL.path, backupPath: backupURL?.path, offset: offset)
    }
}
