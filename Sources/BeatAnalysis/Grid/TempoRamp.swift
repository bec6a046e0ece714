// SPDX-License-Identifier: GPL-3.0-or-later

import BeatMapKit
import Foundation

/// A tempo that changes steadily: beat time as a parabola in beat number,
/// `time = anchor + period·x + curvature·x²` with `x = index − origin`. A tempo that rises or falls
/// linearly in beat number (a ramp, an accelerando, a band speeding up through a song) is this; tempo
/// segments could only make a staircase of it, each piece missing the beats at its ends.
struct TempoRamp: Sendable, Equatable {
    /// The beat number `x` is counted from.
    var origin: Int
    /// Time of beat `origin`, seconds.
    var anchor: Double
    /// Seconds per beat at beat `origin`.
    var period: Double
    /// Half the change of the interval per beat, seconds (the parabola's second coefficient).
    var curvature: Double
    /// The first and last beat numbers the ramp was fitted over.
    var indices: ClosedRange<Int>

    /// The time of beat `index`.
    func time(_ index: Int) -> Double {
        let x = Double(index - origin)
        return anchor + period * x + curvature * x * x
    }

    /// The interval from beat `index` to the next, seconds.
    func interval(at index: Int) -> Double { time(index + 1) - time(index) }

    /// The least-squares parabola through `points` (beat number, time), or `nil` with fewer than
    /// three distinct beat numbers.
    static func fit(_ points: [(index: Int, time: Double)]) -> TempoRamp? {
        guard let low = points.map(\.index).min(), let high = points.map(\.index).max(), high - low >= 2 else {
            return nil
        }
        let origin = (low + high) / 2
        // Normal equations for y = a + b·x + c·x², x centred near 0 so they are well conditioned.
        var s = [Double](repeating: 0, count: 5)  // Σ xᵏ, k = 0…4
        var t = [Double](repeating: 0, count: 3)  // Σ y·xᵏ, k = 0…2
        for point in points {
            let x = Double(point.index - origin)
            var power = 1.0
            for k in 0..<5 {
                s[k] += power
                if k < 3 { t[k] += point.time * power }
                power *= x
            }
        }
        let matrix = [[s[0], s[1], s[2]], [s[1], s[2], s[3]], [s[2], s[3], s[4]]]
        guard let solution = solve(matrix, t) else { return nil }
        return TempoRamp(
            origin: origin, anchor: solution[0], period: solution[1], curvature: solution[2], indices: low...high)
    }

    /// The residual sum of squares of `points` against the ramp, seconds².
    func residual(_ points: [(index: Int, time: Double)]) -> Double {
        points.reduce(0) { sum, point in
            let error = point.time - time(point.index)
            return sum + error * error
        }
    }

    /// Whether its tempo stays within the tracker's range over the beats it was fitted to: the
    /// intervals at its ends positive and within ``GridFitter/trackerRange`` of each other.
    var staysInTrackerRange: Bool {
        let first = interval(at: indices.lowerBound)
        let last = interval(at: indices.upperBound - 1)
        return first > 0 && last > 0 && max(first, last) < GridFitter.trackerRange * min(first, last)
    }

    /// The ramp moved by half a beat: its beats are the midpoints of these.
    var halfBeatLater: TempoRamp {
        var moved = self
        moved.anchor = anchor + 0.5 * period + 0.25 * curvature
        moved.period = period + curvature
        return moved
    }

    /// Solves a 3 × 3 linear system by Gaussian elimination with partial pivoting; `nil` when singular.
    private static func solve(_ matrix: [[Double]], _ vector: [Double]) -> [Double]? {
        var a = matrix
        var b = vector
        for column in 0..<3 {
            var pivot = column
            for row in (column + 1)..<3 where abs(a[row][column]) > abs(a[pivot][column]) { pivot = row }
            guard abs(a[pivot][column]) > 1e-12 else { return nil }
            a.swapAt(column, pivot)
            b.swapAt(column, pivot)
            for row in (column + 1)..<3 {
                let factor = a[row][column] / a[column][column]
                for k in column..<3 { a[row][k] -= factor * a[column][k] }
                b[row] -= factor * b[column]
            }
        }
        var x = [Double](repeating: 0, count: 3)
        for row in stride(from: 2, through: 0, by: -1) {
            var sum = b[row]
            for k in (row + 1)..<3 { sum -= a[row][k] * x[k] }
            x[row] = sum / a[row][row]
        }
        return x
    }
}

extension GridFitter {
    /// `ramp` refined by least squares against the onsets, as a grid is (``refine(_:over:matcher:fixedPeriod:)``):
    /// each beat takes the onset nearest it within a tolerance that tightens from 40 to 20 ms (at most
    /// a fifth of the beat), and the parabola is fitted again through them.
    func refine(_ ramp: TempoRamp, matcher: PeakMatcher) -> TempoRamp {
        var current = ramp
        for tolerance in [0.04, 0.03, 0.02] {
            guard let fitted = refitted(current, over: current.indices, tolerance: tolerance, matcher: matcher) else {
                break
            }
            current = fitted
        }
        return current
    }

    /// The parabola through the onsets nearest `ramp`'s beats `indices` (within `tolerance`, at most a
    /// fifth of the beat; only beats inside `window` when one is given), over those beat numbers;
    /// `nil` with fewer than 8 such onsets.
    func refitted(
        _ ramp: TempoRamp, over indices: ClosedRange<Int>, in window: ClosedRange<Double>? = nil, tolerance: Double,
        matcher: PeakMatcher
    ) -> TempoRamp? {
        var points: [(index: Int, time: Double)] = []
        for index in indices {
            let interval = ramp.interval(at: index)
            let time = ramp.time(index)
            guard interval > 0, window?.contains(time) ?? true else { continue }
            if let peak = matcher.nearest(to: time, within: min(tolerance, 0.2 * interval)) {
                points.append((index, peak.time))
            }
        }
        guard points.count >= 8, var fitted = TempoRamp.fit(points) else { return nil }
        fitted.indices = indices
        return fitted
    }

    /// How far ``grownRamp(_:tracked:matcher:span:)`` widens its window each step, as a share of the
    /// window (at least 2 s either way): a tenth. A parabola's curvature fitted on a short window is
    /// unsure, and its error beyond the window grows with the square of the distance, so it is carried
    /// only a little way past the onsets it was fitted to before it is fitted again. Half, the share a
    /// grid grows by, lost a ramped train song to onsets 40 ms from the carried parabola; a fifth
    /// kept it, a tenth and a twentieth also kept a second (the same maps for both).
    static let rampGrowth = 0.1

    /// A ramp grown over `span` from the grid piece among `pieces` that explains the most of
    /// `tracked`, with the number of `tracked` beats it explains (lie within
    /// ``GridModelSelector/explainTolerance`` of one of its beats), or `nil` when it leaves the
    /// tracker's tempo range.
    ///
    /// The ramp through the tracked beats by their numbers (``GridModelSelector``'s) is thrown by a
    /// tracker that followed the off-beats for a while: every beat after the slip is half a beat from
    /// where its number puts it. This one never reads the tracked beats' numbers. It starts as the
    /// piece's own grid (a parabola without curvature) and is fitted against the onsets, as a grid is
    /// grown (``grow(_:from:over:matcher:fixedPeriod:)``): each of its beats in a window takes the
    /// onset nearest it (within 40 ms, at most a fifth of the beat), the parabola is fitted through
    /// them, and the window widens by ``rampGrowth`` until it covers the span; then it is refined
    /// over the span (``refine(_:matcher:)``).
    /// Off-beat onsets lie half a beat from its beats and do not pull it.
    func grownRamp(_ pieces: [GridPiece], tracked: [Double], matcher: PeakMatcher, span: ClosedRange<Double>)
        -> (ramp: TempoRamp, explained: Int)?
    {
        let scored = pieces.map { piece in (piece, Self.explained(tracked, by: piece.grid, in: piece.span)) }
        guard let seed = scored.max(by: { $0.1 < $1.1 })?.0 else { return nil }
        let first = seed.grid.firstIndex(atOrAfter: seed.span.lowerBound)
        let last = seed.grid.lastIndex(atOrBefore: seed.span.upperBound)
        guard last - first >= 2 else { return nil }
        var ramp = TempoRamp(
            origin: first, anchor: seed.grid.time(first), period: seed.grid.period, curvature: 0, indices: first...last)
        var lower = seed.span.lowerBound
        var upper = seed.span.upperBound
        while true {
            // The ramp's beat numbers over the window, while its beats move forward.
            var low = ramp.indices.lowerBound
            while ramp.time(low) > lower, ramp.interval(at: low - 1) > 0 { low -= 1 }
            var high = ramp.indices.upperBound
            while ramp.time(high) < upper, ramp.interval(at: high) > 0 { high += 1 }
            guard
                let fitted = refitted(ramp, over: low...high, in: lower...upper, tolerance: 0.04, matcher: matcher)
            else { return nil }
            ramp = fitted
            if lower <= span.lowerBound, upper >= span.upperBound { break }
            let step = max(2, (upper - lower) * Self.rampGrowth)
            lower = max(span.lowerBound, lower - step)
            upper = min(span.upperBound, upper + step)
        }
        ramp = refine(ramp, matcher: matcher)
        guard ramp.staysInTrackerRange else { return nil }
        // Its beats a tolerance beyond the span, so that a tracked beat at either end is matched.
        let tolerance = GridModelSelector.explainTolerance
        let beats = beats(of: ramp, in: (span.lowerBound - tolerance)...(span.upperBound + tolerance))
        let explained =
            beats.isEmpty
            ? 0 : tracked.filter { span.contains($0) && SortedSearch.nearest(beats, $0).distance <= tolerance }.count
        return (ramp, explained)
    }

    /// The beats of `ramp` inside `span`: its own beat numbers, extended either way while the beats
    /// stay in the span and the interval stays within ``trackerRange`` of the one at that end (the
    /// tracker's own tempo range: a parabola is not carried far beyond the beats it was fitted to).
    func beats(of ramp: TempoRamp, in span: ClosedRange<Double>) -> [Double] {
        let first = ramp.indices.lowerBound
        let last = ramp.indices.upperBound
        func plausible(_ index: Int, near end: Int) -> Bool {
            let interval = ramp.interval(at: index)
            let reference = ramp.interval(at: end)
            return interval > 0 && reference > 0 && interval < Self.trackerRange * reference
                && interval > reference / Self.trackerRange
        }
        var lower = first
        while plausible(lower - 1, near: first), ramp.time(lower - 1) >= span.lowerBound { lower -= 1 }
        var upper = last
        while plausible(upper + 1, near: last - 1), ramp.time(upper + 1) <= span.upperBound { upper += 1 }
        return (lower...upper).map { ramp.time($0) }.filter { span.contains($0) }
    }
}
