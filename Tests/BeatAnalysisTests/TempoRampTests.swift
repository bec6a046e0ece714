// SPDX-License-Identifier: GPL-3.0-or-later

import Foundation
import Testing

@testable import BeatAnalysis

/// A tempo that changes steadily is one ramp, not a staircase of tempo segments (``TempoRamp``,
/// ``GridModelSelector/rampRatherThanSteps(_:pieces:sums:sigma:)``); a step stays two segments.
@Suite("Tempo ramps")
struct TempoRampTests {
    /// `count` beats from 0.5 s whose interval shrinks steadily from 0.5 s by `shrink` per beat, with
    /// a small alternating jitter (the onsets' own noise).
    static func ramp(count: Int, shrink: Double, jitter: Double = 0.001) -> [Double] {
        var beats: [Double] = []
        var t = 0.5
        for index in 0..<count {
            beats.append(t + (index % 2 == 0 ? jitter : -jitter))
            t += 0.5 - shrink * Double(index)
        }
        return beats
    }

    @Test("a parabola through beat times is recovered exactly; half a beat later lands on the midpoints")
    func parabola() throws {
        let times = Self.ramp(count: 100, shrink: 0.0002, jitter: 0)
        let ramp = try #require(TempoRamp.fit(times.enumerated().map { (index: $0.offset, time: $0.element) }))
        for (index, time) in times.enumerated() { #expect(abs(ramp.time(index) - time) < 1e-9) }
        let later = ramp.halfBeatLater
        for index in 0..<99 {
            #expect(abs(later.time(index) - (times[index] + times[index + 1]) / 2) < 0.0001)
        }
    }

    @Test("the selector takes a steady 120 → 130 BPM ramp as one ramp; without ramps it is followed")
    func selectorPrefersTheRamp() throws {
        let beats = Self.ramp(count: 200, shrink: 0.0385 / 200)
        let observations = beats.enumerated().map { BeatObservation(index: $0.offset, time: $0.element) }
        func explained(_ range: Range<Int>, _ line: BeatLine) -> (GridPiece, Int) {
            let grid = GridFitter.Grid(anchor: line.time(0), period: line.period)
            let count = observations[range].filter { abs($0.time - line.time($0.index)) <= 0.015 }.count
            let span = observations[range.lowerBound].time...observations[range.upperBound - 1].time
            return (GridPiece(span: span, grid: grid), count)
        }
        let model = GridModelSelector().select(
            observations, tracked: beats.count, fit: explained, trackedBeatsAreStronger: { _ in true })
        guard case .ramp(let ramp) = model else {
            Issue.record("expected a ramp, got \(model)")
            return
        }
        for (index, beat) in beats.enumerated() { #expect(abs(ramp.time(index) - beat) < 0.002) }
        var stepsOnly = GridModelSelector()
        stepsOnly.allowRamp = false
        let steps = stepsOnly.select(
            observations, tracked: beats.count, fit: explained, trackedBeatsAreStronger: { _ in true })
        // Without ramps, no staircase of 32-beat pieces explains it well enough: it is followed.
        #expect(steps == .follow)
    }

    @Test("a groove speeding up from 120 to 130 BPM is analysed as a ramp, every beat within 5 ms")
    func grooveRamp() throws {
        let beats = Self.ramp(count: 200, shrink: 0.0385 / 200, jitter: 0)
        let (result, folder) = try GridFitTests.analyse(ModelSelectionTests.groove(beats))
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(result.fit.method == .ramp, "method \(result.fit.method)")
        let (errors, missed) = GridFitTests.compare(result.fit.beats, beats)
        #expect(missed <= 2)
        let sorted = errors.map(abs).sorted()
        let p95 = try #require(sorted.isEmpty ? nil : sorted[Int(Double(sorted.count - 1) * 0.95)])
        #expect(p95 <= 0.005, "95th percentile error \(p95 * 1000) ms")
    }
}
