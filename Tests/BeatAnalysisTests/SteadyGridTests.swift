// SPDX-License-Identifier: GPL-3.0-or-later

import Foundation
import Testing

@testable import BeatAnalysis

/// Before audio is called beatless, a steady grid at the tracked tempo is asked too
/// (``GridFitter/clearerSteadyGrid(than:period:_:)``): a tracker can lose a beat that plays steadily,
/// but noise has no steady grid either.
@Suite("Steady grid before refusing")
struct SteadyGridTests {
    static func context(_ novelty: Novelty, seconds: Double) -> GridFitter.TrackingContext {
        let peaks = novelty.envelope.peaks()
        return GridFitter.TrackingContext(
            novelty: novelty, peaks: peaks, matcher: PeakMatcher(peaks: peaks), span: 1...(seconds - 1),
            lowBand: nil, setAside: nil)
    }

    @Test("a steady beat the tracker lost in its comping is found by the grid")
    func steadyBeatIsFound() throws {
        // 100 BPM beats, and comping a third of a beat after each, in pairs 30 ms apart whose order
        // changes every few beats (a humanised jazz kit).
        let beats = (0..<50).map { 1 + Double($0) * 0.6 }
        let comping = beats.enumerated().flatMap { index, beat in
            let late = (index / 3) % 2 == 0 ? 0.0 : 0.03
            return [(time: beat + 0.2 + late, height: Float(0.9)), (time: beat + 0.23 - late, height: Float(0.5))]
        }
        let novelty = OnsetCurves.peaks(beats.map { (time: $0, height: Float(1)) } + comping, seconds: 32)
        let context = Self.context(novelty, seconds: 32)
        // The tracker's beats: wandering between the beat and the comping, on neither.
        let tracked = beats.enumerated().map { index, beat in beat + (index % 2 == 0 ? 0.08 : 0.12) }
        let fitter = GridFitter()
        let trackedSalience = fitter.trackedScore(tracked, novelty: novelty, span: context.span)
        try #require(trackedSalience < GridFitter.minimumSalience)
        let steady = try #require(fitter.clearerSteadyGrid(than: trackedSalience, period: 0.6, context))
        #expect(steady.salience >= GridFitter.minimumSalience)
        let first = try #require(steady.beats.first)
        let offset = (first - 1).truncatingRemainder(dividingBy: 0.6)
        #expect(min(offset, 0.6 - offset) < 0.015, "the grid is \(offset) s from the beat")
    }

    @Test("onsets at random times have no steady grid that stands out")
    func noiseHasNoSteadyGrid() {
        // A seeded linear congruential generator: the same onsets on every run.
        var state: UInt64 = 0x2545_F491_4F6C_DD1D
        func next() -> Double {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Double(state >> 11) / Double(1 << 53)
        }
        let onsets = (0..<120).map { _ in (time: 0.5 + next() * 29, height: Float(0.2 + 0.8 * next())) }
        let novelty = OnsetCurves.peaks(onsets, seconds: 30)
        let context = Self.context(novelty, seconds: 30)
        let fitter = GridFitter()
        for period in [0.4, 0.5, 0.6, 0.75] {
            let steady = fitter.clearerSteadyGrid(than: 0, period: period, context)
            #expect((steady?.salience ?? 0) < GridFitter.minimumSalience, "period \(period)")
        }
    }
}
