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
        // The tracker on the off-beats from beat 10 to beat 100: under two thirds of its beats on the
        // beat, so no grid explains enough of them, and the grid holds for 32 beats in a row only
        // after the detour (a grid that held on both sides of it would be chosen as tracked:
        // ``GridModelSelector/holdsApart(_:pieces:run:neighbourhoods:)``).
        let detour = Self.beats.enumerated().map { index, beat in (10..<100).contains(index) ? beat + 0.25 : beat }
        let asTracked = fitter.selectModel(detour, period: 0.5, context)
        guard case .follow = asTracked else {
            Issue.record("the detour should be followed: \(asTracked)")
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

    @Test("a stretch the tracker followed on the swung eighth counts for the grid once the beats are repaired")
    func swungStretchCountsForTheGrid() throws {
        // A shuffle: beats, and swung eighths two thirds of a beat after them, louder.
        let swung = Self.beats.map { $0 + 0.5 * 2 / 3 }
        let novelty = OnsetCurves.peaks(
            Self.beats.map { (time: $0, height: Float(1)) } + swung.map { (time: $0, height: Float(1.3)) },
            seconds: 103)
        let context = SteadyGridTests.context(novelty, seconds: 103)
        let fitter = GridFitter()
        // The tracker on the swung eighths from beat 30 to beat 170, which no kick moves back.
        let strayed = Self.beats.enumerated().map { index, beat in
            (30..<170).contains(index) ? beat + 0.5 * 2 / 3 : beat
        }
        guard case .follow = fitter.selectModel(strayed, period: 0.5, context) else {
            Issue.record("as tracked, the stray is followed")
            return
        }
        guard case .grid(let pieces) = fitter.selectModel(strayed, period: 0.5, context, strayedPhasesExplained: true)
        else {
            Issue.record("repaired, a steady shift from one grid is that grid")
            return
        }
        let piece = try #require(pieces.first)
        #expect(pieces.count == 1)
        #expect(abs(piece.grid.period - 0.5) < 0.001)
    }

    @Test("a drift is not explained at a shift: its beats pass through every shift in turn")
    func driftIsNotExplainedAtAShift() {
        // 120 BPM drifting by ±3 % over 40 s against a steady 120 BPM grid.
        var beats: [Double] = [1]
        for index in 1..<200 {
            let last = beats[beats.count - 1]
            let stretch: Double = 1 + 0.03 * sin(2 * Double.pi * Double(index) / 80)
            beats.append(last + 0.5 * stretch)
        }
        let first = beats[0]
        let last = beats[beats.count - 1]
        let piece = GridPiece(span: first...last, grid: GridFitter.Grid(anchor: 1, period: 0.5))
        let explained = GridFitter.explainedAtAnyPhase(beats, pieces: [piece])
        #expect(Double(explained) < GridModelSelector.minimumExplained * Double(beats.count), "\(explained)")
        // The same beats steady, at a swung shift for most of the song: all explained.
        let steady: [Double] = (0..<200).map { index in
            let shift: Double = index >= 40 ? 1.0 / 3.0 : 0
            return 1 + Double(index) * 0.5 + shift
        }
        #expect(GridFitter.explainedAtAnyPhase(steady, pieces: [piece]) == steady.count)
    }
}
