// SPDX-License-Identifier: GPL-3.0-or-later

import Testing

@testable import BeatAnalysis

/// A short tempo segment at either end of the map where no drums play is no tempo change: the drummed
/// grid beside it carries on over it (`GridFitter.withoutDrumlessEnds`).
@Suite("A short drumless end segment")
struct DrumlessEndTests {
    /// The drums' tempo, 164 BPM.
    static let period = 60.0 / 164

    /// A segment of `count` beats `interval` apart from `start`.
    static func segment(from start: Double, every interval: Double, count: Int) -> FittedSegment {
        FittedSegment(bpm: 60 / interval, firstBeat: start, beats: (0..<count).map { start + Double($0) * interval })
    }

    /// An intro the tracker followed at 143.6 BPM from 0 s (20 beats), then the drums' 164 BPM for 100
    /// beats from the next point of their grid laid from 0 s.
    static let intro = segment(from: 0, every: 60 / 143.6, count: 20)
    static let introEnd = 20 * 60 / 143.6
    static let drummed = segment(from: (introEnd / period).rounded(.up) * period, every: period, count: 100)

    /// Kick plus snare 1.2 from `drumsFrom` to `drumsUntil` seconds, 0.05 elsewhere.
    static func drums(from drumsFrom: Double, until drumsUntil: Double = .infinity) -> (Double) -> Float? {
        { $0 >= drumsFrom && $0 < drumsUntil ? 1.2 : 0.05 }
    }

    static func withoutEnds(_ segments: [FittedSegment], drums: (Double) -> Float?) -> [FittedSegment]? {
        let end = (segments.last?.beats.last ?? 0) + 0.2
        return GridFitter.withoutDrumlessEnds(
            segments, span: 0...end, sounding: 0...end, duration: end + 1, drums: drums)
    }

    /// Whether `beats` lie on the drums' grid laid from 0 s.
    static func onTheDrumsGrid(_ beats: [Double]) -> Bool {
        beats.allSatisfy { abs($0 / period - ($0 / period).rounded()) < 1e-6 }
    }

    @Test("a drumless intro of 20 beats before the drums' tempo goes: their grid carries on back to 0 s")
    func introGoes() throws {
        // The drums come in four beats after the change the onsets placed.
        let drums = Self.drums(from: Self.drummed.firstBeat + 4 * Self.period - 0.01)
        let kept = try #require(Self.withoutEnds([Self.intro, Self.drummed], drums: drums))
        try #require(kept.count == 1)
        let first = try #require(kept[0].beats.first)
        #expect(abs(first) < 1e-9)
        #expect(kept[0].firstBeat == first)
        #expect(Self.onTheDrumsGrid(kept[0].beats))
        #expect(Array(kept[0].beats.suffix(100)) == Self.drummed.beats)
        #expect(kept[0].bpm == Self.drummed.bpm)
    }

    @Test("a drumless outro of 26 beats after the drums goes: their grid carries on to the music's end")
    func outroGoes() throws {
        let song = Self.segment(from: 0, every: Self.period, count: 200)
        let outroStart = try #require(song.beats.last) + Self.period
        let outro = Self.segment(from: outroStart, every: 0.9, count: 26)
        let kept = try #require(Self.withoutEnds([song, outro], drums: Self.drums(from: 0, until: outroStart - 0.1)))
        try #require(kept.count == 1)
        let end = try #require(outro.beats.last) + 0.2
        #expect(Self.onTheDrumsGrid(kept[0].beats))
        #expect(Array(kept[0].beats.prefix(200)) == song.beats)
        let last = try #require(kept[0].beats.last)
        #expect(last <= end && last > end - Self.period)
    }

    @Test("both ends go around a real step, which stays")
    func bothEndsGoTheStepStays() throws {
        let first = Self.drummed
        let stepAt = try #require(first.beats.last) + Self.period
        let second = Self.segment(from: stepAt, every: 60 / 178.8, count: 80)
        let outroAt = try #require(second.beats.last) + 60 / 178.8
        let outro = Self.segment(from: outroAt, every: 0.9, count: 10)
        let drums = Self.drums(from: first.firstBeat, until: outroAt - 0.1)
        let kept = try #require(Self.withoutEnds([Self.intro, first, second, outro], drums: drums))
        #expect(kept.map(\.bpm) == [first.bpm, second.bpm])
        #expect(abs(kept.first?.beats.first ?? 1) < 1e-9)
        #expect(Array((kept.last?.beats ?? []).prefix(80)) == second.beats)
        #expect((kept.last?.beats.count ?? 0) > 80)
    }

    @Test("a real step near a short song's end stays: its drums play on both sides")
    func drummedStepStays() throws {
        let song = Self.segment(from: 0, every: Self.period, count: 33)
        let stepAt = try #require(song.beats.last) + Self.period
        let step = Self.segment(from: stepAt, every: 60 / 178.8, count: 31)
        #expect(Self.withoutEnds([song, step], drums: Self.drums(from: 0)) == nil)
    }

    /// A short song's real step begun inside a drum break: the drums come back on the last segment's
    /// twentieth beat, so ten of its 29 beats hear them, fewer than half (session 82's held-out copy,
    /// which trial SE's first form took for a drumless end).
    @Test("a real step whose drums come back inside its segment stays")
    func stepInsideABreakStays() throws {
        let song = Self.segment(from: 0, every: Self.period, count: 44)
        let stepAt = try #require(song.beats.last) + Self.period
        let step = Self.segment(from: stepAt, every: 60 / 178.8, count: 29)
        let breakFrom = song.beats[34] - 0.01
        let drums: (Double) -> Float? = { $0 >= breakFrom && $0 < step.beats[19] - 0.01 ? 0.05 : 1.2 }
        #expect(Self.withoutEnds([song, step], drums: drums) == nil)
    }

    @Test(
        "an intro stays when it has 32 beats, when a drum plays at any of its beats, when the grid beside it has no drums, or when no drum can be read"
    )
    func introStays() throws {
        let long = Self.segment(from: 0, every: 60 / 143.6, count: 32)
        let longEnd = 32 * 60 / 143.6
        let after = Self.segment(from: longEnd, every: Self.period, count: 100)
        #expect(Self.withoutEnds([long, after], drums: Self.drums(from: longEnd - 0.01)) == nil)
        let parts = [Self.intro, Self.drummed]
        let start = Self.drummed.firstBeat - 0.01
        // One drum, on the intro's sixth beat.
        let sixth = Self.intro.beats[5]
        let one: (Double) -> Float? = { abs($0 - sixth) < 0.01 ? 1.2 : Self.drums(from: start)($0) }
        #expect(Self.withoutEnds(parts, drums: one) == nil)
        // Drums only over the first ten of the next segment's hundred beats.
        #expect(Self.withoutEnds(parts, drums: Self.drums(from: start, until: start + 10 * Self.period)) == nil)
        #expect(Self.withoutEnds(parts, drums: { _ in nil }) == nil)
    }
}
