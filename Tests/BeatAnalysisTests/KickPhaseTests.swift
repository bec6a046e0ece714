// SPDX-License-Identifier: GPL-3.0-or-later

import BeatAnalysis
import BeatMapKit
import Foundation
import TestSynth
import Testing

@testable import BeatAnalysis

/// The kick drum decides between the beats and the points halfway between them when the broadband
/// onsets favour the off-beats (dance music's off-beat hi-hat, bass or synth).
@Suite("Beats on the kick")
struct KickPhaseTests {
    /// A low-band curve (hop 10 ms) with a rise of `onBeat` at each of `beats` and of `midpoint` halfway
    /// to the next.
    static func lowBand(_ beats: [Double], onBeat: Float, midpoint: Float) -> Novelty {
        lowBand(beats) { _ in (onBeat, midpoint) }
    }

    /// A low-band curve (hop 10 ms) with, for beat number `i`, a rise of `rises(i).onBeat` at it and of
    /// `rises(i).midpoint` halfway to the next.
    static func lowBand(_ beats: [Double], rises: (Int) -> (onBeat: Float, midpoint: Float)) -> Novelty {
        let hop = 0.01
        var values = [Float](repeating: 0, count: Int(((beats.last ?? 0) + 2) / hop))
        for (index, beat) in beats.enumerated() {
            let (onBeat, midpoint) = rises(index)
            values[Int((beat / hop).rounded())] = onBeat
            if index + 1 < beats.count {
                values[Int(((beat + beats[index + 1]) / 2 / hop).rounded())] = midpoint
            }
        }
        return Novelty(envelope: OnsetEnvelope(values: values, hopDuration: hop, startTime: 0))
    }

    static let beats = (0..<64).map { 1 + Double($0) * 0.5 }

    @Test(
        "the kick marks the midpoints only when it alternates against the beats (the beats under half)",
        arguments: [(0.3 as Float, true), (0.6, false), (1.0, false)])
    func alternation(onBeat: Float, marksMidpoints: Bool) {
        let low = Self.lowBand(Self.beats, onBeat: onBeat, midpoint: 1)
        #expect(GridFitter().kickMarksMidpoints(BeatSequence(beats: Self.beats), lowBand: low) == marksMidpoints)
    }

    @Test("a section tracked on the off-beats moves back onto the kick; beats before it stay; no beat doubled")
    func trackedSectionMovesOntoTheKick() throws {
        let low = Self.lowBand(Self.beats, onBeat: 1, midpoint: 0.1)
        // The tracker follows the kick for 24 beats, then slips half a beat late (a 1.5-beat interval)
        // and stays there.
        let tracked = Array(Self.beats[0..<24]) + Self.beats[24..<63].map { $0 + 0.25 }
        let moved = GridFitter().onTheKick(tracked: tracked, lowBand: low)
        #expect(Array(moved.prefix(24)) == Array(tracked.prefix(24)))
        // Once the neighbourhoods are mostly off-beat (from a window's radius past the slip), every
        // beat is on the kick, to the last.
        let tail = moved.filter { $0 >= Self.beats[24 + 2 * GridFitter.kickWindowRadius] }
        try #require(tail.count >= 20)
        for beat in tail {
            #expect(Self.beats.contains { abs($0 - beat) < 1e-9 }, "\(beat) is not on the kick")
        }
        for (next, previous) in zip(moved.dropFirst(), moved) {
            #expect(next - previous >= 0.25 && next - previous <= 0.75, "interval \(next - previous) at \(previous)")
        }
    }

    @Test(
        "a tracker that slips half a beat early leaves no two beats closer than it could track; the kick keeps its own")
    func seamKeepsTheKicksBeat() throws {
        let low = Self.lowBand(Self.beats, onBeat: 1, midpoint: 0.1)
        // On the kick for 24 beats, then half a beat early (a half-beat interval) to the end.
        let tracked = Array(Self.beats[0..<24]) + Self.beats[24..<63].map { $0 - 0.25 }
        let moved = GridFitter().onTheKick(tracked: tracked, lowBand: low)
        for (next, previous) in zip(moved.dropFirst(), moved) {
            #expect(next - previous >= 0.375 && next - previous <= 0.75, "interval \(next - previous) at \(previous)")
        }
        // The seam's two claims on beat 24's place (the kick's beat 23 and the early beat after it):
        // the kick's is kept.
        #expect(moved.contains(Self.beats[23]))
        #expect(!moved.contains(Self.beats[24] - 0.25))
        let tail = moved.filter { $0 >= Self.beats[24 + 2 * GridFitter.kickWindowRadius] }
        try #require(tail.count >= 20)
        for beat in tail {
            #expect(Self.beats.contains { abs($0 - beat) < 1e-9 }, "\(beat) is not on the kick")
        }
    }

    @Test("beats that run on evenly keep their phase where the low band moves between them (a bass, not a slip)")
    func evenBeatsKeepTheirPhase() throws {
        // The kick on the beats for 40 beats, then only a bass between them to the end; the tracker
        // followed the beat throughout, every interval the same.
        let low = Self.lowBand(Self.beats) { $0 < 40 ? (1, 0.1) : (0.1, 1) }
        // The neighbourhoods at the end do read the kick between the beats...
        let tail = BeatSequence(beats: Array(Self.beats.suffix(2 * GridFitter.kickWindowRadius + 1)))
        try #require(GridFitter().kickMarksMidpoints(tail, lowBand: low))
        // ...but with no slip at the section's edge, the beats stay where the tracker put them.
        #expect(GridFitter().onTheKick(tracked: Self.beats, lowBand: low) == Self.beats)
    }

    @Test("drums that hold the tracked beats, moved and unmoved alike, keep a section the low band would move")
    func drumsKeepASectionTheLowBandWouldMove() throws {
        let low = Self.lowBand(Self.beats, onBeat: 1, midpoint: 0.1)
        // The low band's beats up to 24, its midpoints after: a bass line between the beats there, where
        // the drums (kick plus snare) sit on the tracked beats as they do before it.
        let tracked = Array(Self.beats[0..<24]) + Self.beats[24..<63].map { $0 + 0.25 }
        let drums: (Double) -> Float? = { time in tracked.contains { abs($0 - time) < 0.02 } ? 1 : 0.2 }
        // Without the drums the kick step moves the section (the test above); with them it stays.
        try #require(GridFitter().onTheKick(tracked: tracked, lowBand: low) != tracked)
        #expect(GridFitter().onTheKick(tracked: tracked, lowBand: low, drums: drums) == tracked)
    }

    @Test("drums that lean towards the move, or read too few beats, leave the kick step as it was")
    func drumsThatDoNotHoldTheBeatsKeepNothing() throws {
        let low = Self.lowBand(Self.beats, onBeat: 1, midpoint: 0.1)
        let tracked = Array(Self.beats[0..<24]) + Self.beats[24..<63].map { $0 + 0.25 }
        let moved = GridFitter().onTheKick(tracked: tracked, lowBand: low)
        try #require(moved != tracked)
        // Drums on the low band's beats: they agree with the move.
        let withTheKick: (Double) -> Float? = { time in Self.beats.contains { abs($0 - time) < 0.02 } ? 1 : 0.2 }
        #expect(GridFitter().onTheKick(tracked: tracked, lowBand: low, drums: withTheKick) == moved)
        // Drums that hold the tracked beats but read only the first few (past their reach, nil).
        let reach = Self.beats[DrumDetector.minimumBeats - 2]
        let short: (Double) -> Float? = { time in
            time > reach ? nil : tracked.contains { abs($0 - time) < 0.02 } ? 1 : 0.2
        }
        #expect(GridFitter().onTheKick(tracked: tracked, lowBand: low, drums: short) == moved)
    }

    @Test("beats already on the kick are left alone, however loud the off-beats")
    func beatsOnTheKickStay() {
        let low = Self.lowBand(Self.beats, onBeat: 1, midpoint: 0.4)
        #expect(GridFitter().onTheKick(tracked: Self.beats, lowBand: low) == Self.beats)
    }

    @Test("a kick on every beat under a louder hi-hat on every off-beat: the map is on the kicks")
    func analyzerFollowsTheKick() throws {
        var track = SynthTrack(duration: 30, sampleRate: 44_100)
        let period = 60.0 / 128
        var truth: [Double] = []
        var t = 0.5
        while t < 29.5 {
            truth.append(t)
            track.add(.kick, at: t, gain: 0.5)
            track.add(.hiHat, at: t + period / 2, gain: 1, seed: UInt64(truth.count))
            t += period
        }
        let (result, folder) = try GridFitTests.analyse(track)
        defer { try? FileManager.default.removeItem(at: folder) }
        let segment = try #require(result.fit.segments.first)
        #expect(abs(segment.bpm - 128) <= 0.02)
        let (errors, missed) = GridFitTests.compare(result.fit.beats, truth)
        #expect(missed == 0, "\(result.fit.beats.prefix(4)) for \(truth.prefix(4)), \(result.fit.method)")
        #expect(errors.allSatisfy { abs($0) <= 0.005 }, "errors \(errors.first ?? 0)…\(errors.last ?? 0)")
    }
}
