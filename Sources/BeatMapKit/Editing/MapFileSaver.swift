// SPDX-License-Identifier: GPL-3.0-or-later

public import Foundation

/// What saving an edited map did.
public struct SaveOutcome: Sendable, Equatable {
    /// The map file written.
    public var path: String
    /// Where the file's previous content was kept (first save of a session), if anywhere.
    public var backupPath: String?
    /// The nudge the save includes, in seconds (0 for edits that are not a nudge).
    public var offset: TimeInterval
    /// How many beats the nudge moved out of the track, which the saved map no longer has.
    public var droppedBeats: Int

    /// The outcome of writing `path`.
    public init(path: String, backupPath: String?, offset: TimeInterval, droppedBeats: Int = 0) {
        self.path = path
        self.backupPath = backupPath
        self.offset = offset
        self.droppedBeats = droppedBeats
    }
}

/// Why an edited map was not saved.
public enum SaveError: Error, LocalizedError, Sendable, Equatable {
    /// The edited map has errors of rules the original passed.
    case invalid(path: String, problems: [String])
    /// Writing failed.
    case write(String)

    public var errorDescription: String? {
        switch self {
        case .invalid(let path, let problems):
            return "\(path): not saved — the edited map fails validation: "
                + problems.prefix(3).joined(separator: "; ")
                + (problems.count > 3 ? " (and \(problems.count - 3) more)" : "")
        case .write(let reason): return "not saved: \(reason)"
        }
    }
}

/// Writes edited maps over their file: the one save path of every tool that edits a map (the preview's
/// nudge, `beatmap edit`, the studio). The edited map is checked with the validator first and refused
/// when a rule the original passed finds an error in it (``FileReport/errors(ofRulesPassedBy:)``); the file's previous content is kept as `NAME.bak` (or
/// `NAME.bak.2`, … — never overwriting a backup) on the first save unless backups are off; the file is
/// then replaced atomically.
public struct MapFileSaver: Sendable {
    /// The map file.
    public let mapURL: URL
    /// The map as it was loaded.
    public let original: BeatMap
    /// The validator used before saving.
    public var validator: Validator
    /// Whether the first save keeps the file's previous content as a backup.
    public var keepsBackup: Bool
    /// The backup made by this saver's first save, if any.
    public private(set) var backupURL: URL?

    /// A saver for `original`, read from `mapURL`.
    public init(mapURL: URL, original: BeatMap, validator: Validator, keepsBackup: Bool = true) {
        self.mapURL = mapURL
        self.original = original
        self.validator = validator
        self.keepsBackup = keepsBackup
    }

    /// Validates `edited`, keeps the current file as a backup on the first save, then replaces the
    /// file atomically. `offset` is the nudge `edited` includes, for the outcome.
    public mutating func save(_ edited: BeatMap, offset: TimeInterval = 0) throws(SaveError) -> SaveOutcome {
        let text = try checked(edited)
        if keepsBackup, backupURL == nil, FileManager.default.fileExists(atPath: mapURL.path) {
            backupURL = try makeBackup()
        }
        do {
            try AtomicFile.write(Data(text.utf8), to: mapURL, overwrite: true)
        } catch {
            throw .write(error.localizedDescription)
        }
        return SaveOutcome(path: mapURL.path, backupPath: backupURL?.path, offset: offset)
    }

    /// The text of `edited` as the file would hold it, after the check ``save(_:offset:)`` makes before
    /// writing: refused when a rule the original passed finds an error in it. Nothing is written.
    public func checked(_ edited: BeatMap) throws(SaveError) -> String {
        let text: String
        do { text = try BeatMapCodec.encode(edited) } catch { throw .write(error.localizedDescription) }
        let report = validator.validate(bytes: Array(text.utf8), path: mapURL.path, mapURL: mapURL)
        let before =
            (try? BeatMapCodec.encode(original)).map {
                validator.validate(bytes: Array($0.utf8), path: mapURL.path, mapURL: mapURL)
            } ?? FileReport(path: mapURL.path)
        let broken = report.errors(ofRulesPassedBy: before)
        if !broken.isEmpty {
            throw .invalid(path: mapURL.path, problems: broken.map { "\($0.ruleID): \($0.message)" })
        }
        return text
    }

    /// Copies the file to the first free `NAME.bak`, `NAME.bak.2`, … and returns where.
    private func makeBackup() throws(SaveError) -> URL {
        let current: Data
        do { current = try Data(contentsOf: mapURL) } catch {
            throw .write("cannot read \(mapURL.path) to back it up")
        }
        for attempt in 1...999 {
            let candidate = URL(fileURLWithPath: mapURL.path + (attempt == 1 ? ".bak" : ".bak.\(attempt)"))
            do {
                try AtomicFile.write(current, to: candidate, overwrite: false)
                return candidate
            } catch .exists {
                continue
            } catch {
                throw .write(error.localizedDescription)
            }
        }
        throw .write("too many backups of \(mapURL.path)")
    }
}
