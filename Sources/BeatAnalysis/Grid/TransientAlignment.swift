// SPDX-License-Identifier: GPL-3.0-or-later

import Foundation

/// Puts beats on the start of the transients they stand for, not where the onset detection function
/// peaks: a real drum's attack takes a few milliseconds, and the spectral flux peaks part-way up it,
/// while clicks — on which the detection delay is measured — have none.
///
/// It reads the audio around the fitted beats at a fine resolution: the energy of the analysis-rate
/// signal's second difference in blocks of ``blockSize`` samples (0.73 ms; ``AudioAnalysis/blockLevels``),
/// summed over a trailing window of ``windowBlocks`` blocks. Each beat's curve is normalised to its own
/// loudest point, read at the same offsets from every beat (``binWidth`` apart, interpolated between
/// blocks) and averaged in the log domain; the transient is placed where that average rises fastest.
///
/// Why each part:
/// - **The second difference** (a high-pass, +12 dB per octave) keeps a drum's attack and drops the bass
///   and the kick's own low tone, whose waveform, repeated on every beat at the same phase, would
///   otherwise write its ripple into the average: only the broadband start of a hit is left.
/// - **The steepest rise of the log energy**: a hit that starts at `τ` and grows as `A(t − τ)²` (an
///   amplitude ramp) over a floor `F` raises `log(F + A(t − τ)²)` fastest where its energy reaches the
///   floor, whatever its loudness or attack time. The floor is ``floorShare`` (1 %, −20 dB) of the
///   beat's loudest energy, or what sounds before the hit when that is louder, so the rise is placed
///   where the hit reaches a tenth of its peak amplitude — the convention by which the corpus measures a
///   transient's start — and a precursor far below it (the resampler's pre-ringing, a codec's pre-echo)
///   does not move it. Where two rises are about as steep (a layered hit), the first is taken
///   (``equalRise``). A threshold on the rise itself (a tenth of it) would depend on the level before
///   the beats, which the mix and the codec move: the steepest rise does not.
/// - **A trailing window** keeps the steepest rise of a step at the step's start; two blocks (1.45 ms)
///   steady the energy without smearing that start.
/// - **One profile from every beat, read at the same offsets**, not binned by where each block falls:
///   in a song whose beats fall at nearly the same phase of the block grid (a MIDI tempo is often a
///   near-whole number of blocks), binning would hand each bin to a different part of the song.
enum TransientAlignment {
    /// Samples per energy block at the analysis rate (0.73 ms at 22 050 Hz).
    static let blockSize = 16
    /// Blocks in the trailing window whose energy is read.
    static let windowBlocks = 2
    /// The floor under each beat's energy, as a share of its loudest (−20 dB).
    static let floorShare = 0.01
    /// Spacing of the profile's points, seconds.
    static let binWidth = 0.000_25
    /// The profile spans −``reach``…+``reach`` seconds around the beats.
    static let reach = 0.035
    /// Where the transient is looked for, relative to the fitted beats, seconds.
    static let searchRange = -0.025...0.012
    /// Half the span over which the profile's slope is read, in points (±0.5 ms).
    static let slopeHalfWidth = 2
    /// Fewest beats for a profile worth trusting.
    static let minimumBeats = 16
    /// How close to the steepest rise an earlier one must come to be taken instead (95 %). A layered hit
    /// (two sounds a few milliseconds apart, each as sharp as the other) rises twice about as steeply,
    /// and which of the two comes out steeper is up to the codec and the mix: a game song's MP3 took
    /// the later one, 11.75 ms after its Ogg and FLAC copies, and an LMMS song and its 20-minute repeat
    /// took it, 16 ms after its 60-minute repeat. The hit starts at the first.
    static let equalRise = 0.95
    /// Least rise of the average log energy over the slope's span (1 ms) for a transient to be placed
    /// at all (0.1, 0.4 dB).
    static let minimumSlope = 0.1

    /// The shift (seconds, to add to every beat) that puts `beats` on their transients, or `nil` when
    /// the profile shows no clear rise. `blockLevels` are energies per block of `blockDuration` seconds,
    /// block `i` spanning `i × blockDuration` onwards (they may cover only the start of the audio; beats
    /// beyond them are not read).
    static func shift<Levels: RandomAccessCollection>(
        beats: [Double], blockLevels: Levels, blockDuration: Double
    ) -> Double? where Levels.Element == Float, Levels.Index == Int {
        guard beats.count >= minimumBeats, blockDuration > 0, !blockLevels.isEmpty else { return nil }
        let halfPoints = Int((reach / binWidth).rounded())
        let points = 2 * halfPoints + 1
        var profile = [Double](repeating: 0, count: points)
        var used = 0
        // The mean energy of the window of blocks ending with block `i`, placed at that block's end.
        func energy(_ i: Int) -> Double {
            var sum = 0.0
            for back in 0..<windowBlocks { sum += Double(blockLevels[i - back]) }
            return sum / Double(windowBlocks)
        }
        for beat in beats {
            let first = Int(((beat - reach) / blockDuration - 1).rounded(.down))
            let last = Int(((beat + reach) / blockDuration - 1).rounded(.up)) + 1
            guard first - windowBlocks >= 0, last < blockLevels.count else { continue }
            let energies = (first...last).map(energy)
            guard let loudest = energies.max(), loudest > 0 else { continue }
            let levels = energies.map { log($0 + floorShare * loudest) }
            used += 1
            for point in 0..<points {
                let x = (beat + Double(point - halfPoints) * binWidth) / blockDuration - 1 - Double(first)
                let index = min(levels.count - 2, max(0, Int(x.rounded(.down))))
                let fraction = x - Double(index)
                profile[point] += levels[index] * (1 - fraction) + levels[index + 1] * fraction
            }
        }
        guard used >= minimumBeats else { return nil }
        for point in 0..<points { profile[point] /= Double(used) }
        // The steepest rise within the search range.
        let lower = halfPoints + Int((searchRange.lowerBound / binWidth).rounded())
        let upper = halfPoints + Int((searchRange.upperBound / binWidth).rounded())
        let h = slopeHalfWidth
        guard lower - h - 1 >= 0, upper + h + 1 < points else { return nil }
        func slope(_ point: Int) -> Double { profile[point + h] - profile[point - h] }
        var best = lower
        for point in lower...upper where slope(point) > slope(best) { best = point }
        guard slope(best) >= minimumSlope else { return nil }
        // Of rises as steep as the steepest (within ``equalRise``), the first: a layered hit starts there.
        if let earlier = (lower..<best).first(where: { point in
            slope(point) >= equalRise * slope(best) && slope(point) >= slope(point - 1)
                && slope(point) >= slope(point + 1)
        }) {
            best = earlier
        }
        // A parabola through the slope's peak and its neighbours places it between points.
        let (a, b, c) = (slope(best - 1), slope(best), slope(best + 1))
        let curvature = a - 2 * b + c
        let vertex = curvature < 0 ? max(-0.5, min(0.5, 0.5 * (a - c) / curvature)) : 0
        let shift = (Double(best - halfPoints) + vertex) * binWidth
        return searchRange.contains(shift) ? shift : nil
    }
}
