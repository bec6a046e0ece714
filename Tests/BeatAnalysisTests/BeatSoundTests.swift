// SPDX-License-Identifier: GPL-3.0-or-later

import BeatMapKit
import Foundation
import Testing

@testable import BeatAnalysis

/// A song's beat sounds alike all through it: a followed section whose beats sound like the rest of
/// the song's off-beats moves half a beat onto its beat (`GridFitter.onTheSongsBeat`), and the band
/// levels it reads come from the onset detector's own spectrum (`BandLevels`).
@Suite("Beats that sound like the song's beat")
struct BeatSoundTests {
    /// The song's beats: 120 at 120 BPM from 1 s.
    static let beats = (0..<120).map { 1 + Double($0) * 0.5 }

    /// Band levels (frames of 10 ms, frame `f` at `f` × 10 ms) with a kick (band 0) on every beat of
    /// ``beats`` and a hi-hat (band 6) halfway between, each a little uneven from beat to beat, as a
    /// mix is.
    static let bands: BandRises? = {
        let frame = 0.01
        let count = BandLevels.bandCount
        let frames = Int(((beats.last ?? 0) + 2) / frame)
        var levels = [UInt8](repeating: 20, count: frames * count)
        for (index, beat) in beats.enumerated() {
            let wobble = 10 * sin(Double(index))
            levels[Int((beat / frame).rounded()) * count + 0] = UInt8(120 + wobble.rounded())
            levels[Int(((beat + 0.25) / frame).rounded()) * count + 6] = UInt8(120 - wobble.rounded())
        }
        // Two hops to a frame: a frame stands half a hop after its first hop's time.
        return BandRises(levels: levels, hopDuration: frame / 2, startTime: -frame / 4)
    }()

    /// The low band: the kick on every beat.
    static let lowBand = KickPhaseTests.lowBand(beats, onBeat: 1, midpoint: 0.1)

    @Test("a section tracked on the off-beats, between two slips, moves back onto the song's beat")
    func offBeatSectionMoves() throws {
        let bands = try #require(Self.bands)
        // On the beat for 60 beats, a slip half a beat late, 30 beats on the off-beats, a slip back.
        let tracked = Self.beats.enumerated().map { index, beat in (60..<90).contains(index) ? beat + 0.25 : beat }
        let moved = GridFitter().onTheSongsBeat(tracked: tracked, bands: bands, lowBand: Self.lowBand)
        try #require(moved.count >= 115)
        for beat in moved {
            #expect(Self.beats.contains { abs($0 - beat) < 1e-9 }, "\(beat) is not on the song's beat")
        }
        for (next, previous) in zip(moved.dropFirst(), moved) {
            #expect(next - previous > 0.375, "beats \(previous) and \(next) too close")
        }
    }

    @Test("a section the drums keep, in a song whose other beats they keep too, stays where it is")
    func drumsKeepTheSection() throws {
        let bands = try #require(Self.bands)
        let tracked = Self.beats.enumerated().map { index, beat in (60..<90).contains(index) ? beat + 0.25 : beat }
        func drums(on hits: [Double]) -> (Double) -> Float? {
            { time in hits.contains { abs($0 - time) < 0.02 } ? 1 : 0.2 }
        }
        let fitter = GridFitter()
        let moved = fitter.onTheSongsBeat(tracked: tracked, bands: bands, lowBand: Self.lowBand)
        try #require(moved != tracked)
        // The drums on every tracked beat, the section's among them: the bands' hi-hat is their beat there.
        #expect(
            fitter.onTheSongsBeat(tracked: tracked, bands: bands, lowBand: Self.lowBand, drums: drums(on: tracked))
                == tracked)
        // The drums on the song's beat: they agree with the move.
        #expect(
            fitter.onTheSongsBeat(tracked: tracked, bands: bands, lowBand: Self.lowBand, drums: drums(on: Self.beats))
                == moved)
        // The drums on the section's beats but off the rest's: moving keeps the map on one phase.
        let offTheRest = tracked.enumerated().map { index, beat in (60..<90).contains(index) ? beat : beat + 0.25 }
        #expect(
            fitter.onTheSongsBeat(tracked: tracked, bands: bands, lowBand: Self.lowBand, drums: drums(on: offTheRest))
                == moved)
    }

    @Test("the joint labelling picks the off-beat section, not one on the beat")
    func jointLabelling() throws {
        let bands = try #require(Self.bands)
        let sequence = BeatSequence(beats: Self.beats)
        let onBeats = Self.beats.compactMap { bands.strongest(near: $0) }
        let midpoints = Self.beats.indices.compactMap { index in
            bands.strongest(near: sequence.time(at: Double(index) + 0.5))
        }
        try #require(onBeats.count == Self.beats.count && midpoints.count == Self.beats.count)
        // Swapped in 60..<90 as an off-beat tracker would see them.
        var seenOn = onBeats
        var seenMid = midpoints
        for index in 60..<90 { (seenOn[index], seenMid[index]) = (midpoints[index], onBeats[index]) }
        let penalty = log(Double(Self.beats.count))
        let moved = GridFitter.sectionsOffTheSongsBeat(
            onBeats: seenOn, midpoints: seenMid, sections: [0..<30, 30..<60, 60..<90, 90..<120], penalty: penalty)
        #expect(moved == [60..<90])
        // Nothing to move where every section is on the beat; and at a price above any gain, nothing moves.
        let none = GridFitter.sectionsOffTheSongsBeat(
            onBeats: onBeats, midpoints: midpoints, sections: [0..<30, 30..<60, 60..<90, 90..<120], penalty: penalty)
        #expect(none.isEmpty)
        let priced = GridFitter.sectionsOffTheSongsBeat(
            onBeats: seenOn, midpoints: seenMid, sections: [60..<90], penalty: 1e9)
        #expect(priced.isEmpty)
    }

    @Test("a section on the beat stays when the rest of the song holds more off-beat sections than beats")
    func rightSectionStaysBesideOffBeatSections() throws {
        let bands = try #require(Self.bands)
        // On the beat for 50 beats, off for 25, on for 15, off for 22, on for the last 8: the song is
        // mostly on its beat (73 of 120), but the 70 beats outside the first section are mostly off it
        // (47). Judged alone against them, the first section would sound like their off-beats.
        let off = Set(Array(50..<75) + Array(90..<112))
        let tracked = Self.beats.enumerated().map { index, beat in off.contains(index) ? beat + 0.25 : beat }
        let moved = GridFitter().onTheSongsBeat(tracked: tracked, bands: bands, lowBand: Self.lowBand)
        try #require(moved.count >= 110)
        for beat in moved {
            #expect(Self.beats.contains { abs($0 - beat) < 1e-9 }, "\(beat) is not on the song's beat")
        }
        for beat in tracked.prefix(50) {
            #expect(moved.contains { abs($0 - beat) < 1e-9 }, "\(beat) of the first section moved")
        }
    }

    @Test("a section longer than the rest of the song is not judged by the rest: the song's majority is its beat")
    func majorityStays() throws {
        let bands = try #require(Self.bands)
        // Off the beat from beat 40 to the end (80 beats): more than the 40 before the slip.
        let tracked = Self.beats.enumerated().map { index, beat in index >= 40 ? beat + 0.25 : beat }.dropLast()
        let moved = GridFitter().onTheSongsBeat(tracked: Array(tracked), bands: bands, lowBand: Self.lowBand)
        // The long section keeps its beats, wherever the shorter one goes.
        for beat in tracked.suffix(60) {
            #expect(moved.contains { abs($0 - beat) < 1e-9 }, "\(beat) of the longer section moved")
        }
    }

    @Test("beats on the song's beat throughout, without a low band, or too few, are left as they are")
    func leftAlone() throws {
        let bands = try #require(Self.bands)
        let fitter = GridFitter()
        #expect(fitter.onTheSongsBeat(tracked: Self.beats, bands: bands, lowBand: Self.lowBand) == Self.beats)
        let tracked = Self.beats.enumerated().map { index, beat in (60..<90).contains(index) ? beat + 0.25 : beat }
        #expect(fitter.onTheSongsBeat(tracked: tracked, bands: bands, lowBand: nil) == tracked)
        let short = Array(tracked.prefix(40))
        #expect(fitter.onTheSongsBeat(tracked: short, bands: bands, lowBand: Self.lowBand) == short)
    }

    @Test("band levels: a bin's magnitude lands in its band, two hops to a frame, and stop after ten minutes")
    func bandLevels() throws {
        let frame = AnalysisFrame.analysis
        var levels = BandLevels(frame: frame, expectedHops: 16)
        let bins = frame.bufferSize / 2 + 1
        let binWidth = Double(frame.sampleRate) / Double(frame.bufferSize)
        // A tone at 1 kHz: band ⌊log(1000 / 30) / log((11000 / 30)^(1/8))⌋ = 4.
        let toneBin = Int((1000 / binWidth).rounded())
        var spectrum = [Float](repeating: 0, count: bins)
        spectrum[toneBin] = 1
        for _ in 0..<4 { spectrum.withUnsafeBufferPointer { levels.add($0) } }
        try #require(levels.values.count == 2 * BandLevels.bandCount)
        for band in 0..<BandLevels.bandCount {
            #expect((levels.values[band] > 0) == (band == 4), "band \(band): \(levels.values[band])")
        }
        // An hour of hops keeps ten minutes of frames.
        let hops = Int(3600 / frame.hopDuration)
        var long = BandLevels(frame: frame, expectedHops: hops)
        for _ in 0..<hops { spectrum.withUnsafeBufferPointer { long.add($0) } }
        let frames = Double(long.values.count / BandLevels.bandCount)
        let kept = frames * frame.hopDuration * Double(BandLevels.hopsPerFrame)
        #expect(abs(kept - BandLevels.span) < 0.1)
    }

    @Test("band rises: a level's increase from the frame before, at the onset envelope's time")
    func bandRises() throws {
        let count = BandLevels.bandCount
        // Three frames; band 2 rises by 50 steps at frame 1 and falls at frame 2.
        var levels = [UInt8](repeating: 20, count: 3 * count)
        levels[1 * count + 2] = 70
        let rises = try #require(BandRises(levels: levels, hopDuration: 0.01, startTime: 0))
        #expect(rises.frameDuration == 0.02)
        let atFrame1 = try #require(rises.strongest(near: rises.startTime + 0.02))
        #expect(abs(atFrame1[2] - 50 * Double(BandLevels.step)) < 1e-6)
        #expect(atFrame1[3] == 0)
        #expect(rises.rise(2, at: 2) == 0)
        #expect(rises.strongest(near: rises.end + 1) == nil)
        #expect(BandRises(levels: Array(levels.prefix(count)), hopDuration: 0.01, startTime: 0) == nil)
    }
}
