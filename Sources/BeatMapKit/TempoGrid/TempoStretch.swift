// SPDX-License-Identifier: GPL-3.0-or-later

public import Foundation

/// A stretch of a map's tempo as a reader takes it in: one steady segment, or a run of segments too
/// short to read one by one.
///
/// A map whose beats follow the music (a live band, a ramp) has a tempo segment at nearly every beat.
/// Drawn or listed one by one, such a run is a wall of overlapping labels and a tempo change at every
/// beat; read as one stretch, it is a tempo that moves between two values. A segment is short when it
/// holds fewer than ``shortSegmentBeats`` of the map's beats; two or more short segments in a row are
/// one moving stretch. A single short segment between steady ones stays its own stretch: it is a
/// tempo change a reader needs to see.
public struct TempoStretch: Sendable, Equatable {
    /// A segment holding fewer beats than this (4: less than a bar of 4) is short.
    public static let shortSegmentBeats = 4

    /// Where the stretch starts: its first segment's time (0 for the map's first stretch).
    public var from: TimeInterval
    /// Where it ends: the next stretch's start, or the end the caller gives.
    public var to: TimeInterval
    /// Its segments in time order: one for a steady stretch, two or more for a moving one.
    public var segments: [TempoSegment]

    /// Whether the tempo moves within the stretch (two or more short segments).
    public var isMoving: Bool { segments.count > 1 }
    /// The lowest tempo in the stretch.
    public var lowestBPM: Double { segments.map(\.bpm).min() ?? 0 }
    /// The highest tempo in the stretch.
    public var highestBPM: Double { segments.map(\.bpm).max() ?? 0 }
    /// The bar lengths its segments give, each once, in order of first appearance.
    public var meters: [Int] {
        var seen: [Int] = []
        for perBar in segments.compactMap(\.beatsPerBar) where !seen.contains(perBar) { seen.append(perBar) }
        return seen
    }

    /// A stretch of `segments` over [`from`, `to`).
    public init(from: TimeInterval, to: TimeInterval, segments: [TempoSegment]) {
        self.from = from
        self.to = to
        self.segments = segments
    }

    /// The stretches of `map`'s tempo, the last ending at `end` (or at its last segment's start when
    /// `end` is earlier). Segments with a time or tempo that is not finite, or a tempo of 0 or less,
    /// are left out; a map without usable segments has no stretches.
    public static func stretches(of map: BeatMap, until end: TimeInterval) -> [TempoStretch] {
        let usable = (map.tempo ?? []).filter { $0.time.isFinite && $0.bpm.isFinite && $0.bpm > 0 }
        guard let grid = TempoGrid(segments: usable) else { return [] }
        let segments = grid.segments
        var result: [TempoStretch] = []
        for run in runs(of: grid, beats: map.beats) {
            let start = result.isEmpty ? 0 : segments[run.lowerBound].time
            let stop =
                run.upperBound + 1 < segments.count
                ? segments[run.upperBound + 1].time : max(end, segments[run.upperBound].time)
            result.append(TempoStretch(from: start, to: stop, segments: Array(segments[run])))
        }
        return result
    }

    /// The stretches of `grid`'s segments as index ranges, in order and covering every segment: a run
    /// of two or more segments each holding fewer than ``shortSegmentBeats`` of `beats`, or one segment.
    static func runs(of grid: TempoGrid, beats: [Double]) -> [ClosedRange<Int>] {
        let count = grid.segments.count
        var held = [Int](repeating: 0, count: count)
        for beat in beats where beat.isFinite { held[grid.segmentIndex(at: beat)] += 1 }
        var result: [ClosedRange<Int>] = []
        var index = 0
        while index < count {
            var last = index
            if held[index] < shortSegmentBeats {
                while last + 1 < count && held[last + 1] < shortSegmentBeats { last += 1 }
            }
            result.append(index...last)
            index = last + 1
        }
        return result
    }

    /// The stretch of `grid`'s segments that holds segment `index` (``runs(of:beats:)``).
    static func run(containing index: Int, of grid: TempoGrid, beats: [Double]) -> ClosedRange<Int> {
        runs(of: grid, beats: beats).first { $0.contains(index) } ?? index...index
    }
}
