// SPDX-License-Identifier: GPL-3.0-or-later

public import BeatMapKit
public import Foundation

/// An edit of a whole map that the studio page asks for.
public enum MapEdit: Sendable, Equatable {
    /// Moves every beat and tempo anchor by `seconds` (later when positive).
    case nudge(seconds: TimeInterval)
    /// Switches to another metric level: `×2`, `½`, `⅔` or `3⁄2` (the ratios of `analysis.alternatives`).
    case metricLevel(ratio: String)
    /// Moves every beat by `fraction` of its own beat (later when positive): ½ puts a map on the
    /// off-beats back on the beat.
    case shiftBeats(fraction: Double)
    /// Sets the beats per bar of the tempo segment playing at `time` (of every segment when `nil`).
    case meter(beatsPerBar: Int, at: TimeInterval?)
    /// Moves the bar lines of the segment playing at `time` by `beats` beats (later when positive).
    case barPhase(beats: Int, at: TimeInterval?)
    /// Lays the segment playing at `anchor` out again at `bpm`, on a grid through `anchor` (a tapped
    /// tempo and phase).
    case tempo(bpm: Double, anchor: TimeInterval)
}

/// Why an edit could not be made.
public enum MapEditError: Error, LocalizedError, Sendable, Equatable {
    /// The editor does not offer this edit.
    case unsupported(String)
    /// The edit's values are out of range, or the map cannot take the edit.
    case invalid(String)

    public var errorDescription: String? {
        switch self {
        case .unsupported(let what): return "not available yet: \(what)"
        case .invalid(let why): return why
        }
    }
}

/// The operations the studio's edits go through.
public protocol MapEditing: Sendable {
    /// The metric-level ratios ``apply(_:to:)`` accepts.
    var metricRatios: [String] { get }
    /// `map` with `edit` made.
    func apply(_ edit: MapEdit, to map: BeatMap) throws(MapEditError) -> BeatMap
}

/// The studio's edits made by the library's ``BeatMapEditor`` — the same operations as `beatmap edit`.
/// A meter or bar move at a time applies to the tempo segment playing then; without one, to the whole
/// map.
public struct LibraryMapEditor: MapEditing {
    /// An editor.
    public init() {}

    /// `×2`, `½`, `⅔` and `3⁄2`.
    public var metricRatios: [String] { MetricLevel.allCases.map(\.label) }

    /// `map` with `edit` made.
    public func apply(_ edit: MapEdit, to map: BeatMap) throws(MapEditError) -> BeatMap {
        let request: BeatMapEdit
        switch edit {
        case .nudge(let seconds): request = .nudge(seconds: seconds)
        case .metricLevel(let ratio):
            guard let level = MetricLevel(spelling: ratio) else {
                throw .unsupported("switching the metric level by \(ratio)")
            }
            request = .metricLevel(level)
        case .shiftBeats(let fraction): request = .shiftBeats(fraction: fraction)
        case .meter(let beatsPerBar, let time):
            request = .beatsPerBar(beatsPerBar, segment: time.map { .at($0) } ?? .all)
        case .barPhase(let beats, let time): request = .shiftBars(beats: beats, segment: time.map { .at($0) } ?? .all)
        case .tempo(let bpm, let anchor): request = .tempo(bpm: bpm, anchor: anchor)
        }
        do {
            return try BeatMapEditor.apply(request, to: map).map
        } catch {
            throw .invalid(error.localizedDescription)
        }
    }
}
