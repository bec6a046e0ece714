// SPDX-License-Identifier: GPL-3.0-or-later

import Foundation

@testable import BeatAnalysis

/// Onset curves drawn by hand for the grid tests.
enum OnsetCurves {
    /// An onset curve (hop 10 ms, `seconds` long) with a three-hop peak at each onset: its `height` at
    /// the onset's hop, half of it either side.
    static func peaks(_ onsets: [(time: Double, height: Float)], seconds: Double) -> Novelty {
        let hop = 0.01
        var values = [Float](repeating: 0, count: Int((seconds / hop).rounded()))
        for (time, height) in onsets {
            let index = Int((time / hop).rounded())
            guard index >= 1, index + 1 < values.count else { continue }
            values[index] = max(values[index], height)
            values[index - 1] = max(values[index - 1], height / 2)
            values[index + 1] = max(values[index + 1], height / 2)
        }
        return Novelty(envelope: OnsetEnvelope(values: values, hopDuration: hop, startTime: 0))
    }
}
