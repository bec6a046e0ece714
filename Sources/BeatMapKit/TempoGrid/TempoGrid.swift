// SPDX-License-Identifier: GPL-3.0-or-later

public import Foundation

/// A point on a tempo grid near a given time.
public struct GridPoint: Sendable, Equatable {
    /// The grid point's time in seconds.
    public var time: TimeInterval
    /// Index of the tempo segment the point belongs to.
    public var segment: Int
    /// The subdivision of the beat the point lies on (1 = beat, 2 = eighth in 4/4, …).
    public var subdivision: Int
    /// `t − time`: positive when the queried time is late.
    public var error: TimeInterval
}

/// Grid math over a tempo map: segment lookup (binary search), nearest grid points, beat lengths.
///
/// Segment `i` is anchored at `segments[i].time` and covers times up to the next segment's anchor;
/// times before the first anchor follow the first segment's grid (a pickup before the first beat).
public struct TempoGrid: Sendable, Equatable {
    /// The segments, sorted by time.
    public let segments: [TempoSegment]

    /// A grid over `segments` (sorted by time here); `nil` when there are none.
    public init?(segments: [TempoSegment]) {
        guard !segments.isEmpty else { return nil }
        self.segments = segments.sorted { $0.time < $1.time }
    }

    /// A single-tempo grid.
    public init(bpm: Double, anchor: TimeInterval, beatsPerBar: Int? = nil) {
        segments = [TempoSegment(time: anchor, bpm: bpm, beatsPerBar: beatsPerBar)]
    }

    /// Index of the segment that covers time `t`.
    public func segmentIndex(at t: TimeInterval) -> Int {
        SortedSearch.lastIndex(in: segments, atOrBefore: t) { $0.time }
    }

    /// Seconds per beat at time `t`.
    public func beatLength(at t: TimeInterval) -> TimeInterval { segments[segmentIndex(at: t)].beatLength }

    /// The nearest point of segment `index`'s grid at `subdivision` to `t`.
    public func nearestPoint(to t: TimeInterval, inSegment index: Int, subdivision: Int) -> GridPoint {
        let segment = segments[index]
        let step = segment.beatLength / Double(max(subdivision, 1))
        let k = ((t - segment.time) / step).rounded()
        let time = segment.time + k * step
        return GridPoint(time: time, segment: index, subdivision: subdivision, error: t - time)
    }

    /// The nearest grid point to `t` over the allowed `subdivisions`, considering the covering segment
    /// and, within `boundaryTolerance` of a segment change, the neighbouring one too.
    public func nearestPoint(to t: TimeInterval, subdivisions: [Int], boundaryTolerance: TimeInterval = 0) -> GridPoint
    {
        let index = segmentIndex(at: t)
        var candidates = [index]
        if index + 1 < segments.count, segments[index + 1].time - t <= boundaryTolerance {
            candidates.append(index + 1)
        }
        if index > 0, t - segments[index].time <= boundaryTolerance { candidates.append(index - 1) }
        var best: GridPoint?
        for segment in candidates {
            for subdivision in subdivisions {
                let point = nearestPoint(to: t, inSegment: segment, subdivision: subdivision)
                if best.map({ abs(point.error) < abs($0.error) }) ?? true { best = point }
            }
        }
        // `candidates` and `subdivisions` are never both empty: callers pass at least one subdivision.
        return best ?? nearestPoint(to: t, inSegment: index, subdivision: 1)
    }

    /// Fits one tempo to beat times: the median interval gives a first period, each beat gets a beat
    /// number by rounding, and a least-squares line through (number, time) gives the BPM and anchor.
    /// Missing beats are tolerated (they just skip a number). `nil` for fewer than two finite beats.
    public static func inferTempo(from beats: [TimeInterval]) -> TempoSegment? {
        let finite = beats.filter(\.isFinite)
        guard finite.count >= 2 else { return nil }
        var intervals: [Double] = []
        intervals.reserveCapacity(finite.count)
        for i in 1..<finite.count where finite[i] - finite[i - 1] > 1e-6 { intervals.append(finite[i] - finite[i - 1]) }
        guard !intervals.isEmpty else { return nil }
        intervals.sort()
        let period = intervals[intervals.count / 2]
        let origin = finite[0]
        let numbers = finite.map { (($0 - origin) / period).rounded() }
        var included = [Bool](repeating: true, count: finite.count)
        var slope = period
        var intercept = 0.0
        // Least squares, then refits without outliers (beyond 3 median absolute residuals, at least
        // 2 ms), so one misplaced beat cannot drag the grid away from the others.
        for _ in 0..<3 {
            var sumK = 0.0, sumT = 0.0, sumKK = 0.0, sumKT = 0.0, n = 0.0
            for (index, t) in finite.enumerated() where included[index] {
                let k = numbers[index]
                sumK += k
                sumT += t - origin
                sumKK += k * k
                sumKT += k * (t - origin)
                n += 1
            }
            let denominator = n * sumKK - sumK * sumK
            guard n >= 2, denominator > 0 else { break }
            slope = (n * sumKT - sumK * sumT) / denominator
            intercept = (sumT - slope * sumK) / n
            let residuals = finite.indices.map { abs(finite[$0] - origin - (intercept + slope * numbers[$0])) }
            let median = residuals.sorted()[residuals.count / 2]
            let limit = max(3 * median, 0.002)
            let next = residuals.map { $0 <= limit }
            if next == included || next.count(where: { $0 }) < 2 { break }
            included = next
        }
        guard slope > 0, slope.isFinite else { return nil }
        return TempoSegment(time: origin + intercept, bpm: 60 / slope)
    }
}
