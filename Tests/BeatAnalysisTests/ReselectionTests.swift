// SPDX-License-Identifier: GPL-3.0-or-later

import Foundation
import Testing

@testable import BeatAnalysis

/// The model is chosen again once followed beats are repaired (``GridFitter/selectModel(_:period:_:)``):
/// a tracker that spent a long stretch on the off-beats explains too few beats for any grid, but the
/// beats put back on one side may lie on one grid after all, and then the map is that grid.
@Suite("Model chosen again after repair")
struct ReselectionTests {
    /// 120 BPM beats from 1 s to 100.5 s.
    static let beats = (0..<200).map { 1 + Double($0) * 0.5 }

    @Test("beats followed for a long off-beat detour become one grid once put back on the beat")
    func repairedBeatsGetAGrid() throws {
        // The off-beats sound louder than the beats (a pumping synth over a softer kick), so the
        // tracker's stretch on them carries more onset strength than a grid on the beat.
        let offBeats = Self.beats.map { $0 + 0.25 }
        let novelty = OnsetCurves.peaks(
            Self.beats.map { (time: $0, height: Float(1)) } + offBeats.map { (time: $0, height: Float(1.3)) },
            seconds: 103)
        let context = SteadyGridTests.context(novelty, seconds: 103)
        let fitter = GridFitter()
        // The tracker on the off-beats from beat 40 to beat 130: under two thirds of its beats on the
        // beat, so no grid explains enough of them.
        let detour = Self.beats.enumerated().map { index, beat in (40..<130).contains(index) ? beat + 0.25 : beat }
        guard case .follow = fitter.selectModel(detour, period: 0.5, context) else {
            Issue.record("the detour should be followed")
            return
        }
        // Repaired (every beat on the beat), one grid at the tempo explains them all.
        guard case .grid(let pieces) = fitter.selectModel(Self.beats, period: 0.5, context) else {
            Issue.record("the repaired beats should get a grid")
            return
        }
        let piece = try #require(pieces.first)
        #expect(pieces.count == 1)
        #expect(abs(piece.grid.period - 0.5) < 0.001)
        for beat in Self.beats where beat > 2 && beat < 99 {
            let k = ((beat - piece.grid.anchor) / piece.grid.period).rounded()
            #expect(abs(piece.grid.time(Int(k)) - beat) < 0.005, "the grid misses the beat at \(beat)")
        }
    }

    @Test("a mode that forces following keeps the beats followed")
    func followModeKeepsFollowing() {
        let novelty = OnsetCurves.peaks(Self.beats.map { (time: $0, height: Float(1)) }, seconds: 103)
        let context = SteadyGridTests.context(novelty, seconds: 103)
        var options = GridFitOptions()
        options.mode = .follow
        guard case .follow = GridFitter(options: options).selectModel(Self.beats, period: 0.5, context) else {
            Issue.record("--grid follow must follow")
            return
        }
    }
}
