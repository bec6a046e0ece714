// SPDX-License-Identifier: GPL-3.0-or-later

import Foundation

/// The back-beat as evidence of where a 4/4 bar starts: a downbeat is not where the snare plays.
///
/// In the music maps are made for, the snare (or the clap) plays on beats 2 and 4 of a 4/4 bar, the
/// back-beat; in a half-time feel on 3 alone; hardly ever on 1 and 3 and not on 2 and 4. So where the
/// learned detector (``DrumDetector``) finds the snare clearly on two beats of each bar a half bar
/// apart, the chosen downbeats and beat 3, and clearly less on the two between them, the bars are a
/// beat out: their downbeats are the back-beat. The bar features (kick, bass, harmony) cannot see
/// this where the kick falls on every beat or the chords change every two beats (blues and shuffles,
/// where bars came out a beat early; docs/bars.md, session 40).
///
/// The evidence is a paired t statistic over the bars: for each bar, the weaker snare of its beats 1
/// and 3 less the stronger of its beats 2 and 4. It has to reach ``DrumDetector/minimumT``, the drum
/// check's own margin. A half-time snare (on 3 alone) leaves beat 1 weak, a back-beat leaves both
/// weak, a snare on every beat leaves the difference near 0: none of them moves the bars.
enum BackBeat {
    /// Fewest whole bars whose snare is read: eight, as many as a tempo segment needs beats in bars.
    static let minimumBars = 8

    /// Whether `snares` (the snare's strength at each beat, `nil` where the detector did not read)
    /// put the back-beat on the downbeats of 4/4 bars whose first downbeat is beat `phase`, and on
    /// the beats a half bar after them.
    static func onTheDownbeats(_ snares: [Float?], phase: Int) -> Bool {
        let differences = fours(snares, from: phase).map { Double(min($0[0], $0[2]) - max($0[1], $0[3])) }
        guard differences.count >= minimumBars else { return false }
        return PairedT.of(differences) >= DrumDetector.minimumT
    }

    /// The whole fours of `snares` from beat `phase` on (beats `phase + 4k` to `phase + 4k + 3`), those
    /// whose four beats were all read.
    static func fours(_ snares: [Float?], from phase: Int) -> [[Float]] {
        guard phase >= 0 else { return [] }
        return stride(from: phase, to: snares.count - 3, by: 4).compactMap { start in
            let four = snares[start..<(start + 4)].compactMap { $0 }
            return four.count == 4 ? four : nil
        }
    }
}
