// SPDX-License-Identifier: GPL-3.0-or-later

public import BeatMapKit
import BeatPreview
public import Foundation

/// An edit of a whole map that the studio page asks for.
public enum MapEdit: Sendable, Equatable {
    /// Moves every beat and tempo anchor by `seconds` (later when positive).
    case nudge(seconds: TimeInterval)
    /// Switches to another metric level: `×2`, `½`, `⅔` or `3⁄2` (the ratios of `analysis.alternatives`).
    case metricLevel(ratio: String)
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

/// The operations the studio's edits go through. The map-editing operations of the library (issue 13's
/// `edit`) plug in here so that the page and the command share one code path; ``BasicMapEditor`` is the
/// stand-in until then.
public protocol MapEditing: Sendable {
    /// The metric-level ratios ``apply(_:to:)`` accepts.
    var metricRatios: [String] { get }
    /// `map` with `edit` made.
    func apply(_ edit: MapEdit, to map: BeatMap) throws(MapEditError) -> BeatMap
}

/// Edits made with BeatMapKit's tempo math: nudge, metric level ×2 and ½, meter, bar phase, tapped tempo.
public struct BasicMapEditor: MapEditing {
    /// An editor.
    public init() {}

    /// `×2` and `½`.
    public var metricRatios: [String] { ["×2", "½"] }

    /// `map` with `edit` made.
    public func apply(_ edit: MapEdit, to map: BeatMap) throws(MapEditError) -> BeatMap {
        switch edit {
        case .nudge(let seconds):
            guard seconds.isFinite, abs(seconds) <= map.audio.duration else {
                throw .invalid("a nudge must be a finite number of seconds within the track's duration")
            }
            return MapSaver.nudged(map, by: seconds)
        case .metricLevel(let ratio):
            switch ratio {
            case "×2", "2": return Self.doubled(map)
            case "½", "1/2": return try Self.halved(map)
            default: throw .unsupported("switching the metric level by \(ratio)")
            }
        case .meter(let beatsPerBar, let time):
            guard (1...32).contains(beatsPerBar) else { throw .invalid("beats per bar must be from 1 to 32") }
            return try Self.withSegments(of: map, at: time) { $0.beatsPerBar = beatsPerBar }
        case .barPhase(let beats, let time):
            return try Self.shiftedBars(map, by: beats, at: time)
        case .tempo(let bpm, let anchor):
            return try Self.retimed(map, bpm: bpm, anchor: anchor)
        }
    }

    /// A beat halfway between each two, one more half an interval after the last (inside the track), the
    /// tempo and beats per bar doubled.
    static func doubled(_ map: BeatMap) -> BeatMap {
        var edited = map
        let beats = map.beats
        var out: [TimeInterval] = []
        out.reserveCapacity(beats.count * 2)
        for (index, beat) in beats.enumerated() {
            out.append(beat)
            if index + 1 < beats.count {
                out.append((beat + beats[index + 1]) / 2)
            } else if index > 0 {
                let next = beat + (beat - beats[index - 1]) / 2
                if next < map.audio.duration { out.append(next) }
            }
        }
        edited.beats = out
        edited.tempo = map.tempo?.map { segment in
            var segment = segment
            segment.bpm *= 2
            segment.beatsPerBar = segment.beatsPerBar.map { $0 * 2 }
            return segment
        }
        return edited
    }

    /// Every other beat: those an even number of beats from their segment's anchor (a bar line), or the
    /// first, third, … without a tempo map; the tempo halved, and beats per bar halved when even.
    static func halved(_ map: BeatMap) throws(MapEditError) -> BeatMap {
        var edited = map
        let grid = map.tempo.flatMap(TempoGrid.init(segments:))
        edited.beats = map.beats.enumerated().compactMap { index, beat in
            guard let grid else { return index % 2 == 0 ? beat : nil }
            let segment = grid.segments[grid.segmentIndex(at: beat)]
            let k = Int(((beat - segment.time) / segment.beatLength).rounded())
            return k % 2 == 0 ? beat : nil
        }
        guard edited.beats.count >= 2 else { throw .invalid("halving would leave fewer than two beats") }
        edited.tempo = map.tempo?.map { segment in
            var segment = segment
            segment.bpm /= 2
            segment.beatsPerBar = segment.beatsPerBar.flatMap { $0 % 2 == 0 ? $0 / 2 : nil }
            return segment
        }
        return edited
    }

    /// Bar lines moved by `beats`: the anchor of the segment at `time` moves by `beats` (modulo the bar)
    /// whole beats, or the other way round the bar when that is what keeps it after the previous
    /// segment's anchor, before the next one's and inside the track.
    static func shiftedBars(_ map: BeatMap, by beats: Int, at time: TimeInterval?) throws(MapEditError) -> BeatMap {
        guard let segments = map.tempo, let grid = TempoGrid(segments: segments) else {
            throw .invalid("the map has no tempo map, so it has no bar lines to move")
        }
        let index = grid.segmentIndex(at: time ?? segments[0].time)
        let segment = grid.segments[index]
        guard let perBar = segment.beatsPerBar, perBar > 0 else {
            throw .invalid("set the meter (beats per bar) first")
        }
        let step = beats % perBar  // the requested direction first, then the other way round the bar
        guard step != 0 else { return map }
        let lower = index > 0 ? grid.segments[index - 1].time : -Double.infinity
        let upper = index + 1 < grid.segments.count ? grid.segments[index + 1].time : map.audio.duration
        for candidate in [step, step > 0 ? step - perBar : step + perBar] {
            let moved = segment.time + Double(candidate) * segment.beatLength
            if moved > lower, moved < upper, moved >= 0 {
                var edited = map
                edited.tempo = grid.segments
                edited.tempo?[index].time = NumberFormatting.roundedToMicroseconds(moved)
                return edited
            }
        }
        throw .invalid("the segment is too short to move its bar lines")
    }

    /// The segment at `anchor` laid out again: its beats replaced by a grid of `bpm` through `anchor`
    /// over the same span, its anchor moved to the grid point nearest the old one.
    static func retimed(_ map: BeatMap, bpm: Double, anchor: TimeInterval) throws(MapEditError) -> BeatMap {
        guard bpm.isFinite, (20...400).contains(bpm) else { throw .invalid("the tempo must be from 20 to 400 BPM") }
        guard anchor.isFinite, anchor >= 0, anchor <= map.audio.duration else {
            throw .invalid("the tapped anchor must be inside the track")
        }
        let length = 60 / bpm
        let segments = map.tempo.flatMap(TempoGrid.init(segments:))?.segments ?? []
        let index = segments.isEmpty ? 0 : TempoGrid(segments: segments)?.segmentIndex(at: anchor) ?? 0
        let spanStart = index > 0 ? segments[index].time : 0
        let spanEnd = index + 1 < segments.count ? segments[index + 1].time : map.audio.duration
        let kept = map.beats.filter { $0 < spanStart || $0 >= spanEnd }
        var first = anchor - (((anchor - spanStart) / length).rounded(.down)) * length
        if first < spanStart { first += length }
        var laid: [TimeInterval] = []
        var t = first
        while t < spanEnd - 1e-9, laid.count < 1_000_000 {
            laid.append(NumberFormatting.roundedToMicroseconds(t))
            t += length
        }
        guard !laid.isEmpty else { throw .invalid("no beat of that tempo falls inside the segment") }
        var edited = map
        edited.beats = (kept + laid).sorted()
        if segments.isEmpty {
            edited.tempo = [TempoSegment(time: laid[0], bpm: bpm)]
        } else {
            var segment = segments[index]
            let old = segment.time
            let nearest = laid.min { abs($0 - old) < abs($1 - old) } ?? laid[0]
            segment.time = index > 0 ? laid[0] : nearest
            segment.bpm = NumberFormatting.roundedToMicroseconds(bpm)
            edited.tempo = segments
            edited.tempo?[index] = segment
        }
        return edited
    }

    /// `map` with `change` made to the tempo segment at `time`, or to every segment when `time` is `nil`.
    static func withSegments(
        of map: BeatMap, at time: TimeInterval?, _ change: (inout TempoSegment) -> Void
    ) throws(MapEditError) -> BeatMap {
        guard var segments = map.tempo, let grid = TempoGrid(segments: segments) else {
            throw .invalid("the map has no tempo map; lay one out with a tapped tempo first")
        }
        segments = grid.segments
        if let time {
            change(&segments[grid.segmentIndex(at: time)])
        } else {
            for index in segments.indices { change(&segments[index]) }
        }
        var edited = map
        edited.tempo = segments
        return edited
    }
}
