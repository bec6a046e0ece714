// SPDX-License-Identifier: GPL-3.0-or-later

import Foundation

/// Puts beats on the start of the transients they stand for, not where the onset detection function
/// peaks: a real drum's attack takes a few milliseconds, and the spectral flux peaks part-way up it
/// (on rendered General-MIDI drums, about 7 ms after the note starts), while clicks — on which the
/// detection delay is measured — have none.
///
/// The audio's energy is only known per analysis hop (11.6 ms), too coarse to see an attack in one
/// beat. But beats fall at every phase of the hop grid, so the hops around all the beats, placed by
/// their time relative to their beat, sample the average energy around a beat finely (equivalent-time
/// sampling, as a sampling oscilloscope does). Each hop's energy is the mean over the hop, so a sound
/// that starts at `τ` begins to raise it for the hop centred at `τ − hop/2`: the profile's rise begins
/// half a hop before the transient. The transient is placed where the average profile last reaches
/// a tenth of its rise, before its peak, from the level before the beats to its peak, plus half a hop.
enum TransientAlignment {
    /// Millisecond bins of the profile, from −`reach` to +`reach` ms around the beats.
    static let reach = 45
    /// The share of the rise at which the rise is taken to begin.
    static let riseFraction = 0.1
    /// Fewest beats for a profile worth trusting.
    static let minimumBeats = 16

    /// The shift (seconds, to add to every beat) that puts `beats` on their transients, or `nil` when
    /// the profile shows no clear rise. `levels` are mean squares per hop, hop `i` spanning
    /// `i × hopDuration` onwards. The shift is at most ±25 ms.
    static func shift(beats: [Double], levels: [Float], hopDuration hop: Double) -> Double? {
        guard beats.count >= minimumBeats, hop > 0 else { return nil }
        let bins = 2 * reach + 1
        var sums = [Double](repeating: 0, count: bins)
        var counts = [Int](repeating: 0, count: bins)
        let window = Double(reach) / 1000
        var used = 0
        for beat in beats {
            let first = Int(((beat - window) / hop - 0.5).rounded(.down))
            let last = Int(((beat + window) / hop - 0.5).rounded(.up))
            guard first >= 0, last < levels.count else { continue }
            // Each beat's energies relative to the loudest hop around it, so loud and quiet beats weigh
            // alike.
            var loudest: Float = 0
            for index in first...last { loudest = max(loudest, levels[index]) }
            guard loudest > 0 else { continue }
            used += 1
            for index in first...last {
                let offset = (Double(index) + 0.5) * hop - beat
                let bin = Int((offset * 1000).rounded()) + reach
                guard bin >= 0, bin < bins else { continue }
                sums[bin] += Double(levels[index] / loudest)
                counts[bin] += 1
            }
        }
        guard used >= minimumBeats else { return nil }
        // The profile, with empty bins filled from their neighbours.
        var profile = [Double?](repeating: nil, count: bins)
        for bin in 0..<bins where counts[bin] > 0 { profile[bin] = sums[bin] / Double(counts[bin]) }
        guard profile.compactMap({ $0 }).count >= bins * 2 / 3 else { return nil }
        var filled = [Double](repeating: 0, count: bins)
        for bin in 0..<bins {
            if let value = profile[bin] {
                filled[bin] = value
                continue
            }
            let left = (0..<bin).reversed().first { profile[$0] != nil }
            let right = ((bin + 1)..<bins).first { profile[$0] != nil }
            switch (left, right) {
            case (let l?, let r?):
                let fraction = Double(bin - l) / Double(r - l)
                filled[bin] = (profile[l] ?? 0) * (1 - fraction) + (profile[r] ?? 0) * fraction
            case (let l?, nil): filled[bin] = profile[l] ?? 0
            case (nil, let r?): filled[bin] = profile[r] ?? 0
            case (nil, nil): return nil
            }
        }
        let smooth = filled
        // The level before the beats (−45…−30 ms) and the peak after the rise begins (−20…+30 ms).
        let before = smooth[0...(reach - 30)].reduce(0, +) / Double(reach - 29)
        let peakRange = (reach - 20)...(reach + 30)
        guard let peak = smooth[peakRange].max(), peak > before * 1.5 else { return nil }
        let threshold = before + riseFraction * (peak - before)
        guard let peakBin = peakRange.first(where: { smooth[$0] == peak }) else { return nil }
        // The last crossing of the threshold before the peak.
        var crossing: Double?
        var bin = peakBin
        while bin > 0 {
            if smooth[bin - 1] < threshold, smooth[bin] >= threshold {
                let fraction = (threshold - smooth[bin - 1]) / (smooth[bin] - smooth[bin - 1])
                crossing = Double(bin - 1) + fraction
                break
            }
            bin -= 1
        }
        guard let crossing else { return nil }
        let shift = (crossing - Double(reach)) / 1000 + hop / 2
        return abs(shift) <= 0.025 ? shift : nil
    }
}
