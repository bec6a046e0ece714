// SPDX-License-Identifier: GPL-3.0-or-later

import Testing

@testable import BeatAnalysis

/// Followed beats through a drumless passage half a beat off the drums around it move onto the drums'
/// beat (`GridFitter.drumlessPassagesOnTheDrums`).
@Suite("A drumless passage half a beat off")
struct DrumlessPassageTests {
    /// 120 BPM from 1 s: the song's beat.
    static let period = 0.5
    static func beat(_ index: Int) -> Double { 1 + Double(index) * period }

    /// A song of 40 beats whose drums play on its beats except at `drumless` (beat numbers): kick plus
    /// snare 1.1 within 10 ms of a beat that has drums, 0.02 anywhere else.
    static func drums(drumless: Range<Int>) -> (Double) -> Float? {
        { time in
            let index = Int(((time - 1) / period).rounded())
            let onABeat = abs(time - beat(index)) < 0.01 && (0..<40).contains(index)
            return onABeat && !drumless.contains(index) ? 1.1 : 0.02
        }
    }

    /// The tracker's 40 beats: on the song's beat, but half a beat early at `offBeats`.
    static func tracked(offBeats: Range<Int>) -> [Double] {
        (0..<40).map { offBeats.contains($0) ? beat($0) - period / 2 : beat($0) }
    }

    static func isOnTheBeat(_ time: Double) -> Bool {
        let position = (time - 1) / period
        return abs(position - position.rounded()) < 1e-9
    }

    /// The tracker's beats with `offBeats` half a beat early, moved by the drums of a song drumless at
    /// `drumless`; expects every beat on the song's beat and none lost or doubled.
    static func movedOntoTheBeat(offBeats: Range<Int>, drumless: Range<Int>) throws -> [Double] {
        let beats = tracked(offBeats: offBeats)
        let moved = try #require(GridFitter.drumlessPassagesOnTheDrums(beats, drums: drums(drumless: drumless)))
        #expect(moved.allSatisfy(isOnTheBeat))
        #expect(moved.count == 40)
        return moved
    }

    @Test("a drumless intro on the off-beats moves onto the beat of the drums after it")
    func introMoves() throws {
        let moved = try Self.movedOntoTheBeat(offBeats: 0..<12, drumless: 0..<14)
        // None lost after the intro, none doubled.
        #expect(Array(moved.suffix(28)) == Array(Self.tracked(offBeats: 0..<12).suffix(28)))
        #expect(zip(moved.dropFirst(), moved).allSatisfy { abs($0 - $1 - Self.period) < 1e-9 })
    }

    /// A break on the off-beats between two drummed sides on the beat (beats 14 to 23 off, no drums
    /// at 12 to 25); and a stretch the tracker took half a beat off the drums (beats 0 to 11) before a
    /// break on the beat (no drums at 12 to 23): no drum is heard at that stretch's beats, so it is
    /// part of the passage, and the drums after it put it on their beat.
    @Test(
        "a break on the off-beats between drummed sides moves, and so does a stretch off the drums beside one",
        arguments: zip([14..<24, 0..<12], [12..<26, 12..<24]))
    func breakMoves(offBeats: Range<Int>, drumless: Range<Int>) throws {
        _ = try Self.movedOntoTheBeat(offBeats: offBeats, drumless: drumless)
    }

    @Test("a drumless intro on the beat, a short one, or one with its drums unheard stays")
    func staysOnTheBeat() {
        let onBeat = Self.tracked(offBeats: 0..<0)
        #expect(GridFitter.drumlessPassagesOnTheDrums(onBeat, drums: Self.drums(drumless: 0..<14)) == nil)
        // Seven drumless beats make no passage.
        let short = Self.tracked(offBeats: 0..<7)
        #expect(GridFitter.drumlessPassagesOnTheDrums(short, drums: Self.drums(drumless: 0..<7)) == nil)
        // The detector does not reach: nothing is known to be drumless.
        let intro = Self.tracked(offBeats: 0..<12)
        #expect(GridFitter.drumlessPassagesOnTheDrums(intro, drums: { _ in nil }) == nil)
        // No drums anywhere: no side says where the beat is.
        #expect(GridFitter.drumlessPassagesOnTheDrums(intro, drums: Self.drums(drumless: 0..<40)) == nil)
    }

    @Test("an outro half a beat off a side whose drums fall between its beats stays")
    func sideOffItsDrumsIsNoEvidence() {
        // Drums louder half a beat after each beat (1.1) than on it (0.6) up to beat 27, none from
        // beat 28: the outro's beats, half a beat off the side's, are where those drums are, and the
        // side's own beats are no evidence of the song's beat.
        let beats = Self.tracked(offBeats: 28..<40)
        let drums: (Double) -> Float? = { time in
            let position = (time - 1) / Self.period
            guard position < 27.75 else { return 0.02 }
            if abs(position - position.rounded()) < 0.02 { return 0.6 }
            return abs(position - position.rounded(.down) - 0.5) < 0.02 ? 1.1 : 0.02
        }
        #expect(GridFitter.drumlessPassagesOnTheDrums(beats, drums: drums) == nil)
        // The same outro beside a side whose drums fall on its beats moves.
        #expect(GridFitter.drumlessPassagesOnTheDrums(beats, drums: Self.drums(drumless: 28..<40)) != nil)
    }

    @Test("only the part half a beat off moves: the part ends where the beats jump back")
    func partEndsWhereTheBeatsJumpBack() throws {
        // A drumless intro (beats 0 to 19) on the beat but for beats 10 to 15, drums from beat 20.
        let moved = try Self.movedOntoTheBeat(offBeats: 10..<16, drumless: 0..<20)
        #expect(Array(moved.prefix(10)) == Array(Self.tracked(offBeats: 10..<16).prefix(10)))
    }

    @Test("a side with a jump in it is no line to read a passage against")
    func sideWithAJumpIsNoEvidence() {
        // Drums on the beat up to beat 12, none after. An outro the tracker followed on the off-beats
        // moves when the eight beats before it are one steady run.
        let steady = Self.tracked(offBeats: 13..<40)
        #expect(GridFitter.drumlessPassagesOnTheDrums(steady, drums: Self.drums(drumless: 13..<40)) != nil)
        // An outro a fifth of a beat late, after a side whose first beat is half a beat late (the end
        // of a stretch the tracker took on the off-beats): the line through that side is pulled so
        // that the outro lies 0.3 to 0.7 of a beat from it, but the side is no steady run, so it says
        // nothing and the outro stays.
        let jumped = (0..<40).map { index -> Double in
            if index == 5 { return Self.beat(index) + Self.period / 2 }
            return index >= 13 ? Self.beat(index) + Self.period / 5 : Self.beat(index)
        }
        #expect(GridFitter.drumlessPassagesOnTheDrums(jumped, drums: Self.drums(drumless: 13..<40)) == nil)
    }

    @Test("where the tracker's stretch off the beat runs on past the passage, no two beats end up half a beat apart")
    func noHalfBeatWhereThePartMeetsTheBeatsKept() throws {
        // Drums on the beat up to beat 9, none at 10 to 23, then on every beat and off-beat (eighths);
        // the tracker on the beat up to beat 13, half a beat early at 14 to 29. The side after the
        // passage (beats 24 to 31) has a jump in it and says nothing.
        let beats = Self.tracked(offBeats: 14..<30)
        let drums: (Double) -> Float? = { time in
            let position = (time - 1) / Self.period
            guard position < 9.75 || position > 23.25 else { return 0.02 }
            let eighth = position < 9.75 ? position : 2 * position
            return abs(eighth - eighth.rounded()) < 0.02 ? 1.1 : 0.02
        }
        let moved = try #require(GridFitter.drumlessPassagesOnTheDrums(beats, drums: drums))
        // The part (beats 14 to 22) on the beat; the beat that would sit half a beat before the
        // tracker's next (off) beat is dropped, leaving a beat and a half there.
        #expect(moved.prefix(23).allSatisfy(Self.isOnTheBeat))
        #expect(zip(moved.dropFirst(), moved).allSatisfy { $0 - $1 > 2 * Self.period / 3 })
        #expect(moved.count == 39)
    }
}
