// SPDX-License-Identifier: GPL-3.0-or-later

import Foundation

/// Beats that do not hang on the tracker's two settings.
///
/// Where the tempo moves, which beats ``BeatTracker`` follows can turn on its settings: halve or double
/// its tempo-change stiffness or its onset odds and a drifting house copy's tracker leaves the beat for
/// the off-beats for a minute, or comes back to it (docs/analyze.md, session 27). A choice that flips
/// when a setting moves by a factor of two is not evidence about the music. So the tracker is run at
/// Krebs, Böck and Widmer's settings and at half and twice each of them, one at a time, and the run
/// that agrees most with the others is kept — the "maximum mutual agreement" of Zapata, Davies and
/// Gómez's committee of beat trackers (2014), whose members differ in their onset features where ours
/// differ in their settings. Agreement is the F-measure of two runs' beats at ±70 ms, the tolerance
/// the beats are judged at. Ties keep the earlier member, so a committee that cannot tell keeps the
/// first one's beats: the tracker at its own settings.
///
/// Where the beats tracked at those settings keep one tempo (``isSteady(_:)``) the other members are
/// not run: there the committee has nothing to settle, and a steady song costs what it did.
enum TrackerCommittee {
    /// The members: Krebs et al.'s settings first (λ = 100, onset odds 16), then each halved and
    /// doubled on its own.
    static let members: [BeatTracker] = [
        BeatTracker(),
        BeatTracker(transitionLambda: 50),
        BeatTracker(transitionLambda: 200),
        BeatTracker(observationLambda: 8),
        BeatTracker(observationLambda: 32),
    ]

    /// Two runs agree on a beat that lies within this many seconds of one of the other run's: the
    /// evaluation's ±70 ms.
    static let tolerance = 0.07

    /// The furthest an interval of steady beats lies from their median interval, as a fraction:
    /// ``GridFitter/slipDeviation``, the step by which the slip repair tells a tracker's detour.
    static let steadyDeviation = GridFitter.slipDeviation

    /// Whether every interval of `beats` lies within ``steadyDeviation`` of their median interval.
    static func isSteady(_ beats: [Double]) -> Bool {
        let intervals = zip(beats.dropFirst(), beats).map { $0 - $1 }
        guard !intervals.isEmpty else { return true }
        let median = intervals.sorted()[intervals.count / 2]
        guard median > 0 else { return true }
        return intervals.allSatisfy { abs($0 - median) <= steadyDeviation * median }
    }

    /// The F-measure of `a` against `b` (both increasing): twice the beats paired within `tolerance`
    /// (each beat paired at most once) over both counts.
    static func agreement(_ a: [Double], _ b: [Double], tolerance: Double = Self.tolerance) -> Double {
        guard !a.isEmpty, !b.isEmpty else { return 0 }
        var i = 0
        var j = 0
        var paired = 0
        while i < a.count, j < b.count {
            if abs(a[i] - b[j]) <= tolerance {
                paired += 1
                i += 1
                j += 1
            } else if a[i] < b[j] {
                i += 1
            } else {
                j += 1
            }
        }
        return 2 * Double(paired) / Double(a.count + b.count)
    }

    /// The index of the run whose summed ``agreement(_:_:tolerance:)`` with the others is highest; the
    /// earliest on a tie. 0 for fewer than three runs, where no run can be outvoted.
    static func mostAgreed(_ runs: [[Double]]) -> Int {
        guard runs.count >= 3 else { return 0 }
        var best = 0
        var bestScore = -Double.infinity
        for i in runs.indices {
            var score = 0.0
            for j in runs.indices where j != i { score += agreement(runs[i], runs[j]) }
            if score > bestScore + 1e-12 {
                bestScore = score
                best = i
            }
        }
        return best
    }
}
