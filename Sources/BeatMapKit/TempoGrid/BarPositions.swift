// SPDX-License-Identifier: GPL-3.0-or-later

/// The position of each beat in its bar, from the map's tempo segments.
public enum BarPositions {
    /// 1-based positions in the bar (1 = downbeat), or `nil` where the map does not say. A segment with
    /// `beatsPerBar` has a downbeat at its anchor (`time`) and every `beatsPerBar`-th beat of its grid
    /// from there; the beats of a segment without it that follows one with it count on from the last
    /// downbeat (one beat per map beat); before any segment with `beatsPerBar`, `nil`.
    public static func positions(of map: BeatMap) -> [Int?] {
        guard let segments = map.tempo, let grid = TempoGrid(segments: segments) else {
            return [Int?](repeating: nil, count: map.beats.count)
        }
        var result: [Int?] = []
        result.reserveCapacity(map.beats.count)
        // The last position given and the bar length it counts in, for segments without beatsPerBar.
        var last: (position: Int, perBar: Int)?
        for beat in map.beats {
            guard beat.isFinite else {
                result.append(nil)
                continue
            }
            let segment = grid.segments[grid.segmentIndex(at: beat)]
            var position: Int?
            if let perBar = segment.beatsPerBar, perBar > 0, segment.bpm.isFinite, segment.bpm > 0 {
                let number = ((beat - segment.time) / segment.beatLength).rounded()
                if abs(number) < 1e12 {
                    position = (Int(number) % perBar + perBar) % perBar + 1
                    last = (position ?? 1, perBar)
                }
            } else if segment.beatsPerBar == nil, let previous = last {
                position = previous.position % previous.perBar + 1
                last = (position ?? 1, previous.perBar)
            }
            result.append(position)
        }
        return result
    }
}
