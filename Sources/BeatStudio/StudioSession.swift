// SPDX-License-Identifier: GPL-3.0-or-later

public import BeatAudio
public import BeatMapKit
import BeatPreview
public import Foundation

/// What the studio works on: one map file and one audio file, chosen at launch.
public struct StudioDocument: Sendable, Equatable {
    /// The map file.
    public var mapURL: URL
    /// The audio file.
    public var audioURL: URL

    /// The map at `mapURL` with the audio at `audioURL`.
    public init(mapURL: URL, audioURL: URL) {
        self.mapURL = mapURL
        self.audioURL = audioURL
    }
}

/// Why the studio could not start.
public enum StudioError: Error, LocalizedError, Sendable, Equatable {
    /// The map file could not be read.
    case map(String)
    /// No audio file was given and the map names none.
    case noAudio(map: String)
    /// The audio file does not exist or is not a regular file.
    case audio(path: String, reason: String)
    /// The audio file cannot be decoded.
    case unreadableAudio(String)
    /// The server could not listen.
    case listen(String)

    public var errorDescription: String? {
        switch self {
        case .map(let reason): return reason
        case .noAudio(let map): return "\(map): the map names no audio file (audio.path); give the audio file too"
        case .audio(let path, let reason): return "\(path): \(reason)"
        case .unreadableAudio(let reason): return reason
        case .listen(let reason): return "cannot start the server: \(reason)"
        }
    }
}

/// What one save did, or why it was refused.
public enum StudioSaveResult: Sendable, Equatable {
    /// Written; the outcome says where the backup is.
    case saved(SaveOutcome, FileReport)
    /// Refused: the body is not a map.
    case unreadable(String)
    /// Refused: the map has more validation errors than the file had when the studio opened it.
    case invalid(FileReport)
    /// Refused: the file could not be written.
    case failed(String)
}

/// The state of a studio launch: the document, the map as saved, the validator, the peaks. Saves are
/// serialised by the actor.
public actor StudioSession {
    /// The files.
    public let document: StudioDocument
    /// The validator used for findings and before saving (the rules of `validate`).
    public let validator: Validator
    /// The editing operations.
    public let editor: any MapEditing
    private var saver: MapSaver
    private var current: BeatMap
    private var peaks: Task<Result<WaveformPeaks, AudioDecodeError>, Never>?
    /// The saves made, in order.
    public private(set) var saves: [SaveOutcome] = []

    /// Opens `document`: reads the map (it must decode) and checks that the audio file is a regular file.
    public init(
        document: StudioDocument, validator: Validator = Validator(audioInspector: SndfileAudioInspector()),
        editor: any MapEditing = LibraryMapEditor()
    ) throws(StudioError) {
        let map: BeatMap
        do { map = try BeatMapCodec.read(from: document.mapURL) } catch { throw .map(error.localizedDescription) }
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: document.audioURL.path, isDirectory: &isFolder) else {
            throw .audio(path: document.audioURL.path, reason: "no such file")
        }
        guard !isFolder.boolValue else {
            throw .audio(path: document.audioURL.path, reason: "is a folder, not an audio file")
        }
        do { _ = try AudioFileReader(url: document.audioURL) } catch {
            throw .unreadableAudio(error.localizedDescription)
        }
        self.document = document
        self.validator = validator
        self.editor = editor
        current = map
        saver = MapSaver(mapURL: document.mapURL, original: map, validator: validator)
    }

    /// The document for `map`, with `audio` or else the map's own `audio.path`.
    public static func document(map: URL, audio: URL?) throws(StudioError) -> StudioDocument {
        if let audio { return StudioDocument(mapURL: map, audioURL: audio) }
        let decoded: BeatMap
        do { decoded = try BeatMapCodec.read(from: map) } catch { throw .map(error.localizedDescription) }
        guard let resolved = decoded.audio.resolvedURL(relativeTo: map) else { throw .noAudio(map: map.path) }
        return StudioDocument(mapURL: map, audioURL: resolved)
    }

    /// The map as last saved (or as opened), in the file format.
    public func mapText() throws(BeatMapError) -> String { try BeatMapCodec.encode(current) }

    /// The validator's report on map text `bytes` (as if it were the map file).
    public nonisolated func check(_ bytes: [UInt8]) -> FileReport {
        validator.validate(bytes: bytes, path: document.mapURL.path, mapURL: document.mapURL)
    }

    /// Applies `edit` to the map text `bytes`.
    public nonisolated func edit(_ bytes: [UInt8], _ edit: MapEdit) throws(MapEditError) -> BeatMap {
        guard case .map(let map, _) = BeatMapCodec.decode(bytes) else {
            throw .invalid("the request body is not a valid beat map")
        }
        return try editor.apply(edit, to: map)
    }

    /// Validates map text `bytes` and, unless a rule the file passed when opened finds an error, keeps the
    /// file as `.bak` (first save) and replaces it atomically — the preview's save.
    public func save(_ bytes: [UInt8]) -> StudioSaveResult {
        guard case .map(let map, _) = BeatMapCodec.decode(bytes) else {
            let report = check(bytes)
            let reason = report.findings.first.map { "\($0.ruleID): \($0.message)" } ?? "not a beat map"
            return .unreadable(reason)
        }
        do {
            let outcome = try saver.save(map)
            current = map
            saves.append(outcome)
            let text = (try? BeatMapCodec.encode(map)) ?? ""
            return .saved(outcome, check(Array(text.utf8)))
        } catch .invalid {
            let text = (try? BeatMapCodec.encode(map)) ?? ""
            return .invalid(check(Array(text.utf8)))
        } catch {
            return .failed(error.localizedDescription)
        }
    }

    /// The waveform peaks of the audio, computed once, off the actor.
    public func waveform() async -> Result<WaveformPeaks, AudioDecodeError> {
        if let peaks { return await peaks.value }
        let url = document.audioURL
        let task = Task.detached(priority: .userInitiated) { () -> Result<WaveformPeaks, AudioDecodeError> in
            do throws(AudioDecodeError) { return .success(try WaveformPeaks.read(url)) } catch {
                return .failure(error)
            }
        }
        peaks = task
        return await task.value
    }
}
