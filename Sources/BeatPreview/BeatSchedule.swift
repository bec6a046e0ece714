// SPDX-License-Identifier: GPL-3.0-or-later

public import BeatMapKit
public import Foundation

/// Where a beat sits in its bar.
public struct BarPosition: Sendable, Equatable {
    /// The bar, counting from 1 at the first downbeat; 0 for beats before it (a pickup).
    public var bar: Int
    /// The beat within the bar, from 1.
    public var beat: Int

    /// Beat `beat` of bar `bar`.
    public init(bar: Int, beat: Int) {
        self.bar = bar
        self.beat = beat
    }
}

/// The beats of a map as the preview plays them: sorted times, each beat's bar position, which beats
/// are accented, and the tempo at each beat.
public struct BeatSchedule: Sendable, Equatable {
    /// Beats per bar assumed for display and looping when the map does not say.
    public static let assumedBeatsPerBar = 4

    /// Finite beat times in seconds, ascending.
    public let times: [TimeInterval]
    /// Bar position of each beat.
    public let positions: [BarPosition]
    /// Whether each beat gets the accented click (only when the map gives `beatsPerBar`).
    public let accents: [Bool]
    /// Tempo at each beat in BPM (the tempo map's, or from the neighbouring beats without one).
    public let bpm: [Double]
    /// Whether bar positions come from the map's `beatsPerBar` (otherwise 4 is assumed).
    public let barsAreKnown: Bool

    /// The schedule of `map`. Bar positions and accents come from the map's bars (``BarPositions``); a
    /// map without `beatsPerBar` gets no accents, and bars of four from its first beat for display.
    public init(map: BeatMap) {
        let times = map.beats.filter(\.isFinite).sorted()
        self.times = times
        let grid = (map.tempo?.filter { $0.time.isFinite && $0.bpm.isFinite && $0.bpm > 0 }).flatMap(
            TempoGrid.init(segments:))
        var positions: [BarPosition] = []
        var accents: [Bool] = []
        var bpm: [Double] = []
        positions.reserveCapacity(times.count)
        accents.reserveCapacity(times.count)
        bpm.reserveCapacity(times.count)
        var known = false
        var bar = 0
        var previousBeatInBar = 0
        // The bar positions the map gives (``BarPositions``: segments with beatsPerBar, and the segments
        // after them counting on), for the sorted beats.
        var sorted = map
        sorted.beats = times
        sorted.tempo = grid?.segments
        let given = BarPositions.positions(of: sorted)
        for (index, t) in times.enumerated() {
            var beatInBar: Int
            var accent = false
            if let position = given[index] {
                beatInBar = position
                accent = position == 1
                known = true
            } else {
                beatInBar = index % Self.assumedBeatsPerBar + 1
            }
            // A new bar starts on its first beat, or where the beat count wraps (its first beat is missing).
            if beatInBar == 1 || beatInBar <= previousBeatInBar { bar += 1 }
            previousBeatInBar = beatInBar
            positions.append(BarPosition(bar: bar, beat: beatInBar))
            accents.append(accent)
            if let grid {
                bpm.append(grid.segments[grid.segmentIndex(at: t)].bpm)
            } else if times.count >= 2 {
                let interval = index + 1 < times.count ? times[index + 1] - t : t - times[index - 1]
                bpm.append(interval > 0 ? 60 / interval : 0)
            } else {
                bpm.append(0)
            }
        }
        self.positions = positions
        self.accents = accents
        self.bpm = bpm
        barsAreKnown = known
    }

    /// Indices of the beats of the bar that contains beat `index` (the beats from the bar's first beat
    /// up to the next bar's first beat).
    public func barRange(containing index: Int) -> Range<Int> {
        guard positions.indices.contains(index) else { return 0..<0 }
        let bar = positions[index].bar
        var start = index
        while start > 0 && positions[start - 1].bar == bar { start -= 1 }
        var end = index + 1
        while end < positions.count && positions[end].bar == bar { end += 1 }
        return start..<end
    }
}
