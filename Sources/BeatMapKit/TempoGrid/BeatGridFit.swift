// SPDX-License-Identifier: GPL-3.0-or-later

public import Foundation

/// A piecewise-constant tempo map through a map's beats, for formats that store a tempo map instead of
/// beat times (StepMania, osu!, Beat Saber).
///
/// Each beat gets a whole beat number (consecutive beats differ by one, or by more across a gap of
/// missing beats). Knots are beats the tempo map passes through exactly; between two knots the tempo is
/// constant, and every beat in between lies within the tolerance of that straight line. A map whose beats
/// sit on one tempo gives one segment; a map with drifting beats gives more.
public struct BeatGridFit: Sendable, Equatable {
    /// A beat that the tempo map passes through exactly.
    public struct Knot: Sendable, Equatable {
        /// Its beat number (the first beat is 0).
        public var beat: Int
        /// Its time in seconds.
        public var time: TimeInterval
    }

    /// The beat number of each of the map's beats (the first is 0).
    public let beatNumbers: [Int]
    /// The knots, at least one; segment `i` runs from `knots[i]` to `knots[i + 1]`.
    public let knots: [Knot]
    /// Seconds per beat after the last knot (and of a one-beat map): the last segment's.
    public let finalBeatLength: TimeInterval

    /// Fits `beats` (finite, strictly increasing, at least one) with beats moving at most `tolerance`
    /// seconds. `tempo` (the map's segments, if any) guides the beat numbering across gaps.
    public init(beats: [TimeInterval], tempo: [TempoSegment]?, tolerance: TimeInterval) {
        let numbers = Self.number(
            beats, grid: tempo.flatMap { TempoGrid(segments: $0.filter { $0.bpm.isFinite && $0.bpm > 0 }) })
        beatNumbers = numbers
        var knots: [Knot] = []
        if let first = beats.first { knots.append(Knot(beat: 0, time: first)) }
        var start = 0
        while start < beats.count - 1 {
            var low = -Double.infinity
            var high = Double.infinity
            var end = start + 1
            var best = start + 1
            while end < beats.count {
                let span = Double(numbers[end] - numbers[start])
                let slope = (beats[end] - beats[start]) / span
                if slope >= low && slope <= high { best = end }
                low = max(low, (beats[end] - tolerance - beats[start]) / span)
                high = min(high, (beats[end] + tolerance - beats[start]) / span)
                if low > high { break }
                end += 1
            }
            knots.append(Knot(beat: numbers[best], time: beats[best]))
            start = best
        }
        self.knots = knots
        if knots.count >= 2 {
            let a = knots[knots.count - 2]
            let b = knots[knots.count - 1]
            finalBeatLength = (b.time - a.time) / Double(b.beat - a.beat)
        } else if let grid = tempo.flatMap({ TempoGrid(segments: $0.filter { $0.bpm.isFinite && $0.bpm > 0 }) }),
            let first = beats.first
        {
            finalBeatLength = grid.beatLength(at: first)
        } else {
            finalBeatLength = 0.5
        }
    }

    /// Seconds per beat of segment `index` (the last knot's segment uses ``finalBeatLength``).
    public func beatLength(ofSegment index: Int) -> TimeInterval {
        guard index + 1 < knots.count else { return finalBeatLength }
        return (knots[index + 1].time - knots[index].time) / Double(knots[index + 1].beat - knots[index].beat)
    }

    /// The time of beat number `beat` on the fitted tempo map.
    public func time(ofBeat beat: Double) -> TimeInterval {
        var index = 0
        while index + 1 < knots.count && Double(knots[index + 1].beat) <= beat { index += 1 }
        return knots[index].time + (beat - Double(knots[index].beat)) * beatLength(ofSegment: index)
    }

    /// Beat numbers: the first beat is 0; each interval adds one beat, or more when it spans missing
    /// beats (judged against the map's tempo when it has one, else against the recent intervals).
    static func number(_ beats: [TimeInterval], grid: TempoGrid?) -> [Int] {
        guard !beats.isEmpty else { return [] }
        var numbers = [0]
        numbers.reserveCapacity(beats.count)
        var intervals: [Double] = []
        for index in 1..<max(beats.count, 1) { intervals.append(beats[index] - beats[index - 1]) }
        let sorted = intervals.sorted()
        var typical = sorted.isEmpty ? 0.5 : sorted[sorted.count / 2]
        var recent: [Double] = []
        for index in 1..<max(beats.count, 1) {
            let interval = intervals[index - 1]
            var step = 1
            if let grid {
                let ratio = interval / grid.beatLength(at: beats[index - 1])
                if ratio.isFinite, ratio >= 1.5 { step = Int(min(ratio.rounded(), 1e6)) }
            } else {
                let ratio = interval / typical
                if ratio.isFinite, ratio >= 1.75 { step = Int(min(ratio.rounded(), 1e6)) }
            }
            numbers.append(numbers[index - 1] + step)
            if step == 1 {
                recent.append(interval)
                if recent.count > 8 { recent.removeFirst() }
                typical = recent.sorted()[recent.count / 2]
            }
        }
        return numbers
    }
}
