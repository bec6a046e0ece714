// SPDX-License-Identifier: GPL-3.0-or-later

import Foundation

// Where the music is: the span the beats cover.
extension GridFitter {
    /// From the first to the last onset that is at least 5 % as strong as the strong onsets (the 90th
    /// percentile), so a silent or near-silent intro and outro get no beats.
    func musicalSpan(_ peaks: [OnsetPeak], duration: Double) -> ClosedRange<Double> {
        guard let reference = RankSelection.value(atFraction: 0.9, of: peaks.lazy.map(\.strength)) else {
            return 0...duration
        }
        func significant(_ peak: OnsetPeak) -> Bool {
            peak.strength >= 0.05 * reference && peak.time >= 0 && peak.time <= duration
        }
        guard let first = peaks.first(where: significant)?.time, let last = peaks.last(where: significant)?.time,
            first < last
        else {
            return 0...duration
        }
        return first...last
    }

    /// The fraction of the loud level's mean square under which the audio is silent: 30 dB down.
    static let soundingFraction: Float = 0.001

    /// Where the audio sounds: from the first to the last hop within 30 dB of its loud level (the 95th
    /// percentile of the hops' mean squares), and with `readingNoise`, where the recording ends in its
    /// own noise (``NoiseFloor``), not after the music (``NoiseFloor/clipped(_:)``). `nil` when it
    /// never does.
    func soundingSpan(_ levels: [Float], hopDuration: Double, readingNoise: Bool = false) -> ClosedRange<Double>? {
        guard !levels.isEmpty else { return nil }
        guard let loud = RankSelection.value(atFraction: 0.95, of: levels), loud > 0 else { return nil }
        let threshold = loud * Self.soundingFraction
        guard let first = levels.firstIndex(where: { $0 >= threshold }),
            let last = levels.lastIndex(where: { $0 >= threshold })
        else { return nil }
        let span = (Double(first) * hopDuration)...(Double(last + 1) * hopDuration)
        guard readingNoise, let noise = NoiseFloor(levels: levels, hopDuration: hopDuration, loud: loud) else {
            return span
        }
        return noise.clipped(span)
    }
}
