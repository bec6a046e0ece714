// SPDX-License-Identifier: GPL-3.0-or-later

import Foundation
import Testing

@testable import BeatAnalysis

/// A grid piece is a fit through the tracker's beats, so its phase is the one most of them share, not
/// only the one of the clearest stretch (``GridFitter/piece(_:line:observations:tracked:matcher:novelty:)``).
@Suite("Grid piece phase")
struct PiecePhaseTests {
    /// 120 BPM beats from 1 s to 56.5 s.
    static let beats = (0..<112).map { 1 + Double($0) * 0.5 }

    @Test("an intro tracked on its off-beat plucks does not put the whole grid on the off-beats")
    func phaseOfMostTrackedBeats() throws {
        let offBeats = Self.beats.map { $0 + 0.25 }
        // The first 12 s: off-beat plucks alone (the clearest stretch). Then the beat, with the
        // off-beats still sounding a little weaker.
        let onsets =
            offBeats.map { (time: $0, height: Float(1)) }
            + Self.beats.filter { $0 >= 13 }.map { (time: $0, height: Float(1.2)) }
        let novelty = OnsetCurves.peaks(onsets, seconds: 60)
        let matcher = PeakMatcher(peaks: novelty.envelope.peaks())
        // The tracker followed the plucks, then the beat.
        let tracked = offBeats.filter { $0 < 13 } + Self.beats.filter { $0 >= 13 }
        let fitter = GridFitter()
        let observations = fitter.observe(tracked, matcher: matcher, period: 0.5)
        try #require(observations.count == tracked.count)
        let first = try #require(observations.first)
        let line = BeatLine(origin: first.index, anchor: first.time, period: 0.5)
        let (piece, explained) = fitter.piece(
            0..<observations.count, line: line, observations: observations, tracked: tracked, matcher: matcher,
            novelty: novelty)
        #expect(abs(piece.grid.period - 0.5) < 0.001)
        // On the beat: a grid time within 15 ms of every beat from 13 s on, and those beats explained.
        for beat in Self.beats.filter({ $0 >= 13 }) {
            let k = ((beat - piece.grid.anchor) / piece.grid.period).rounded()
            #expect(abs(piece.grid.time(Int(k)) - beat) < 0.015, "grid misses the beat at \(beat)")
        }
        #expect(explained >= Self.beats.filter { $0 >= 13 }.count)
    }
}
