// SPDX-License-Identifier: GPL-3.0-or-later

import Foundation
import Testing

@testable import BeatAnalysis

/// The one-line summary of followed beats reads the tempo over two bars, not beat by beat
/// (`AnalysisReport.followedTempo`).
@Suite("Followed tempo summary")
struct FollowedTempoSummaryTests {
    @Test("a stray interval does not set the range; a change of tempo does")
    func strayIntervalsAreIgnored() throws {
        // 120 BPM for 32 beats, one beat 60 ms late (an interval of 0.56 s, then one of 0.44 s:
        // 107 and 136 BPM beat by beat), then 132 BPM for 32 beats.
        var beats = (0..<32).map { 0.5 * Double($0) }
        beats[10] += 0.06
        let last = try #require(beats.last)
        beats += (1...32).map { last + 60 / 132 * Double($0) }
        let (lowest, highest, median) = AnalysisReport.followedTempo(beats)
        #expect(abs(lowest - 120) < 1e-6)
        #expect(abs(highest - 132) < 1e-6)
        // 32 intervals at 132 BPM against 31 at 120 (the stray pair among them): the median is 132.
        #expect(abs(median - 132) < 1e-6)
    }

    @Test("short and empty beat lists")
    func shortLists() {
        let three = AnalysisReport.followedTempo([0, 0.5, 1.0])
        #expect(abs(three.lowest - 120) < 1e-6 && abs(three.highest - 120) < 1e-6 && abs(three.median - 120) < 1e-6)
        let none = AnalysisReport.followedTempo([1.0])
        #expect(none.lowest == 0 && none.highest == 0 && none.median == 0)
    }
}
