// SPDX-License-Identifier: GPL-3.0-or-later

public import Foundation

/// A beat map: the times (seconds from the start of the audio) at which a game expects a beat,
/// with the audio it was made for, an optional tempo map and free-form provenance.
///
/// This is format version 1 (`*.beatmap.json`); see ``BeatMapCodec`` for reading and writing it.
public struct BeatMap: Sendable, Equatable {
    /// The only format version this library reads and writes.
    public static let formatVersion = 1
    /// The file-name suffix of beat-map files.
    public static let fileExtension = ".beatmap.json"

    /// The audio the map belongs to.
    public var audio: AudioReference
    /// Tempo segments in time order, or `nil` when the map has none.
    public var tempo: [TempoSegment]?
    /// Beat times in seconds, in the order the file lists them.
    public var beats: [TimeInterval]
    /// Free-form provenance (the tool, method and settings that made the map), or `nil`.
    public var analysis: JSONValue?
    /// Top-level members this format version does not define; kept and written back unchanged.
    public var additionalFields: JSONObject

    /// A map of `beats` for `audio`.
    public init(
        audio: AudioReference, tempo: [TempoSegment]? = nil, beats: [TimeInterval],
        analysis: JSONValue? = nil, additionalFields: JSONObject = JSONObject()
    ) {
        self.audio = audio
        self.tempo = tempo
        self.beats = beats
        self.analysis = analysis
        self.additionalFields = additionalFields
    }

    /// The beats as a game reads them.
    public var timeIntervals: [TimeInterval] { beats }
}

/// The audio file a map was made for.
public struct AudioReference: Sendable, Equatable {
    /// Path of the audio file relative to the map file's folder (or absolute), if known.
    public var path: String?
    /// Duration of the audio in seconds (> 0).
    public var duration: TimeInterval
    /// Sample rate in Hz, if known.
    public var sampleRate: Int?
    /// Lowercase hex SHA-256 of the audio file's bytes, if known.
    public var sha256: String?
    /// Members of `audio` this format version does not define; kept unchanged.
    public var additionalFields: JSONObject

    /// A reference to audio of `duration` seconds.
    public init(
        path: String? = nil, duration: TimeInterval, sampleRate: Int? = nil, sha256: String? = nil,
        additionalFields: JSONObject = JSONObject()
    ) {
        self.path = path
        self.duration = duration
        self.sampleRate = sampleRate
        self.sha256 = sha256
        self.additionalFields = additionalFields
    }

    /// The audio file's URL, resolving a relative ``path`` against the folder of `mapURL`.
    public func resolvedURL(relativeTo mapURL: URL) -> URL? {
        guard let path, !path.isEmpty else { return nil }
        if path.hasPrefix("/") { return URL(fileURLWithPath: path).standardizedFileURL }
        return mapURL.deletingLastPathComponent().appendingPathComponent(path).standardizedFileURL
    }
}

/// A stretch of constant tempo: it starts at ``time`` (a grid point of the segment) and runs until the
/// next segment's time. Beats before the first segment's time follow the first segment's grid.
public struct TempoSegment: Sendable, Equatable {
    /// A grid point of this segment, in seconds; the segment runs from here to the next segment.
    public var time: TimeInterval
    /// Beats per minute.
    public var bpm: Double
    /// Beats per bar (the time signature's numerator), if known.
    public var beatsPerBar: Int?
    /// Members this format version does not define; kept unchanged.
    public var additionalFields: JSONObject

    /// A segment of `bpm` anchored at `time`.
    public init(time: TimeInterval, bpm: Double, beatsPerBar: Int? = nil, additionalFields: JSONObject = JSONObject()) {
        self.time = time
        self.bpm = bpm
        self.beatsPerBar = beatsPerBar
        self.additionalFields = additionalFields
    }

    /// Seconds per beat.
    public var beatLength: TimeInterval { 60 / bpm }
}
