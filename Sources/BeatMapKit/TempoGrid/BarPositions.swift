// SPDX-License-Identifier: GPL-3.0-or-later

/// The position of each beat in its bar, from the map's tempo segments.
public enum BarPositions {
    /// 1-based positions in the bar (1 = downbeat), or `nil` for a beat whose segment does not say how many
    /// beats a bar has. A segment's anchor (`time`) is taken as a downbeat.
    public static func positions(of map: BeatMap) -> [Int?] {
        guard let segments = map.tempo, let grid = TempoGrid(segments: segments) else {
            return [Int?](repeating: nil, count: map.beats.count)
        }
        return map.beats.map { beat in
            guard beat.isFinite else { return nil }
            let segment = grid.segments[grid.segmentIndex(at: beat)]
            guard let perBar = segment.beatsPerBar, perBar > 0, segment.bpm.isFinite, segment.bpm > 0 else {
                return nil
            }
            let number = ((beat - segment.time) / segment.beatLength).rounded()
            guard abs(number) < 1e12 else { return nil }
            let position = Int(number) % perBar
            return (position + perBar) % perBar + 1
        }
    }
}
