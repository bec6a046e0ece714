// SPDX-License-Identifier: GPL-3.0-or-later

import BeatMapKit
import Foundation
import TestSynth
import Testing

@testable import BeatAnalysis

/// The learned kick and snare detector (`DrumBands`, `DrumDetector`) and the check that moves the beats
/// onto the drums when they sit clearly between them.
@Suite("Drum detector")
struct DrumDetectorTests {
    /// A drum pattern at 22.05 kHz (no resampler between it and the detector): at 120 BPM from 0.5 s,
    /// kick on the beats, snare on every other beat, hi-hats on the eighths.
    static func pattern() -> (track: SynthTrack, beats: [Double]) {
        TestTracks.drums(bpm: 120, start: 0.5, duration: 8, sampleRate: AnalysisFrame.analysisSampleRate)
    }

    /// The detector's frames of `track`, through the streaming pass.
    static func frames(of track: SynthTrack) throws -> DrumFrames {
        let folder = try TestTracks.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("drums.wav")
        try WAVWriter.write(track, to: url)
        return try AudioAnalyzer().analyze(url).drums
    }

    /// What `tools/learned/drums.py reference` prints for ``pattern()`` written as a 16-bit WAV: kick
    /// plus snare at its first 48 frames above 0.05 and every 50th frame (the network in Python, on
    /// its own float features): written
    /// with `WAVWriter.write(pattern().track, to:)` and read by `drums.py reference FILE`.
    static let reference: [(frame: Int, drums: Float)] = [
        (0, 0.0000),
        (42, 1.0000),
        (43, 1.0000),
        (50, 0.0000),
        (64, 0.0569),
        (85, 1.0000),
        (86, 1.0104),
        (100, 0.0000),
        (128, 1.0000),
        (129, 1.0000),
        (150, 0.0065),
        (171, 1.0000),
        (172, 1.0017),
        (200, 0.0000),
        (214, 1.0000),
        (215, 1.0000),
        (250, 0.0000),
        (257, 0.9999),
        (258, 1.0066),
        (279, 0.4067),
        (300, 1.0000),
        (301, 1.0000),
        (322, 0.4145),
        (343, 0.9986),
        (344, 1.0020),
        (350, 0.0000),
        (365, 0.0687),
        (386, 1.0000),
        (387, 1.0000),
        (388, 0.1580),
        (400, 0.0000),
        (408, 0.1961),
        (429, 0.9648),
        (430, 1.0000),
        (450, 0.0000),
        (472, 1.0000),
        (473, 1.0000),
        (474, 0.9958),
        (500, 0.0000),
        (515, 0.9394),
        (516, 1.0000),
        (550, 0.0000),
        (558, 0.9998),
        (559, 1.0000),
        (560, 1.0000),
        (600, 0.0000),
        (602, 1.0000),
        (645, 0.9999),
        (646, 1.0000),
        (650, 0.0000),
    ]

    @Test("the port gives the Python network's kick and snare on the same audio, within the bytes' rounding")
    func matchesPython() throws {
        var frames = try Self.frames(of: Self.pattern().track)
        try #require(!Self.reference.isEmpty)
        for (frame, expected) in Self.reference {
            try #require(frame < frames.count)
            #expect(abs(frames.drums(at: frame) - expected) < 0.05, "frame \(frame)")
        }
    }

    @Test("the detector fires at the kicks and snares and stays low between them")
    func firesOnTheDrums() throws {
        let (track, beats) = Self.pattern()
        var frames = try Self.frames(of: track)
        let hop = AnalysisFrame.analysis.hopDuration
        var onBeats: [Float] = []
        var between: [Float] = []
        for beat in beats.dropFirst().dropLast() {
            onBeats.append(try #require(DrumDetector.strength(&frames, at: beat, frameDuration: hop)))
            between.append(try #require(DrumDetector.strength(&frames, at: beat + 0.25, frameDuration: hop)))
        }
        let onMean = onBeats.reduce(0, +) / Float(onBeats.count)
        let betweenMean = between.reduce(0, +) / Float(between.count)
        #expect(onMean > 0.8, "kick plus snare on the beats \(onMean)")
        #expect(betweenMean < onMean / 2, "between the beats \(betweenMean), on them \(onMean)")
    }

    /// Frames (hop 10 ms) with kick plus snare 1 at the points `fraction` of the way through each of
    /// `beats`' intervals and 0.1 elsewhere.
    static func frames(_ beats: [Double], drumsAt fraction: Double) -> DrumFrames {
        var values = [Float](repeating: 0.1, count: Int(((beats.last ?? 0) + 2) / 0.01))
        for (beat, next) in zip(beats, beats.dropFirst()) {
            values[Int(((beat + fraction * (next - beat)) / 0.01).rounded())] = 1
        }
        return DrumFrames(kicks: values, snares: [Float](repeating: 0, count: values.count))
    }

    static let beats = (0..<40).map { 1 + Double($0) * 0.5 }

    /// Where the drums sit (a fraction of each beat) and the shift the check should give.
    static let placements: [(drumsAt: Double, shift: Double?)] = [
        (0.5, 0.5), (1.0 / 3.0, 1.0 / 3.0), (2.0 / 3.0, 2.0 / 3.0), (0, nil),
    ]

    @Test(
        "the check moves the beats by the fraction of a beat where the drums are, and keeps beats on them",
        arguments: placements)
    func check(drumsAt fraction: Double, expected: Double?) {
        var frames = Self.frames(Self.beats, drumsAt: fraction)
        let shift = DrumDetector.betterShift(of: Self.beats, frames: &frames, frameDuration: 0.01)
        #expect(shift.map { abs($0 - (expected ?? -1)) < 1e-9 } ?? (expected == nil))
    }

    @Test("the check reads no fewer than 8 beats, and only those of the first five minutes")
    func checkNeedsBeats() {
        var frames = Self.frames(Self.beats, drumsAt: 0.5)
        #expect(DrumDetector.betterShift(of: Array(Self.beats.prefix(7)), frames: &frames, frameDuration: 0.01) == nil)
        let late = Self.beats.map { $0 + DrumBands.span }
        #expect(DrumDetector.betterShift(of: late, frames: &frames, frameDuration: 0.01) == nil)
    }

    /// Frames (hop 10 ms) with a kick of `strength` at each of `fractions` of the way through each of
    /// `beats`' intervals (0 is the beat; a negative fraction is that far back into the interval
    /// before) and 0.02 elsewhere; the strengths vary a little from beat to beat.
    static func kickFrames(_ beats: [Double], at fractions: [Double], strength: Float = 0.9) -> DrumFrames {
        var values = [Float](repeating: 0.02, count: Int(((beats.last ?? 0) + 2) / 0.01))
        for (index, (beat, next)) in zip(beats, beats.dropFirst()).enumerated() {
            for fraction in fractions {
                let time = beat + fraction * (next - beat)
                values[Int((time / 0.01).rounded())] = strength - (index.isMultiple(of: 3) ? 0.05 : 0)
            }
        }
        return DrumFrames(kicks: values, snares: [Float](repeating: 0, count: values.count))
    }

    @Test("a grid on the first of two kicks a sixteenth apart moves a quarter of a beat, onto the second")
    func pickupMoves() {
        // Samba's bass drum read a sixteenth early: kicks on the beats and a quarter of a beat after.
        var early = Self.kickFrames(Self.beats, at: [0, 0.25])
        #expect(DrumDetector.betterShift(of: Self.beats, frames: &early, frameDuration: 0.01) == nil)
        // Measured within a frame of a straight sixteenth, the move is exactly a quarter.
        #expect(DrumDetector.pickupShift(of: Self.beats, frames: &early, frameDuration: 0.01) == 0.25)
    }

    @Test(
        "a grid on a swung pickup moves by the pickup's own distance, not a quarter of a beat",
        arguments: [1.0 / 6.0, 0.2])
    func swungPickupMoves(distance: Double) throws {
        // A bossa's kick pair with its sixteenths swung: the pickup a sixth (a triplet's) or a fifth of
        // a beat before the beat, read by a grid on the pickups.
        var early = Self.kickFrames(Self.beats, at: [0, distance])
        #expect(DrumDetector.betterShift(of: Self.beats, frames: &early, frameDuration: 0.01) == nil)
        let shift = try #require(DrumDetector.pickupShift(of: Self.beats, frames: &early, frameDuration: 0.01))
        #expect(abs(shift - distance) <= 0.02)
    }

    @Test("a right swung grid stays: its pickup comes before it, its swung sixteenth a third of a beat after")
    func swungGridStays() {
        var pickup = Self.kickFrames(Self.beats, at: [-1.0 / 6.0, 0])
        #expect(DrumDetector.pickupShift(of: Self.beats, frames: &pickup, frameDuration: 0.01) == nil)
        var after = Self.kickFrames(Self.beats, at: [0, 1.0 / 3.0])
        #expect(DrumDetector.pickupShift(of: Self.beats, frames: &after, frameDuration: 0.01) == nil)
    }

    /// Kicks (where, how strong) that keep a grid where it is.
    static let pickupKept: [(fractions: [Double], strength: Float)] = [
        ([-0.25, 0], 0.9), ([-0.25, 0, 0.25, 0.5], 0.9), ([0, 0.25], 0.3),
    ]

    @Test(
        "a grid after its pickup, on kicks alike every sixteenth, or with a weak second kick stays",
        arguments: pickupKept)
    func pickupStays(fractions: [Double], strength: Float) {
        var frames = Self.kickFrames(Self.beats, at: fractions, strength: strength)
        #expect(DrumDetector.pickupShift(of: Self.beats, frames: &frames, frameDuration: 0.01) == nil)
    }

    @Test("the pickup reads no fewer than 8 beats")
    func pickupNeedsBeats() {
        var frames = Self.kickFrames(Self.beats, at: [0, 0.25])
        #expect(DrumDetector.pickupShift(of: Array(Self.beats.prefix(7)), frames: &frames, frameDuration: 0.01) == nil)
    }

    /// A bossa's beats drifting ±3 % around 120 BPM, from 1 s on (music played without a click).
    static let drifting: [Double] = {
        var beats = [1.0]
        for index in 1..<80 {
            beats.append(beats[index - 1] + 0.5 / (1 + 0.03 * sin(2 * Double.pi * Double(index) / 48)))
        }
        return beats
    }()

    @Test("followed beats move a quarter of a beat only over the stretch that sits on the pickup")
    func pickupRuns() throws {
        // The bass drum on each beat and on the sixteenth before it; the tracker took the pickup for
        // the beat over beats 20 to 49 and followed the beat elsewhere.
        let truth = Self.drifting
        var frames = Self.kickFrames(truth, at: [-0.25, 0])
        let tracked = truth.indices.map { index in
            (20..<50).contains(index) ? truth[index] - 0.25 * (truth[index] - truth[index - 1]) : truth[index]
        }
        // Read as one, the stretch neither holds nor fails the pickup.
        #expect(DrumDetector.pickupShift(of: tracked, frames: &frames, frameDuration: 0.01) == nil)
        let runs = DrumDetector.pickupRuns(of: tracked, frames: &frames, frameDuration: 0.01)
        #expect(runs.count == 1)
        let run = try #require(runs.first)
        #expect(run.lowerBound == 20)
        #expect((49...50).contains(run.upperBound))
        // Beats on the beat throughout, or kicks alike on every sixteenth: nothing moves.
        #expect(DrumDetector.pickupRuns(of: truth, frames: &frames, frameDuration: 0.01).isEmpty)
        var everySixteenth = Self.kickFrames(truth, at: [-0.25, 0, 0.25, 0.5])
        #expect(DrumDetector.pickupRuns(of: tracked, frames: &everySixteenth, frameDuration: 0.01).isEmpty)
        // A stretch shorter than two bars is left as it is.
        let brief = truth.indices.map { index in
            (20..<26).contains(index) ? truth[index] - 0.25 * (truth[index] - truth[index - 1]) : truth[index]
        }
        #expect(DrumDetector.pickupRuns(of: brief, frames: &frames, frameDuration: 0.01).isEmpty)
    }

    @Test("the pickup's distance is measured where a kick peaks inside its window, a quarter otherwise")
    func pickupDistance() {
        var swung = Self.kickFrames(Self.beats, at: [0, 0.2])
        #expect(abs(DrumDetector.pickupDistance(of: Self.beats, frames: &swung, frameDuration: 0.01) - 0.2) <= 0.02)
        // The swung sixteenth after a right beat lies outside the window; no kick after the beat at all.
        var after = Self.kickFrames(Self.beats, at: [0, 1.0 / 3.0])
        #expect(DrumDetector.pickupDistance(of: Self.beats, frames: &after, frameDuration: 0.01) == DrumDetector.pickup)
        var alone = Self.kickFrames(Self.beats, at: [0])
        #expect(DrumDetector.pickupDistance(of: Self.beats, frames: &alone, frameDuration: 0.01) == DrumDetector.pickup)
    }

    /// Frames (hop 10 ms) where the drums lean to the midpoints of `beats`: kick plus snare 0.5 on each
    /// beat and, in turn, 0.7 or 0.4 halfway to the next (a mean lead of 0.05, no beat-by-beat margin).
    static func leaningFrames(_ beats: [Double]) -> DrumFrames {
        var values = [Float](repeating: 0.1, count: Int(((beats.last ?? 0) + 2) / 0.01))
        for (index, (beat, next)) in zip(beats, beats.dropFirst()).enumerated() {
            values[Int((beat / 0.01).rounded())] = 0.5
            values[Int((((beat + next) / 2) / 0.01).rounded())] = index.isMultiple(of: 2) ? 0.7 : 0.4
        }
        return DrumFrames(kicks: values, snares: [Float](repeating: 0, count: values.count))
    }

    @Test("drums that lean to the midpoints below the margin move a grid only where the tracker left its phase")
    func unchosenPhase() {
        var frames = Self.leaningFrames(Self.beats)
        #expect(DrumDetector.betterShift(of: Self.beats, frames: &frames, frameDuration: 0.01) == nil)
        let half = DrumDetector.betterShift(of: Self.beats, frames: &frames, frameDuration: 0.01, phaseUnchosen: true)
        #expect(half == 0.5)
        // Drums on the beats keep them, however unchosen the phase.
        var onBeats = Self.frames(Self.beats, drumsAt: 0)
        #expect(
            DrumDetector.betterShift(of: Self.beats, frames: &onBeats, frameDuration: 0.01, phaseUnchosen: true) == nil)
    }

    @Test("the tracker leaves the phase unchosen when a third or more of its beats sit on either side")
    func trackerLeftThePhase() {
        let written = Self.beats
        let midpoints = zip(written, written.dropFirst()).map { ($0 + $1) / 2 }
        // 26 beats on the grid (a few milliseconds off), 13 on its midpoints: a third.
        let split = written.prefix(26).map { $0 + 0.004 } + midpoints.suffix(13)
        #expect(DrumDetector.trackerLeftThePhase(split, written: written))
        // 30 on the grid and 9 on the midpoints: the tracker chose, and strayed for a break.
        let strayed = written.prefix(30).map { $0 - 0.004 } + midpoints.suffix(9)
        #expect(!DrumDetector.trackerLeftThePhase(strayed, written: written))
        // Every tracked beat on the midpoints (a grid the kick moved onto the beat) is a choice too.
        #expect(!DrumDetector.trackerLeftThePhase(midpoints, written: written))
        // Beats a quarter of a beat out count for neither side.
        #expect(!DrumDetector.trackerLeftThePhase(written.map { $0 + 0.125 }, written: written))
    }

    @Test("a grid moves by its own beat's fraction and keeps its tempo; beats moved past the end go")
    func shiftedSegments() throws {
        let grid = FittedSegment(bpm: 120, firstBeat: 1, beats: [1, 1.5, 2, 2.5])
        let followed = [
            FittedSegment(bpm: 60, firstBeat: 3, beats: [3]), FittedSegment(bpm: 120, firstBeat: 4, beats: [4]),
        ]
        let moved = GridFitter.shifted([grid] + followed, by: [0.5, 0.5, 0.5], duration: 4.2)
        try #require(moved.count == 2)
        #expect(moved[0] == FittedSegment(bpm: 120, firstBeat: 1.25, beats: [1.25, 1.75, 2.25, 2.75]))
        #expect(moved[1] == FittedSegment(bpm: 60, firstBeat: 3.5, beats: [3.5]))
    }

    @Test("each segment moves by its own fraction; a beat moved too near the next segment's first goes")
    func shiftedEachSegment() throws {
        let slow = FittedSegment(bpm: 60, firstBeat: 0, beats: [0, 1, 2, 3])
        let fast = FittedSegment(bpm: 120, firstBeat: 3.5, beats: [3.5, 4, 4.5])
        let moved = GridFitter.shifted([slow, fast], by: [2.0 / 3.0, nil], duration: 10)
        try #require(moved.count == 2)
        // 3⅔ s would come after the fast grid's first beat, 3.5 s: it goes.
        #expect(moved[0].beats.count == 3)
        #expect(abs(moved[0].firstBeat - 2.0 / 3.0) < 1e-12)
        #expect(abs((moved[0].beats.last ?? 0) - 8.0 / 3.0) < 1e-12)
        #expect(moved[1] == fast)
        let other = GridFitter.shifted([slow, fast], by: [nil, 0.5], duration: 10)
        #expect(other == [slow, FittedSegment(bpm: 120, firstBeat: 3.75, beats: [3.75, 4.25, 4.75])])
    }

    @Test("compact floats keep 8 significant bits, the full range and NaN")
    func compactFloats() {
        let values: [Float] = [0, 1, -2.5, 1e-30, 3e30, 0.1, 123.456]
        let compact = CompactFloats(values)
        #expect(compact.count == values.count)
        for (stored, value) in zip(compact, values) {
            #expect(abs(stored - value) <= abs(value) / 256, "\(value) → \(stored)")
        }
        #expect(CompactFloats([Float.nan])[0].isNaN)
    }
}
