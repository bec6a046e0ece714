// SPDX-License-Identifier: GPL-3.0-or-later

import Foundation

@testable import BeatAnalysis

/// Bar features drawn by hand for the meter estimate's tests.
enum BarCurves {
    /// The features of `count` beats with one feature, the low band's kick: 1 on each beat whose index
    /// is `offset` modulo `period`, 0 on the others, plus a small ripple (0.05 × the index modulo 3)
    /// so that no two beats are alike; standardised as the analyzer standardises it.
    static func kick(count: Int = 64, every period: Int, at offset: Int) -> BarFeatures {
        let kick = (0..<count).map { index -> Double in
            (index % period == offset ? 1 : 0) + 0.05 * Double(index % 3)
        }
        return BarFeatures(features: [.init(name: "kick", values: BarFeatures.standardised(kick), sign: 1)])
    }
}
