// SPDX-License-Identifier: GPL-3.0-or-later

import Foundation

/// The learned drum detector's kick plus snare as a second observation for the beat tracker
/// (``BeatTracker``): how much more likely the detector's output at a frame is where a beat's states
/// are than anywhere else, given the onset activation the tracker already reads there, as a
/// log-likelihood ratio read off the train split's songs with exact beat truth
/// (`tools/learned/tracker_drums.py`, docs/analyze.md step 4). Conditioned on the onsets, it counts
/// only what the drums add to them: a kick is a strong onset too. The detector reads the first
/// ``DrumBands/span`` seconds; frames past them add nothing.
enum TrackerDrumEvidence {
    /// The log-likelihood ratio of a beat state for a frame whose onset activation is `onset` (0…1)
    /// and whose detector kick plus snare is `drums` (clipped to 1).
    static func logRatio(onset: Float, drums: Float) -> Double {
        let row = bin(min(1, max(0, onset)), of: onsetEdges)
        let column = bin(min(1, max(0, drums)), of: edges)
        guard logRatios.indices.contains(row), logRatios[row].indices.contains(column) else { return 0 }
        return logRatios[row][column]
    }

    /// The index of the last of `edges` at or below `value`.
    private static func bin(_ value: Float, of edges: [Float]) -> Int {
        var index = 0
        while index + 1 < edges.count, value >= edges[index + 1] { index += 1 }
        return index
    }
}
