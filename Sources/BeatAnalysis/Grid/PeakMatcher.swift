// SPDX-License-Identifier: GPL-3.0-or-later

import Foundation

/// Finds the onset nearest a time (binary search over time-ordered peaks).
struct PeakMatcher {
    let peaks: [OnsetPeak]

    func nearest(to t: Double, within tolerance: Double) -> OnsetPeak? {
        var low = 0
        var high = peaks.count
        while low < high {
            let mid = (low + high) / 2
            if peaks[mid].time < t { low = mid + 1 } else { high = mid }
        }
        var best: OnsetPeak?
        for index in [low - 1, low] where index >= 0 && index < peaks.count {
            let distance = abs(peaks[index].time - t)
            if distance <= tolerance, best.map({ distance < abs($0.time - t) }) ?? true { best = peaks[index] }
        }
        return best
    }
}
