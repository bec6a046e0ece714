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

    /// ``positions(of:)`` with the beats before the first beat it places counted back from that one, a
    /// beat per map beat, in its bar's length: a pickup. `analyze` starts a followed map's bars at the
    /// first segment that begins on a downbeat (its first segments, a beat long each, cannot be
    /// anchored on one), so the beats before are the end of a bar no segment gives. Exports whose
    /// measures must start on a downbeat (StepMania's measure 0, osu!'s first timing point, Beat
    /// Saber's first region) place them so. Until session 100 they took the first beat for a
    /// downbeat: with osu!'s bars that start again at the same tempo, the bar checks of
    /// tools/check_interop.py failed on 49 of 214 corpus maps' exports, and on 28 after (StepMania's
    /// partial bars, which `.sm` cannot write).
    public static func positionsCountingBack(of map: BeatMap) -> [Int?] {
        var result = positions(of: map)
        guard let first = result.firstIndex(where: { $0 != nil }), first > 0, let position = result[first],
            let segments = map.tempo, let grid = TempoGrid(segments: segments)
        else { return result }
        let segment = grid.segments[grid.segmentIndex(at: map.beats[first])]
        guard let perBar = segment.beatsPerBar, perBar > 0 else { return result }
        for index in 0..<first {
            let back = position - 1 - (first - index)
            result[index] = (back % perBar + perBar) % perBar + 1
        }
        return result
    }
}
