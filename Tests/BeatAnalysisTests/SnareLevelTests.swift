// SPDX-License-Identifier: GPL-3.0-or-later

import BeatMapKit
import Foundation
import Testing

@testable import BeatAnalysis

/// The snare on one beat in four as evidence of the metric level (``DrumDetector/oneInFour(_:)``,
/// ``DrumDetector/everyOtherOfOneParity(_:)``,
/// ``GridFitter/halvedOnTheSnare(_:frames:frameDuration:)``): a back-beat at half the tempo or a
/// half-time feel at this one, the tempo estimate's prior choosing between them.
@Suite("Snare level")
struct SnareLevelTests {
    @Test("a snare on one beat in four gives that beat; a back-beat, every beat, none or a few fours give none")
    func oneInFour() {
        // Hip-hop read at twice its tempo: the snare on beat 2 of each four.
        #expect(DrumDetector.oneInFour(BackBeatTests.snares([0.1, 0.9, 0.1, 0.1])) == 1)
        #expect(DrumDetector.oneInFour(BackBeatTests.snares([0.05, 0.1, 0.1, 0.85])) == 3)
        // A back-beat at this level (2 and 4), a snare on every beat, no snare: nothing stands out alone.
        #expect(DrumDetector.oneInFour(BackBeatTests.snares([0.1, 0.8, 0.1, 0.8])) == nil)
        #expect(DrumDetector.oneInFour(BackBeatTests.snares([0.8, 0.8, 0.8, 0.8])) == nil)
        #expect(DrumDetector.oneInFour(BackBeatTests.snares([0, 0, 0, 0])) == nil)
        // Seven fours are too few to read.
        #expect(DrumDetector.oneInFour(BackBeatTests.snares([0.1, 0.9, 0.1, 0.1], count: 28)) == nil)
        // Beats the detector did not read are left out, not read as silence.
        var gaps = BackBeatTests.snares([0.1, 0.9, 0.1, 0.1], count: 96)
        for index in stride(from: 2, to: gaps.count, by: 8) { gaps[index] = nil }
        #expect(DrumDetector.oneInFour(gaps) == 1)
    }

    /// A hip-hop song read at twice its tempo, as the composed song-0078 is: the snare on the first of
    /// every eight beats for 32 beats, then on the third of every four for 32, and so on.
    static let changingSnare: [Float?] = (0..<4).flatMap { section -> [Float?] in
        let pattern: [Float] = section % 2 == 0 ? [0.95, 0, 0, 0, 0, 0, 0, 0] : [0, 0, 0.95, 0]
        return (0..<32).map { pattern[$0 % pattern.count] + Float(($0 * 7) % 5) * 0.01 }
    }

    @Test("a snare on every other or every fourth beat of one parity gives that parity, section by section")
    func everyOtherOfOneParity() {
        // No one beat of the four carries it over the song, so the reading by fours finds nothing.
        #expect(DrumDetector.oneInFour(Self.changingSnare) == nil)
        #expect(DrumDetector.everyOtherOfOneParity(Self.changingSnare) == 0)
        #expect(DrumDetector.oneInFourOrFewer(Self.changingSnare) == 0)
        #expect(DrumDetector.oneInFourOrFewer([nil] + Self.changingSnare) == 1)
        // A half-time snare on one beat of each four holds too.
        #expect(DrumDetector.everyOtherOfOneParity(BackBeatTests.snares([0.1, 0.9, 0.1, 0.1])) == 1)
        // A back-beat at this level (every beat of one parity), a snare on every beat, none: nothing.
        #expect(DrumDetector.everyOtherOfOneParity(BackBeatTests.snares([0.1, 0.8, 0.1, 0.8])) == nil)
        #expect(DrumDetector.everyOtherOfOneParity(BackBeatTests.snares([0.8, 0.8, 0.8, 0.8])) == nil)
        #expect(DrumDetector.everyOtherOfOneParity(BackBeatTests.snares([0, 0, 0, 0])) == nil)
        #expect(DrumDetector.oneInFourOrFewer(BackBeatTests.snares([0.1, 0.8, 0.1, 0.8])) == nil)
        // Thirty-two beats give twelve steps along a parity: too few to read.
        #expect(DrumDetector.everyOtherOfOneParity(Array(Self.changingSnare.prefix(32))) == nil)
    }

    @Test(
        "half the tempo is taken only where it lies nearer the prior's centre (109.5 BPM) and within the limits",
        arguments: [
            // Hip-hop and funk read at twice their tempo.
            (162.0, true), (198.0, true), (180.0, true),
            // Trap and a 140 BPM song with a half-time snare, a 120 BPM song: their halves lie further.
            (140.0, false), (120.0, false), (136.0, false),
            // A 95 BPM recording: its half is under the limits.
            (95.0, false),
        ] as [(Double, Bool)])
    func prefersHalf(bpm: Double, halves: Bool) {
        #expect(GridFitter().prefers(bpm / 2, to: bpm) == halves)
    }

    @Test(
        "twice the tempo is taken only where it lies nearer the prior's centre and within the limits",
        arguments: [
            // A rock song at 136 and a metal song at 147 read at half: twice lies nearer.
            (68.0, true), (73.5, true),
            // Half a 170 BPM metal song, and an 87 BPM song: twice lies further from 109.5 BPM.
            (85.0, false), (87.0, false),
            // Twice 110 BPM is over the limits.
            (110.0, false),
        ] as [(Double, Bool)])
    func prefersDouble(bpm: Double, doubles: Bool) {
        #expect(GridFitter().prefers(bpm * 2, to: bpm) == doubles)
    }

    /// A grid of `count` beats at `bpm` from `start` seconds.
    static func grid(bpm: Double, from start: Double, count: Int) -> FittedSegment {
        let beats = (0..<count).map { start + Double($0) * 60 / bpm }
        return FittedSegment(bpm: bpm, firstBeat: start, beats: beats)
    }

    /// Frames (hop 10 ms) with the snare at 0.9 on the beats of `beats` whose number modulo 4 is in
    /// `on`, and 0.05 elsewhere; no kick stands out anywhere (``drumFrames(_:kick:snare:)``).
    static func snareFrames(_ beats: [Double], on: Set<Int>) -> DrumFrames {
        drumFrames(beats, kick: [], snare: on)
    }

    @Test("the segments of a step within the tracker's reach are halved as one song, on one parity")
    func steppedSegments() throws {
        // Hip-hop at 82 read at 164, stepping up to 178 (×1.085): the snare on the second of every four
        // beats throughout. The later segment's six fours are too few to read alone.
        let first = Self.grid(bpm: 164, from: 1, count: 64)
        let last = try #require(first.beats.last)
        let second = Self.grid(bpm: 178, from: last + 60 / 178, count: 24)
        let beats = first.beats + second.beats
        var frames = Self.snareFrames(beats, on: [1])
        #expect(GridFitter().snareLevel([second], frames: &frames, frameDuration: 0.01) == nil)
        let switched = try #require(
            GridFitter().snareLevel(ofSegments: [first, second], frames: &frames, frameDuration: 0.01))
        #expect(switched.level == .half)
        try #require(switched.segments.count == 2)
        #expect(switched.segments[0].bpm == 82)
        #expect(switched.segments[1].bpm == 89)
        // One parity through the change: the beats the snare is on, every other one of the song.
        #expect(switched.segments.flatMap(\.beats) == stride(from: 1, to: beats.count, by: 2).map { beats[$0] })
        #expect(switched.segments[1].firstBeat == switched.segments[1].beats.first)
    }

    @Test("a medley's next song keeps its own level; segments the snare says nothing about are kept")
    func medleySegments() throws {
        // A hip-hop song read at 164, then a rock song at 100 (beyond the tracker's reach) with its
        // back-beat on 2 and 4 at its own level.
        let first = Self.grid(bpm: 164, from: 1, count: 64)
        let last = try #require(first.beats.last)
        let second = Self.grid(bpm: 100, from: last + 0.6, count: 64)
        var values = [Float](repeating: 0.05, count: Int(((second.beats.last ?? 0) + 2) / 0.01))
        for (index, beat) in first.beats.enumerated() where index % 4 == 1 {
            values[Int((beat / 0.01).rounded())] = 0.9
        }
        for (index, beat) in second.beats.enumerated() where index % 2 == 1 {
            values[Int((beat / 0.01).rounded())] = 0.9
        }
        var snares = DrumFrames(kicks: [Float](repeating: 0, count: values.count), snares: values)
        let switched = try #require(
            GridFitter().snareLevel(ofSegments: [first, second], frames: &snares, frameDuration: 0.01))
        #expect(switched.level == nil)
        try #require(switched.segments.count == 2)
        #expect(switched.segments[0].bpm == 82)
        #expect(switched.segments[1] == second)
        // No snare anywhere: nothing moves.
        var silent = Self.snareFrames(first.beats + second.beats, on: [])
        #expect(GridFitter().snareLevel(ofSegments: [first, second], frames: &silent, frameDuration: 0.01) == nil)
    }

    @Test("a ramp's beats at twice a song's tempo are halved on the snare's parity; a back-beat keeps them")
    func rampBeats() throws {
        // Hip-hop speeding up from 80 to 88 BPM, read at twice its tempo: the snare on the second of
        // every four beats.
        var beats = [1.0]
        for index in 1..<256 { beats.append(beats[index - 1] + 60 / (160 + 16 * Double(index) / 256)) }
        var frames = Self.snareFrames(beats, on: [1])
        let halved = try #require(GridFitter().snareLevel(pieceBeats: beats, frames: &frames, frameDuration: 0.01))
        #expect(halved.level == .half)
        #expect(halved.beats == stride(from: 1, to: beats.count, by: 2).map { beats[$0] })
        // The snare on 2 and 4 at the beats' own level: they are the song's beats.
        var backBeat = Self.snareFrames(beats, on: [1, 3])
        #expect(GridFitter().snareLevel(pieceBeats: beats, frames: &backBeat, frameDuration: 0.01) == nil)
        // A tempo the user gave is never changed.
        var options = GridFitOptions()
        options.forcedBPM = 164
        var again = Self.snareFrames(beats, on: [1])
        #expect(GridFitter(options: options).snareLevel(pieceBeats: beats, frames: &again, frameDuration: 0.01) == nil)
    }

    /// Beats that drift about `centre` BPM by `depth` (a fraction) over a period of 64 beats.
    static func drifting(centre: Double, depth: Double, count: Int) -> [Double] {
        var beats = [1.0]
        for index in 1..<count {
            let bpm = centre * (1 + depth * sin(2 * Double.pi * Double(index) / 64))
            beats.append(beats[index - 1] + 60 / bpm)
        }
        return beats
    }

    /// `beats` read as followed beats are (the hold on, ``GridFitter/snareLevel(pieceBeats:frames:frameDuration:holdingAlong:)``)
    /// on `frames` (hop 10 ms): the beats at their new level and that level, or `nil`.
    static func followed(_ beats: [Double], _ frames: DrumFrames) -> (beats: [Double], level: MetricLevel)? {
        var frames = frames
        return GridFitter().snareLevel(pieceBeats: beats, frames: &frames, frameDuration: 0.01, holdingAlong: true)
    }

    @Test("followed beats are halved on the snare where the prior prefers half at both ends of their tempo")
    func followedBeats() throws {
        // Hip-hop at 88 read at 176, drifting ±4 %: the prior prefers half all along (over 154.9 BPM).
        let fast = Self.drifting(centre: 176, depth: 0.04, count: 256)
        let halved = try #require(Self.followed(fast, Self.snareFrames(fast, on: [1])))
        #expect(halved.level == .half)
        #expect(halved.beats == stride(from: 1, to: fast.count, by: 2).map { fast[$0] })
        // A metal song at 157 with a half-time snare, drifting ±4 % (151–163 BPM): the prior would halve
        // it at its median tempo, but not at its slowest, so followed beats keep their level...
        let metal = Self.drifting(centre: 157, depth: 0.04, count: 256)
        #expect(try #require(GridFitter.localTempoSpread(metal)?.slow) < 154)
        #expect(Self.followed(metal, Self.snareFrames(metal, on: [1])) == nil)
        // ...while a ramp's beats (no hold) are read on their median interval alone.
        var ramp = Self.snareFrames(metal, on: [1])
        #expect(GridFitter().snareLevel(pieceBeats: metal, frames: &ramp, frameDuration: 0.01)?.level == .half)
    }

    @Test("local tempi are read over windows of nine intervals; one slipped interval does not move them")
    func localTempi() throws {
        var beats = (0..<40).map { Double($0) * 0.5 }
        // 39 intervals, of which the four at either end have no whole window.
        #expect(GridFitter.localTempi(beats) == [Double](repeating: 120, count: 31))
        // One beat late by a quarter beat: one long and one short interval, each outvoted in its window.
        beats[20] += 0.125
        #expect(GridFitter.localTempi(beats).allSatisfy { abs($0 - 120) < 1e-9 })
        #expect(GridFitter.localTempi(Array(beats.prefix(9))).isEmpty)
        #expect(GridFitter.localTempoSpread(Array(beats.prefix(9))) == nil)
    }

    @Test("the spread of local tempi leaves out a few bars at another level")
    func localTempoSpread() throws {
        // 96 beats at 160 BPM, eight of them at 80, as a tracker that ran at half the tempo for two
        // bars gives them: those bars' eight local tempi are under a tenth of the piece's 87.
        var beats = [1.0]
        for index in 1..<96 { beats.append(beats[index - 1] + (40..<48 ~= index ? 0.75 : 0.375)) }
        let local = GridFitter.localTempi(beats)
        #expect(abs((local.min() ?? 0) - 80) < 1e-9)
        let spread = try #require(GridFitter.localTempoSpread(beats))
        #expect(abs(spread.slow - 160) < 1e-9)
        #expect(abs(spread.fast - 160) < 1e-9)
        // The snare asks for half: the extremes would hold the beats (80 BPM is under the boundary);
        // the spread lets them be halved.
        var frames = Self.snareFrames(beats, on: [1])
        let halved = try #require(
            GridFitter().snareLevel(pieceBeats: beats, frames: &frames, frameDuration: 0.01, holdingAlong: true))
        #expect(halved.level == .half)
    }

    /// Kick levels of `count` beats following `pattern` (one level per beat of each eight), a little
    /// uneven from beat to beat as a mix is.
    static func kicks(_ pattern: [Float], count: Int = 128) -> [Float?] {
        (0..<count).map { index -> Float? in pattern[index % pattern.count] + Float((index * 7) % 5) * 0.02 }
    }

    @Test(
        "a kick alone on one beat in eight gives that beat; every four beats, every beat, none or a few eights give none"
    )
    func aloneInEight() {
        // A one-drop reggae read at twice its tempo: the kick on beat 3 of each bar, the third of every
        // eight beats here.
        #expect(DrumDetector.aloneInEight(Self.kicks([0.05, 0, 0.9, 0, 0, 0.05, 0, 0])) == 2)
        // A kick on 1 of every bar at the beats' own level (every fourth beat) has a twin in each eight.
        #expect(DrumDetector.aloneInEight(Self.kicks([0.9, 0, 0, 0])) == nil)
        // Four on the floor, no kick at all.
        #expect(DrumDetector.aloneInEight(Self.kicks([0.9])) == nil)
        #expect(DrumDetector.aloneInEight(Self.kicks([0])) == nil)
        // Seven eights are too few to read.
        #expect(DrumDetector.aloneInEight(Self.kicks([0, 0, 0.9, 0, 0, 0, 0, 0], count: 63)) == nil)
        // An eight with a beat the detector did not read is left out, not read as silence.
        var gaps = Self.kicks([0, 0, 0.9, 0, 0, 0, 0, 0], count: 160)
        for index in stride(from: 5, to: gaps.count, by: 32) { gaps[index] = nil }
        #expect(DrumDetector.aloneInEight(gaps) == 2)
        // Eights without a kick heard (a drumless break every other eight) are left out, not read as
        // a groove whose kick stands out nowhere: over every eight the one-drop would not reach t 5.
        let breaks = Self.kicks([0, 0, 0.9, 0, 0, 0, 0, 0] + [Float](repeating: 0, count: 8))
        #expect(DrumDetector.standingOutAlone(breaks, every: 8) == nil)
        #expect(DrumDetector.aloneInEight(breaks) == 2)
        #expect(DrumDetector.aloneInEight(Self.kicks([0.2, 0, 0.1, 0, 0, 0, 0, 0])) == nil)
    }

    /// Frames (hop 10 ms) with the kick at 0.9 on the beats of `beats` whose number modulo 8 is in
    /// `kick`, the snare at 0.9 on those whose number modulo 4 is in `snare`, and 0.05 elsewhere.
    static func drumFrames(_ beats: [Double], kick: Set<Int>, snare: Set<Int> = []) -> DrumFrames {
        let count = Int(((beats.last ?? 0) + 2) / 0.01)
        var kicks = [Float](repeating: 0.05, count: count)
        var snares = [Float](repeating: 0.05, count: count)
        for (index, beat) in beats.enumerated() {
            let frame = Int((beat / 0.01).rounded())
            if kick.contains(index % 8) { kicks[frame] = 0.9 }
            if snare.contains(index % 4) { snares[frame] = 0.9 }
        }
        return DrumFrames(kicks: kicks, snares: snares)
    }

    @Test("a kick alone once in eight beats halves a grid where the prior prefers half, on the kick's parity")
    func halvedOnTheKick() throws {
        // A one-drop reggae at 82 read at 164: the kick on the third of every eight beats, no snare.
        let reggae = Self.grid(bpm: 164, from: 1, count: 128)
        var frames = Self.drumFrames(reggae.beats, kick: [2])
        let switched = try #require(GridFitter().snareLevel([reggae], frames: &frames, frameDuration: 0.01))
        #expect(switched.level == .half)
        #expect(switched.segment.bpm == 82)
        #expect(switched.segment.beats == stride(from: 0, to: reggae.beats.count, by: 2).map { reggae.beats[$0] })
        #expect(switched.againstThePrior == false)
        // Where the snare gives a parity, it is the snare's: here the other one.
        var both = Self.drumFrames(reggae.beats, kick: [2], snare: [1])
        let bySnare = try #require(GridFitter().snareLevel([reggae], frames: &both, frameDuration: 0.01))
        #expect(bySnare.segment.beats == stride(from: 1, to: reggae.beats.count, by: 2).map { reggae.beats[$0] })
        // A kick on every fourth beat is not alone in its eight: the grid keeps its level.
        var everyFourth = Self.drumFrames(reggae.beats, kick: [0, 4])
        #expect(GridFitter().snareLevel([reggae], frames: &everyFourth, frameDuration: 0.01) == nil)
    }

    @Test("a kick alone once in eight beats, the snare giving no parity, halves against the prior within the limits")
    func halvedOnTheKickAlone() throws {
        // A one-drop reggae at 72 read at 144: the prior prefers 144 to 72, but no drum marks a bar of
        // 144 and the kick falls once in two of them.
        let reggae = Self.grid(bpm: 144, from: 1, count: 128)
        var frames = Self.drumFrames(reggae.beats, kick: [4])
        let switched = try #require(GridFitter().snareLevel([reggae], frames: &frames, frameDuration: 0.01))
        #expect(switched.level == .half)
        #expect(switched.againstThePrior)
        #expect(switched.segment.bpm == 72)
        #expect(switched.segment.beats == stride(from: 0, to: reggae.beats.count, by: 2).map { reggae.beats[$0] })
        // A half-time feel at 140 whose snare falls on one beat in four (a back-beat at 70 too): the
        // snare gives a parity, so the prior chooses, and keeps 140.
        let halfTime = Self.grid(bpm: 140, from: 1, count: 128)
        var withSnare = Self.drumFrames(halfTime.beats, kick: [0], snare: [2])
        #expect(GridFitter().snareLevel([halfTime], frames: &withSnare, frameDuration: 0.01) == nil)
        // Half of 110 lies under the limits (60 BPM, less 3 %): the grid keeps its level.
        let slow = Self.grid(bpm: 110, from: 1, count: 128)
        var slowFrames = Self.drumFrames(slow.beats, kick: [4])
        #expect(GridFitter().snareLevel([slow], frames: &slowFrames, frameDuration: 0.01) == nil)
    }

    @Test("followed beats are halved on the kick alone where half lies within the limits at both ends of their tempo")
    func followedBeatsOnTheKickAlone() throws {
        // A one-drop at 72 read at 144, drifting ±4 %: half lies within the limits all along.
        let reggae = Self.drifting(centre: 144, depth: 0.04, count: 256)
        let halved = try #require(Self.followed(reggae, Self.drumFrames(reggae, kick: [4])))
        #expect(halved.level == .half)
        #expect(halved.beats == stride(from: 0, to: reggae.count, by: 2).map { reggae[$0] })
        // At 118 ±4 % the slow end's half (about 57 BPM) lies under the limits: the beats keep their level.
        let slow = Self.drifting(centre: 118, depth: 0.04, count: 256)
        #expect(try #require(GridFitter.localTempoSpread(slow)?.slow) / 2 < 58.2)
        #expect(Self.followed(slow, Self.drumFrames(slow, kick: [4])) == nil)
    }

    @Test("a grid at a one-drop's own tempo between its kicks moves half a beat onto them; on them it stays")
    func kickParityShift() throws {
        // A one-drop at 68 BPM: the points of 136 BPM, the kick on the fifth of every eight (beat 3 of
        // each bar at 68), no snare.
        let points = Self.grid(bpm: 136, from: 1, count: 256).beats
        var frames = Self.drumFrames(points, kick: [4])
        // Found on the skank's off-beat chops: the points of the other parity, between the kicks.
        let offBeats = stride(from: 1, to: points.count, by: 2).map { points[$0] }
        #expect(DrumDetector.kickParityShift(of: offBeats, frames: &frames, frameDuration: 0.01) == 0.5)
        // On the kick's parity the grid stays.
        let onBeats = stride(from: 0, to: points.count, by: 2).map { points[$0] }
        #expect(DrumDetector.kickParityShift(of: onBeats, frames: &frames, frameDuration: 0.01) == nil)
        // Where the snare gives a parity at twice the tempo, this reading says nothing (the drum
        // check's t and the snare's level rule read the snare).
        var withSnare = Self.drumFrames(points, kick: [4], snare: [2])
        #expect(DrumDetector.kickParityShift(of: offBeats, frames: &withSnare, frameDuration: 0.01) == nil)
        // A kick on every point between the grid's beats is not alone in its eight: this reading says
        // nothing (that is the drum check's paired t over every beat).
        var everyBeat = Self.drumFrames(points, kick: [0, 2, 4, 6])
        #expect(DrumDetector.kickParityShift(of: offBeats, frames: &everyBeat, frameDuration: 0.01) == nil)
    }
}
