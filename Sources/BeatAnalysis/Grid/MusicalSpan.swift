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

    /// How far over the floor before the music the rise of its first sound starts, as a factor of mean
    /// square: 10 dB, a level clearly not the floor's (``riseStart(_:from:within:loud:)``).
    static let riseOverFloor: Float = 10
    /// The lowest level a rise is read from, as a fraction of the loud level's mean square: 90 dB down,
    /// for a render's digital silence, which has no floor to stand 10 dB above.
    static let riseLowest: Float = 1e-9

    /// Where the audio sounds: from the first to the last hop within 30 dB of its loud level (the 95th
    /// percentile of the hops' mean squares), and with `readingNoise`, where the recording ends in its
    /// own noise (``NoiseFloor``), not after the music (``NoiseFloor/clipped(_:)``). `nil` when it
    /// never does. With `risingWithin` (seconds), the start walks back from the first such hop to where
    /// its rise leaves the quiet before it, by at most that long (``riseStart(_:from:within:loud:)``).
    func soundingSpan(
        _ levels: [Float], hopDuration: Double, readingNoise: Bool = false, risingWithin reach: Double? = nil
    ) -> ClosedRange<Double>? {
        guard !levels.isEmpty else { return nil }
        guard let loud = RankSelection.value(atFraction: 0.95, of: levels), loud > 0 else { return nil }
        let threshold = loud * Self.soundingFraction
        guard let crossing = levels.firstIndex(where: { $0 >= threshold }),
            let last = levels.lastIndex(where: { $0 >= threshold })
        else { return nil }
        let first =
            reach.map {
                Self.riseStart(levels, from: crossing, within: Int(($0 / hopDuration).rounded()), loud: loud)
            } ?? crossing
        let span = (Double(first) * hopDuration)...(Double(last + 1) * hopDuration)
        guard readingNoise, let noise = NoiseFloor(levels: levels, hopDuration: hopDuration, loud: loud) else {
            return span
        }
        return noise.clipped(span)
    }

    /// The hop where the sound that first reaches the sounding level (hop `first`) starts: walking back
    /// over the hops before it, at most `hops` of them, while each stands above the rise line — 10 dB
    /// over the floor before the music (``riseOverFloor``; the quietest tenth of the hops before
    /// `first`), and not under ``riseLowest`` of `loud`. A note that fades or swells in reaches 30 dB
    /// under the loud level a beat or more after it starts; the 30 dB line says whether the file
    /// sounds, the rise says where its first note begins (session 81's trial FS).
    static func riseStart(_ levels: [Float], from first: Int, within hops: Int, loud: Float) -> Int {
        guard first > 0, first <= levels.count, hops > 0,
            let floor = RankSelection.value(atFraction: 0.1, of: levels[..<first])
        else { return first }
        let line = max(floor * riseOverFloor, loud * riseLowest)
        let earliest = max(0, first - hops)
        var start = first
        while start > earliest, levels[start - 1] > line { start -= 1 }
        return start
    }
}
