// SPDX-License-Identifier: GPL-3.0-or-later

import Foundation
import Testing

@testable import BeatAnalysis

/// The preferred tempo decides the octave of the tempo estimate where the metrical hierarchy leaves it
/// open (``GridFitter/preferredTempo``, step 3 of docs/analyze.md).
@Suite("Preferred tempo")
struct PreferredTempoTests {
    /// An onset envelope (hop 10 ms) over 61 s: a peak every 0.46 s (130.4 BPM) from 1 s, of 1 and
    /// `weak` in turn. Each peak is three hops wide, as a real onset's rise. Its strong peaks alone are
    /// a pulse at 65.2 BPM.
    static func alternating(weak: Float) -> Novelty {
        OnsetCurves.peaks((0..<128).map { (1 + Double($0) * 0.46, $0 % 2 == 0 ? 1 : weak) }, seconds: 61)
    }

    @Test("the comb picks the slow pulse; the preferred tempo, not the limits' centre, likes its double")
    func octaveOfThePick() throws {
        let novelty = Self.alternating(weak: 0.25)
        let span = 1.0...59.5
        let plain = try #require(novelty.period(in: span, minimumBPM: 60, maximumBPM: 200))
        #expect(abs(plain.seconds - 0.92) < 0.01)
        #expect(plain.octave == 1)
        let preferred = try #require(novelty.period(in: span, minimumBPM: 60, maximumBPM: 200, preferredBPM: 120))
        #expect(abs(preferred.seconds - 0.92) < 0.01)
        #expect(preferred.octave == 2)
        // A preferred tempo nearer the slow pulse keeps it.
        let slow = try #require(novelty.period(in: span, minimumBPM: 60, maximumBPM: 200, preferredBPM: 80))
        #expect(slow.octave == 1)
        // An octave outside the tempo limits is never taken.
        let capped = try #require(novelty.period(in: span, minimumBPM: 50, maximumBPM: 120, preferredBPM: 120))
        #expect(capped.octave == 1)
    }

    @Test("the hierarchy has the last word: every other beat nearly empty halves the preferred octave again")
    func hierarchyFirst() throws {
        let novelty = Self.alternating(weak: 0.25)
        let matcher = PeakMatcher(peaks: novelty.envelope.peaks())
        let fit = try #require(GridFitter().fitSegment(novelty: novelty, matcher: matcher, span: 1.0...59.5))
        #expect(abs(fit.grid.period - 0.92) < 0.005)
        // On the strong peaks: a grid point within 5 ms of 1 s + k · 0.92 s.
        let offset = (fit.grid.anchor - 1).truncatingRemainder(dividingBy: 0.92)
        #expect(min(abs(offset), 0.92 - abs(offset)) < 0.005)
    }

    @Test("120 BPM where the tempo limits hold it, their geometric mean where they do not")
    func centre() {
        #expect(GridFitter().preferredTempo == 120)
        var options = GridFitOptions()
        options.minimumBPM = 140
        options.maximumBPM = 300
        #expect(abs(GridFitter(options: options).preferredTempo - (140.0 * 300).squareRoot()) < 1e-9)
    }
}
