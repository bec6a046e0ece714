// SPDX-License-Identifier: GPL-3.0-or-later

public import Foundation

/// What an audio file's drums say about any beats: `audio-misaligned` asks whether the beats its
/// offset would give sit on a pickup, `audio-offbeat` whether the drums sit between the beats,
/// `audio-metric-level` whether the snare falls on one beat in four. `BeatAnalysis` provides one from
/// the analyzer's learned kick and snare detector; the core library stays free of audio code.
public protocol DrumEvidence: Sendable {
    /// The fraction of a beat `beats` (seconds, increasing) should move later because they sit on the
    /// first of two kicks a sixteenth apart on every beat (a pickup before the beat: samba's and bossa
    /// nova's bass drum), or `nil` when they do not, or too few beats are read.
    func pickupShift(of beats: [TimeInterval]) -> Double?
    /// The fraction of a beat (⅓, ½ or ⅔) `beats` (seconds, increasing) should move later because the
    /// drums (kick and snare) sit clearly there rather than on them, or `nil` when they do not, or too
    /// few beats are read.
    func drumShift(of beats: [TimeInterval]) -> Double?
    /// Whether the snare falls on one beat in four of `beats` (seconds, increasing) or fewer, on beats of
    /// one parity: a back-beat at half their tempo or a half-time feel at theirs (a song may move from
    /// one to the other); `false` when it does not, or too few beats are read.
    func snareOnOneInFour(of beats: [TimeInterval]) -> Bool
}

/// Drum evidence from a list of kick times: for the rules' examples, whose audio is a list of onsets.
/// A kick is at a point when one lies within 20 ms of it. The beats sit on a pickup when a kick is at
/// more than half of the beats and of the points a quarter of a beat after them, and at more of the
/// points after them than of those a quarter of a beat before them by at least a quarter of the
/// beats; the drums sit half a beat on when a kick is at more than half of the midpoints and at under
/// a quarter of the beats (the analyzer reads its detector's probabilities with a paired t instead).
/// The snare falls on one beat in four when, in at least eight fours of beats, one in `snares` lies
/// within 20 ms of the same beat of each four and of none of the other three, in three of every four
/// fours.
struct KickTimesEvidence: DrumEvidence {
    /// Kick times in seconds, increasing.
    let kicks: [Double]
    /// Snare times in seconds, increasing.
    var snares: [Double] = []

    /// Whether one of `times` (increasing) lies within 20 ms of `time`.
    static func hit(in times: [Double], at time: Double) -> Bool {
        let index = SortedSearch.lowerBound(times, time - 0.02)
        return index < times.count && times[index] <= time + 0.02
    }

    /// Whether a kick lies within 20 ms of `time`.
    func kick(at time: Double) -> Bool { Self.hit(in: kicks, at: time) }

    /// Whether a snare lies within 20 ms of `time`.
    func snare(at time: Double) -> Bool { Self.hit(in: snares, at: time) }

    func snareOnOneInFour(of beats: [TimeInterval]) -> Bool {
        let fours = beats.count / 4
        guard fours >= 8 else { return false }
        return (0..<4).contains { phase in
            let alone = (0..<fours).filter { four in
                (0..<4).allSatisfy { snare(at: beats[4 * four + $0]) == ($0 == phase) }
            }
            return 4 * alone.count >= 3 * fours
        }
    }

    func drumShift(of beats: [TimeInterval]) -> Double? {
        guard beats.count >= 8 else { return nil }
        let onBeats = beats.filter { kick(at: $0) }.count
        let onMidpoints = zip(beats, beats.dropFirst()).filter { kick(at: ($0 + $1) / 2) }.count
        return 2 * onMidpoints > beats.count - 1 && 4 * onBeats < beats.count ? 0.5 : nil
    }

    func pickupShift(of beats: [TimeInterval]) -> Double? {
        guard beats.count >= 8 else { return nil }
        var (at, after, before) = (0, 0, 0)
        for index in 1..<(beats.count - 1) {
            let beat = beats[index]
            if kick(at: beat) { at += 1 }
            if kick(at: beat + 0.25 * (beats[index + 1] - beat)) { after += 1 }
            if kick(at: beat - 0.25 * (beat - beats[index - 1])) { before += 1 }
        }
        let count = beats.count - 2
        guard 2 * at > count, 2 * after > count, 4 * (after - before) >= count else { return nil }
        return 0.25
    }
}
