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

    @Test("a ramp the tracker left for the off-beats for a while is grown against the onsets, not followed")
    func rampGrownPastASlip() throws {
        // 300 beats speeding up from 120 to about 128 BPM, an onset on every beat and a weaker one
        // halfway to the next. The tracker follows the off-beats from beat 100 to 160, so every beat
        // after that is numbered one less than its place on the ramp.
        let beats = Self.ramp(count: 300, shrink: 0.03 / 300, jitter: 0)
        var peaks: [OnsetPeak] = []
        for index in beats.indices {
            peaks.append(OnsetPeak(time: beats[index], strength: 1))
            if index + 1 < beats.count {
                peaks.append(OnsetPeak(time: (beats[index] + beats[index + 1]) / 2, strength: 0.5))
            }
        }
        let matcher = PeakMatcher(peaks: peaks)
        let slipped = (100..<160).map { (beats[$0] + beats[$0 + 1]) / 2 }
        let tracked = Array(beats[0..<100]) + slipped + Array(beats[161...])
        let observations = tracked.enumerated().map { BeatObservation(index: $0.offset, time: $0.element) }
        func explained(_ range: Range<Int>, _ line: BeatLine) -> (GridPiece, Int) {
            let grid = GridFitter.Grid(anchor: line.time(0), period: line.period)
            let span = observations[range.lowerBound].time...observations[range.upperBound - 1].time
            return (GridPiece(span: span, grid: grid), GridFitter.explained(tracked, by: grid, in: span))
        }
        let fitter = GridFitter()
        let span = try #require(tracked.first)...(try #require(tracked.last))
        // Seeded from a grid through beats 30 to 70, at beat 50's interval.
        let seed = GridPiece(
            span: beats[30]...beats[70], grid: GridFitter.Grid(anchor: beats[50], period: beats[51] - beats[50]))
        let grown = try #require(fitter.grownRamp([seed], tracked: tracked, matcher: matcher, span: span))
        // It lies on the beats, the slipped stretch's too, and explains every tracked beat but those 60.
        let rampBeats = fitter.beats(of: grown.ramp, in: span)
        for (index, beat) in beats.enumerated() where index >= 1 && index < 299 {
            let nearest = rampBeats.map { abs($0 - beat) }.min() ?? 1
            #expect(nearest < 0.002, "beat \(index) at \(beat): \(nearest * 1000) ms from the ramp")
        }
        #expect(grown.explained == tracked.count - 60)
        let selected = GridModelSelector().select(
            observations, tracked: tracked.count, fit: explained, trackedBeatsAreStronger: { _ in true },
            grownRamp: { fitter.grownRamp($0, tracked: tracked, matcher: matcher, span: span) })
        guard case .ramp = selected else {
            Issue.record("expected a ramp, got \(selected)")
            return
        }
        // By the beats' numbers alone, no ramp explains them: they are followed.
        let byNumber = GridModelSelector().select(
            observations, tracked: tracked.count, fit: explained, trackedBeatsAreStronger: { _ in true })
        #expect(byNumber == .follow)
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
