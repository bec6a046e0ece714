// SPDX-License-Identifier: GPL-3.0-or-later

import Foundation
import Testing

@testable import BeatAnalysis

/// Followed sections the tracker took at 4⁄3 or ¾ of the song's pulse are replaced by the beats of a
/// tracker held at that pulse, where those lie on onsets as often
/// (``GridFitter/repairingLevelSections(_:novelty:peaks:span:)``).
@Suite("Level sections")
struct LevelSectionTests {
    /// An onset envelope (hop 10 ms, 80 s) with a three-hop peak at each of `beats`.
    static func envelope(_ beats: [Double]) -> (Novelty, [OnsetPeak]) {
        let novelty = OnsetCurves.peaks(beats.map { (time: $0, height: Float(1)) }, seconds: 80)
        return (novelty, novelty.envelope.peaks())
    }

    /// Beats every `interval` seconds from `from` up to (not including) `to`.
    static func pulse(from: Double, to: Double, interval: Double) -> [Double] {
        var beats: [Double] = []
        var time = from
        while time < to {
            beats.append(time)
            time += interval
        }
        return beats
    }

    /// Expects each of `section` within 20 ms of one of `truth`.
    static func expectOnTruth(_ section: [Double], _ truth: [Double]) throws {
        for beat in section {
            let nearest = try #require(truth.min { abs($0 - beat) < abs($1 - beat) })
            #expect(abs(beat - nearest) < 0.02)
        }
    }

    @Test("a section tracked at 4⁄3 of a steady 120 BPM song is put back on its beats")
    func dottedSectionRepaired() throws {
        let truth = (0..<150).map { 1 + Double($0) * 0.5 }
        let (novelty, peaks) = Self.envelope(truth)
        // The tracker's beats: the song's, except 30–45 s, taken at 160 BPM (0.375 s).
        let tracked =
            truth.filter { $0 < 30 } + Self.pulse(from: 30, to: 45, interval: 0.375) + truth.filter { $0 >= 45 }
        let repaired = GridFitter().repairingLevelSections(tracked, novelty: novelty, peaks: peaks, span: 1...75.5)
        let section = repaired.filter { $0 > 30.2 && $0 < 44.8 }
        #expect(section.count == 29)
        try Self.expectOnTruth(section, truth)
        #expect(repaired.filter { $0 < 30 } == truth.filter { $0 < 30 })
        #expect(repaired.filter { $0 >= 45 } == truth.filter { $0 >= 45 })
    }

    @Test("a song that really changes tempo by 4⁄3 keeps its beats")
    func realChangeKept() {
        // 120 BPM for 45 s, then 160 BPM.
        let truth = (0..<90).map { 1 + Double($0) * 0.5 } + Self.pulse(from: 46, to: 75, interval: 0.375)
        let (novelty, peaks) = Self.envelope(truth)
        let repaired = GridFitter().repairingLevelSections(truth, novelty: novelty, peaks: peaks, span: 1...75)
        #expect(repaired == truth)
    }

    @Test("a section tracked at ¾ of a steady 150 BPM song, the tracker coming back gradually, is put back")
    func slowSectionRepaired() throws {
        let truth = (0..<190).map { 1 + Double($0) * 0.4 }
        let (novelty, peaks) = Self.envelope(truth)
        // The tracker's beats: the song's, except 30–50 s, taken at 112.5 BPM (0.533 s, four of the
        // song's beats against three), and from 50 s a few beats that find their way back.
        let tracked =
            truth.filter { $0 < 30 } + Self.pulse(from: 30, to: 50, interval: 0.4 * 4 / 3) + [50.45, 50.9]
            + truth.filter { $0 >= 51.3 }
        let repaired = GridFitter().repairingLevelSections(tracked, novelty: novelty, peaks: peaks, span: 1...76.6)
        let section = repaired.filter { $0 > 31 && $0 < 49 }
        #expect(section.count == 44)
        try Self.expectOnTruth(section, truth)
        // No two beats closer than half a beat, none further apart than one and a half.
        for (earlier, later) in zip(repaired, repaired.dropFirst()) {
            #expect(later - earlier > 0.2 && later - earlier < 0.6)
        }
    }

    @Test("a section at 4⁄3 inside a slower tempo region is put back at the region's tempo, not doubled")
    func sectionInSlowRegionRepaired() throws {
        // 140 BPM (0.43 s) up to 40 s, then 90 BPM (0.67 s), beyond the tracker's 30 %: a tempo region.
        let fast = 60.0 / 140
        let slow = 60.0 / 90
        let truth = Self.pulse(from: 1, to: 39.8, interval: fast) + Self.pulse(from: 40, to: 79, interval: slow)
        let (novelty, peaks) = Self.envelope(truth)
        let region = TempoRegion(span: 40...79, period: slow)
        // The tracker's beats: the song's, except 50–65 s, taken at 120 BPM (4⁄3 of the region's tempo).
        let tracked =
            truth.filter { $0 < 50 } + Self.pulse(from: 50, to: 65, interval: slow * 3 / 4)
            + truth.filter { $0 >= 65.3 }
        let repaired = GridFitter().repairingLevelSections(
            tracked, novelty: novelty, peaks: peaks, span: 1...79, regions: [region])
        let section = repaired.filter { $0 > 50.5 && $0 < 64.5 }
        // The region's own beats, every 0.67 s, and none in between (the song's 0.43 s is not the
        // interval there).
        #expect(section.count == 21)
        try Self.expectOnTruth(section, truth)
        for (earlier, later) in zip(repaired, repaired.dropFirst()) where earlier > 41 {
            #expect(later - earlier > 0.5 * slow && later - earlier < 1.5 * slow)
        }
        #expect(repaired.filter { $0 < 40 } == truth.filter { $0 < 40 })
    }

    @Test("beats without a jump in tempo are returned as they are")
    func steadyUntouched() {
        let truth = (0..<150).map { 1 + Double($0) * 0.5 }
        let (novelty, peaks) = Self.envelope(truth)
        #expect(GridFitter().repairingLevelSections(truth, novelty: novelty, peaks: peaks, span: 1...75.5) == truth)
    }
}
