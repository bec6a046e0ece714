// SPDX-License-Identifier: GPL-3.0-or-later

import BeatAudio
import Foundation
import TestSynth
import Testing

@testable import BeatAnalysis

/// Tempo changes beyond the tracker's ±30 % reach: windows whose own tempo lies there make regions
/// (``GridFitter/tempoRegions(_:period:)``), and the song is tracked again with the range centred on
/// each region's tempo (``GridFitter/allowedIntervals(at:period:range:regions:)``).
@Suite("Tempo regions")
struct TempoRegionTests {
    /// A drum track that plays each of `parts` (BPM, seconds) in turn from 0.5 s, kick and snare
    /// alternating on the beats and hi-hats on the eighths, and its beat times.
    static func drums(_ parts: [(bpm: Double, seconds: Double)]) -> (track: SynthTrack, beats: [Double]) {
        let duration = 0.5 + parts.reduce(0) { $0 + $1.seconds } + 1
        var track = SynthTrack(duration: duration, sampleRate: 44_100)
        var beats: [Double] = []
        var start = 0.5
        for part in parts {
            let period = 60 / part.bpm
            var time = start
            while time < start + part.seconds - 1e-6 {
                track.add(beats.count % 2 == 0 ? .kick : .snare, at: time, gain: 0.6)
                track.add(.hiHat, at: time, gain: 0.25)
                track.add(.hiHat, at: time + period / 2, gain: 0.2)
                beats.append(time)
                time += period
            }
            start = time
        }
        return (track, beats)
    }

    /// Beats and off-beat eighths at `bpm` from `from` up to `to`, as onsets.
    static func onsets(bpm: Double, from: Double, to: Double) -> [(time: Double, height: Float)] {
        let period = 60 / bpm
        return stride(from: from, to: to - 1e-6, by: period).flatMap {
            [(time: $0, height: Float(1)), (time: $0 + period / 2, height: Float(0.5))]
        }
    }

    /// From 150 to 100 BPM the first song was tracked at 75 until each piece of a grid with tempo
    /// changes got its own octave (``GridFitter/levelPerPiece(_:novelty:matcher:lowBand:)``). From 170
    /// to 120 the second song's windows were read at 240, over the tempo limit of 200, and it came out
    /// at 160 (at 80 once each piece got its own octave) until a region's octave kept within the limits.
    @Test(
        "songs that step by more than the tracker's 30 % get both tempi",
        arguments: [(100.0, 140.0), (90.0, 120.0), (140.0, 100.0), (120.0, 90.0), (150.0, 100.0), (170.0, 120.0)])
    func bigSteps(first: Double, second: Double) throws {
        let (track, truth) = Self.drums([(first, 40), (second, 40)])
        let (result, folder) = try GridFitTests.analyse(track)
        defer { try? FileManager.default.removeItem(at: folder) }
        let segments = result.fit.segments
        try #require(segments.count == 2, "segments \(segments.map(\.bpm))")
        #expect(abs(segments[0].bpm - first) <= 0.05, "segments \(segments.map(\.bpm))")
        #expect(abs(segments[1].bpm - second) <= 0.05, "segments \(segments.map(\.bpm))")
        let (_, missed) = GridFitTests.compare(result.fit.beats, truth)
        #expect(missed == 0)
        #expect(result.fit.beats.count == truth.count)
    }

    @Test("a step to 140 BPM after 40 s at 100 is one region, at 140 BPM, over the second half")
    func regionFound() throws {
        let onsets = Self.onsets(bpm: 100, from: 0.5, to: 40.5) + Self.onsets(bpm: 140, from: 40.5, to: 80.5)
        let context = SteadyGridTests.context(OnsetCurves.peaks(onsets, seconds: 81.5), seconds: 81.5)
        let regions = GridFitter().tempoRegions(context, period: 0.6)
        let region = try #require(regions.first)
        #expect(regions.count == 1)
        #expect(abs(60 / region.period - 140) < 1)
        #expect(region.span.lowerBound > 30 && region.span.lowerBound < 41)
        #expect(region.span.upperBound > 79)
    }

    @Test("a steady song that every window reads at another tempo than the song's has no region")
    func disagreementIsNoRegion() {
        // 120 BPM throughout, asked about as if the song were at 90: the windows all disagree, none
        // holds the song's tempo, so this is a question of the level, not a tempo change.
        let onsets = Self.onsets(bpm: 120, from: 0.5, to: 60.5)
        let context = SteadyGridTests.context(OnsetCurves.peaks(onsets, seconds: 61.5), seconds: 61.5)
        #expect(GridFitter().tempoRegions(context, period: 60 / 90.0).isEmpty)
    }

    @Test("beats tracked across regions replace one grid with tempo segments, never with followed beats")
    func regionTrackingNeedsAChange() {
        let grid = GridFitter.Grid(anchor: 0.5, period: 0.75)
        let one = GridModel.grid([GridPiece(span: 0.5...240, grid: grid)])
        let steps = GridModel.grid([
            GridPiece(span: 0.5...120, grid: grid),
            GridPiece(span: 120...240, grid: GridFitter.Grid(anchor: 120, period: 0.5)),
        ])
        // One grid against followed beats: no tempo change was found, the grid stands.
        #expect(!GridFitter.regionTrackingReplaces(one, with: .follow))
        #expect(!GridFitter.regionTrackingReplaces(.grid([]), with: .follow))
        // A change found: tempo segments replace the one grid.
        #expect(GridFitter.regionTrackingReplaces(one, with: steps))
        // Beats already followed, or already in segments, may be followed anew.
        #expect(GridFitter.regionTrackingReplaces(.follow, with: .follow))
        #expect(GridFitter.regionTrackingReplaces(steps, with: .follow))
    }

    @Test(
        "a beat-time tracking on one grid replaces beats still followed once repaired; otherwise the salience decides")
    func beatTimeTrackingOnOneGrid() {
        let grid = GridFitter.Grid(anchor: 0.5, period: 0.3125)
        let one = GridModel.grid([GridPiece(span: 0.5...60, grid: grid)])
        let half = GridModel.grid([GridPiece(span: 0.5...60, grid: GridFitter.Grid(anchor: 0.5, period: 0.625))])
        let steps = GridModel.grid([
            GridPiece(span: 0.5...30, grid: grid),
            GridPiece(span: 30...60, grid: GridFitter.Grid(anchor: 30, period: 0.25)),
        ])
        let ramp = GridModel.ramp(
            TempoRamp(origin: 0, anchor: 0.5, period: 0.3125, curvature: 0.0001, indices: 0...190))
        func replaces(_ first: GridModel, _ again: GridModel, firstRepaired: GridModel, againRepaired: GridModel)
            -> Bool
        {
            GridFitter.beatTimeTrackingReplaces(
                first, with: again, firstOnceRepaired: { firstRepaired }, againOnceRepaired: { againRepaired })
        }
        // Followed beats, still followed once repaired, against one grid at the other level: the
        // simpler model stands, whether the beat-time tracking lies on it as tracked or once repaired.
        #expect(replaces(.follow, one, firstRepaired: .follow, againRepaired: .follow))
        #expect(replaces(.follow, .follow, firstRepaired: .follow, againRepaired: one))
        // The first tracking is one grid once repaired (a recorded song whose tracker strayed): the
        // salience decides.
        #expect(!replaces(.follow, one, firstRepaired: half, againRepaired: one))
        // Against tempo segments, a ramp or followed beats, or where the first tracking was not
        // followed, only the salience decides.
        #expect(!replaces(.follow, steps, firstRepaired: .follow, againRepaired: .follow))
        #expect(!replaces(.follow, ramp, firstRepaired: .follow, againRepaired: .follow))
        #expect(!replaces(.follow, .follow, firstRepaired: .follow, againRepaired: .follow))
        #expect(!replaces(.follow, .follow, firstRepaired: .follow, againRepaired: steps))
        #expect(!replaces(.follow, .grid([]), firstRepaired: .follow, againRepaired: .follow))
        #expect(!replaces(steps, one, firstRepaired: .follow, againRepaired: one))
        #expect(!replaces(ramp, one, firstRepaired: .follow, againRepaired: one))
    }

    @Test("the range is the region's inside it, the song's outside, and both at its edges")
    func allowedIntervals() {
        let regions = [TempoRegion(span: 40...80, period: 0.4)]
        let inside = GridFitter.allowedIntervals(at: 60, period: 0.6, range: 1.3, regions: regions)
        #expect(abs(inside.lowerBound - 0.4 / 1.3) < 1e-9 && abs(inside.upperBound - 0.4 * 1.3) < 1e-9)
        let outside = GridFitter.allowedIntervals(at: 10, period: 0.6, range: 1.3, regions: regions)
        #expect(abs(outside.lowerBound - 0.6 / 1.3) < 1e-9 && abs(outside.upperBound - 0.6 * 1.3) < 1e-9)
        let edge = GridFitter.allowedIntervals(at: 38, period: 0.6, range: 1.3, regions: regions)
        #expect(abs(edge.lowerBound - 0.4 / 1.3) < 1e-9 && abs(edge.upperBound - 0.6 * 1.3) < 1e-9)
    }
}
