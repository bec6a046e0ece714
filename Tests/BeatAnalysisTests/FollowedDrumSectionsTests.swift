// SPDX-License-Identifier: GPL-3.0-or-later

import Foundation
import Testing

@testable import BeatAnalysis

/// Followed beats take the half beat the drums ask for run by run (`GridFitter.halfBeatBySection`):
/// a tracker that slid from the beat onto the off-beats is put back where it slid, not everywhere.
@Suite("Followed beats against the drums, run by run")
struct FollowedDrumSectionsTests {
    /// The music's beats: 120 BPM from 1 s, 101 of them.
    static let truth = (0...100).map { 1 + Double($0) * 0.5 }

    /// Frames (hop 10 ms) with kick plus snare on every beat of ``truth`` (0.8, 0.9 or 1.0 in turn)
    /// and 0.1 elsewhere.
    static func drums() -> DrumFrames {
        var values = [Float](repeating: 0.1, count: Int(((truth.last ?? 0) + 2) / 0.01))
        for (index, beat) in truth.enumerated() {
            values[Int((beat / 0.01).rounded())] = 0.8 + 0.1 * Float(index % 3)
        }
        return DrumFrames(kicks: values, snares: [Float](repeating: 0, count: values.count))
    }

    /// Followed beats on ``truth`` for the first `onBeat` beats and a quarter beat on after one long
    /// interval, where the tracker slid onto the off-beats (`offBeatFirst`: the other way round).
    static func tracked(onBeat: Int, offBeatFirst: Bool = false) -> [Double] {
        (0..<100).map { index in
            let early = index < onBeat
            return truth[index] + (early == offBeatFirst ? 0.25 : 0)
        }
    }

    @Test("the runs lie between the intervals off the tempo, and a run needs 32 beats")
    func runs() {
        #expect(GridFitter.phaseRuns(Self.tracked(onBeat: 60)) == [0...59, 60...99])
        #expect(GridFitter.phaseRuns(Self.tracked(onBeat: 80)) == [0...79])
        #expect(GridFitter.phaseRuns(Array(Self.truth.prefix(31))).isEmpty)
    }

    @Test("where the whole map stays, a run on the off-beats whose drums clearly say so moves, the rest stays")
    func offBeatRunMoves() throws {
        var frames = Self.drums()
        let moved = try #require(
            GridFitter.halfBeatBySection(
                Self.tracked(onBeat: 60), wholeShift: nil, frames: &frames, frameDuration: 0.01))
        // The moved run lands on the beats after its own; the gap at the slide gets its beat back.
        try #require(moved.count == 101)
        for (beat, expected) in zip(moved, Self.truth) { #expect(abs(beat - expected) < 1e-9) }
    }

    @Test("where the whole map moves, a run whose drums lean to its own beats stays, and the beat claimed twice goes")
    func onBeatRunStays() throws {
        var frames = Self.drums()
        let moved = try #require(
            GridFitter.halfBeatBySection(
                Self.tracked(onBeat: 60, offBeatFirst: true), wholeShift: 0.5, frames: &frames, frameDuration: 0.01))
        // The first run moves onto beats 1…59; at the slide the moved beat halfway into it and the
        // run's first beat claim one beat, and the drums keep the run's; the later run stays.
        try #require(moved.count == 99)
        for (beat, expected) in zip(moved, Self.truth.dropFirst()) { #expect(abs(beat - expected) < 1e-9) }
    }

    @Test("nothing to do where every run goes the whole map's way, where it moves by a third, or with too few beats")
    func nothingToDo() {
        var frames = Self.drums()
        let allOff = Self.tracked(onBeat: 0)
        #expect(GridFitter.halfBeatBySection(allOff, wholeShift: 0.5, frames: &frames, frameDuration: 0.01) == nil)
        #expect(
            GridFitter.halfBeatBySection(
                Self.tracked(onBeat: 100), wholeShift: nil, frames: &frames, frameDuration: 0.01) == nil)
        #expect(
            GridFitter.halfBeatBySection(
                Self.tracked(onBeat: 60), wholeShift: 1.0 / 3.0, frames: &frames, frameDuration: 0.01) == nil)
        #expect(
            GridFitter.halfBeatBySection(
                Array(Self.tracked(onBeat: 40).prefix(63)), wholeShift: nil, frames: &frames, frameDuration: 0.01)
                == nil)
    }

    @Test("the half-beat t is positive where the drums sit between the beats and needs its fewest beats")
    func halfBeatT() throws {
        var frames = Self.drums()
        let between = try #require(
            DrumDetector.halfBeatT(
                of: Self.truth.map { $0 + 0.25 }, frames: &frames, frameDuration: 0.01, fewest: 32))
        #expect(between > DrumDetector.minimumT)
        let on = try #require(DrumDetector.halfBeatT(of: Self.truth, frames: &frames, frameDuration: 0.01, fewest: 32))
        #expect(on < -DrumDetector.minimumT)
        #expect(
            DrumDetector.halfBeatT(of: Array(Self.truth.prefix(31)), frames: &frames, frameDuration: 0.01, fewest: 32)
                == nil)
    }
}
