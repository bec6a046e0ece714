// SPDX-License-Identifier: GPL-3.0-or-later

import Testing

@testable import BeatAnalysis

/// A tempo change the onsets put inside a drumless passage goes to where the drums return, when both
/// grids meet there (`GridFitter.drumsReturn`).
@Suite("A change in a drumless passage")
struct DrumlessChangeTests {
    /// 100 BPM from 0 s: a point at the step, 30 s.
    static let before = GridFitter.Grid(anchor: 0, period: 0.6)
    /// 109.1 BPM from the step at 30 s.
    static let after = GridFitter.Grid(anchor: 30, period: 0.55)
    /// The onsets' change: ten later beats before the step.
    static let early = 30 - 10 * 0.55
    static let zone = 20.0...36.0

    /// A kick and a snare at every point, but none from `start` until `end`.
    static func drums(silentFrom start: Double, to end: Double) -> @Sendable (Double) -> Float? {
        { $0 > start - 0.01 && $0 < end - 0.01 ? 0.01 : 1.3 }
    }

    /// Drums from 0 s, a drumless passage from 20 s, the drums back at the step.
    static let passage = drums(silentFrom: 20, to: 30)

    static func change(from before: GridFitter.Grid = before, drums: (Double) -> Float?) -> Double? {
        GridFitter.drumsReturn(from: before, since: 0, to: after, change: early, over: zone, drums: drums)
    }

    @Test("the change moves to the drums' return, a point of both grids")
    func movesToTheReturn() throws {
        let change = try #require(Self.change(drums: Self.passage))
        #expect(abs(change - 30) < 1e-9)
    }

    @Test(
        "it stays where the drums play at the change, only return past the zone, cannot be read, or never played at the earlier tempo"
    )
    func staysWithoutAPassage() {
        let cases: [(Double) -> Float?] = [
            Self.drums(silentFrom: 26, to: 30), Self.drums(silentFrom: 20, to: 40), { _ in nil },
            Self.drums(silentFrom: 0, to: 30),
        ]
        for drums in cases { #expect(Self.change(drums: drums) == nil) }
    }

    @Test("it stays where the earlier grid has no point at the return (the beat would jump there)")
    func staysWhereTheGridsDoNotMeet() {
        #expect(Self.change(from: GridFitter.Grid(anchor: 0.25, period: 0.6), drums: Self.passage) == nil)
    }

    @Test("it stays where the earlier grid's beats in the passage hear a drum")
    func staysWhereTheEarlierGridHearsDrums() {
        // 27.0 s is a point of the earlier grid only (the later's are 26.7 and 27.25 s).
        let drums: (Double) -> Float? = { abs($0 - 27) < 0.01 ? 1.3 : Self.passage($0) }
        #expect(Self.change(drums: drums) == nil)
    }
}
