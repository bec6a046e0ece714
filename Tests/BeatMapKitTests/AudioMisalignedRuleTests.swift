// SPDX-License-Identifier: GPL-3.0-or-later

import Foundation
import TestSynth
import Testing

@testable import BeatMapKit

/// `audio-misaligned`'s search for the shift that puts most beats on an onset
/// (``AudioMisalignedRule/matchCounts(beats:sortedOnsets:steps:)``) reads each beat's reachable onsets
/// only; its counts must be those of asking every beat at every shift for its nearest onset.
@Suite("audio-misaligned: the shift search")
struct AudioMisalignedRuleTests {
    /// The plain search: at each shift, each beat's nearest onset and the window.
    static func plainCounts(beats: [Double], sortedOnsets sorted: [Double], steps: Int) -> [Int] {
        (0...(2 * steps)).map { step in
            let shift = Double(step - steps) / 1000
            return beats.filter { beat in
                let t = beat + shift
                return abs(sorted[SortedSearch.nearest(sorted, t).index] - t) <= AudioMisalignedRule.matchWindow
            }.count
        }
    }

    /// Beats every `interval` from 0.5 s, jittered; onsets near them (some missing, some extra), some
    /// exactly on a shift's edge of the window.
    static func example(seed: UInt64, interval: Double) -> (beats: [Double], onsets: [Double]) {
        var random = SeededRandom(seed: seed)
        var beats: [Double] = []
        var onsets: [Double] = []
        for index in 0..<120 {
            let beat = 0.5 + Double(index) * interval + Double(random.signed()) * 0.004
            beats.append(beat)
            switch random.next() % 6 {
            case 0: break  // no onset for this beat
            case 1: onsets.append(beat + 0.030 + 0.010)  // on the window's edge at a 30 ms shift
            case 2: onsets += [beat + 0.02 + Double(random.signed()) * 0.01, beat + interval / 2]
            default: onsets.append(beat + 0.02 + Double(random.signed()) * 0.015)
            }
        }
        return (beats, onsets.sorted())
    }

    @Test("the counts at every shift equal the plain search's", arguments: [1, 2, 3, 4, 5, 6, 7, 8] as [UInt64])
    func sameCounts(seed: UInt64) {
        let (beats, onsets) = Self.example(seed: seed, interval: 0.3 + Double(seed) * 0.05)
        let steps = Int((AudioMisalignedRule.searchRange * 1000).rounded())
        let counts = AudioMisalignedRule.matchCounts(beats: beats, sortedOnsets: onsets, steps: steps)
        #expect(counts == Self.plainCounts(beats: beats, sortedOnsets: onsets, steps: steps))
        #expect(counts.contains { $0 > 0 })
    }

    @Test("beats out of order and far from every onset count as the plain search counts them")
    func unorderedAndFar() {
        let beats = [4.0, 1.0, 100.0, 2.5, 2.5]
        let onsets = [1.02, 2.48, 2.52, 4.1]
        let steps = 100
        let counts = AudioMisalignedRule.matchCounts(beats: beats, sortedOnsets: onsets, steps: steps)
        #expect(counts == Self.plainCounts(beats: beats, sortedOnsets: onsets, steps: steps))
        // At +20 ms the beat at 1 s meets 1.02, and both beats at 2.5 s meet 2.52: three.
        #expect(counts[steps + 20] == 3)
    }
}
