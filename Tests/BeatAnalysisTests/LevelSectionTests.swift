// SPDX-License-Identifier: GPL-3.0-or-later

import Foundation
import Testing

@testable import BeatAnalysis

/// Followed sections the tracker took at 4⁄3 or ¾ of the tempo around them are tracked again at that
/// tempo, where those beats stand out more (``GridFitter/repairingLevelSections(_:novelty:peaks:span:)``).
@Suite("Level sections")
struct LevelSectionTests {
    /// An onset envelope (hop 10 ms, 80 s) with a three-hop peak at each of `beats`.
    static func envelope(_ beats: [Double]) -> (Novelty, [OnsetPeak]) {
        let novelty = OnsetCurves.peaks(beats.map { (time: $0, height: Float(1)) }, seconds: 80)
        return (novelty, novelty.envelope.peaks())
    }

    @Test("a section tracked at 4⁄3 of a steady 120 BPM song is put back on its beats")
    func dottedSectionRepaired() throws {
        let truth = (0..<150).map { 1 + Double($0) * 0.5 }
        let (novelty, peaks) = Self.envelope(truth)
        // The tracker's beats: the song's, except 30–45 s, taken at 160 BPM (0.375 s).
        var tracked = truth.filter { $0 < 30 }
        var time = 30.0
        while time < 45 {
            tracked.append(time)
            time += 0.375
        }
        tracked += truth.filter { $0 >= 45 }
        let repaired = GridFitter().repairingLevelSections(tracked, novelty: novelty, peaks: peaks, span: 1...75.5)
        let section = repaired.filter { $0 > 30.2 && $0 < 44.8 }
        #expect(section.count == 29)
        for beat in section {
            let nearest = try #require(truth.min { abs($0 - beat) < abs($1 - beat) })
            #expect(abs(beat - nearest) < 0.02)
        }
        #expect(repaired.filter { $0 < 30 } == truth.filter { $0 < 30 })
        #expect(repaired.filter { $0 >= 45 } == truth.filter { $0 >= 45 })
    }

    @Test("a song that really changes tempo by 4⁄3 keeps its beats")
    func realChangeKept() {
        // 120 BPM for 45 s, then 160 BPM.
        var truth = (0..<90).map { 1 + Double($0) * 0.5 }
        var time = 46.0
        while time < 75 {
            truth.append(time)
            time += 0.375
        }
        let (novelty, peaks) = Self.envelope(truth)
        let repaired = GridFitter().repairingLevelSections(truth, novelty: novelty, peaks: peaks, span: 1...75)
        #expect(repaired == truth)
    }

    @Test("beats without a jump in tempo are returned as they are")
    func steadyUntouched() {
        let truth = (0..<150).map { 1 + Double($0) * 0.5 }
        let (novelty, peaks) = Self.envelope(truth)
        #expect(GridFitter().repairingLevelSections(truth, novelty: novelty, peaks: peaks, span: 1...75.5) == truth)
    }
}
