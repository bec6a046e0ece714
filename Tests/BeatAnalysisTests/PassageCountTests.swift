// SPDX-License-Identifier: GPL-3.0-or-later

import Testing

@testable import BeatAnalysis

/// A drumless passage whose chord changes count another number of beats than the tracker's gets that
/// many (`GridFitter.drumlessPassagesCountedByHarmony`).
@Suite("A drumless passage counted by its chords")
struct PassageCountTests {
    /// 120 BPM from 1 s: the song's beat; a bar is four beats, 2 s.
    static let period = 0.5
    static func beat(_ index: Int) -> Double { 1 + Double(index) * period }
    static let count = 80
    /// The analysis's hop at 22.05 kHz.
    static let hop = 256.0 / 22_050

    /// Drums (kick plus snare 1.1) within 10 ms of each of the song's beats outside `drumless`, 0.02
    /// anywhere else.
    static func drums(drumless: Range<Int>) -> (Double) -> Float? {
        { time in
            let index = Int(((time - 1) / period).rounded())
            let onABeat = abs(time - beat(index)) < 0.01 && (0..<count).contains(index)
            return onABeat && !drumless.contains(index) ? 1.1 : 0.02
        }
    }

    /// A pitch-class profile whose chord changes on every bar line of the song (C, F, G, A minor in
    /// turn), or one chord throughout when `changing` is false: 12 values per frame of eight hops.
    static func chroma(changing: Bool = true) -> CompactFloats {
        let roots = [0, 5, 7, 9]
        let frameDuration = hop * Double(ChromaProfile.hopsPerFrame)
        var values = CompactFloats()
        for frame in 0..<Int(50 / frameDuration) {
            let time = Double(frame) * frameDuration
            let bar = max(0, Int(((time - 1) / (4 * period)).rounded(.down)))
            let root = changing ? roots[bar % roots.count] : 0
            let chord: Set<Int> = [root, (root + 4) % 12, (root + 7) % 12]
            for pc in 0..<12 { values.append(chord.contains(pc) ? 1 : 0.05) }
        }
        return values
    }

    /// The tracker's beats: on the song's beat up to beat `from` and from beat `to` on, and
    /// `intervals` even intervals between those two beats.
    static func tracked(from: Int, to: Int, intervals: Int) -> [Double] {
        let start = beat(from)
        let step = (beat(to) - start) / Double(intervals)
        let passage = (1..<intervals).map { start + Double($0) * step }
        return (0...from).map(beat) + passage + (to..<count).map(beat)
    }

    @Test("a passage of eight bars and more where the tracker gained two beats gets the chords' count")
    func trackerThatGainedBeats() throws {
        // No drums at beats 20 to 55: 37 intervals from beat 19 to beat 56, the tracker's 39.
        let beats = Self.tracked(from: 19, to: 56, intervals: 39)
        let counted = try #require(
            GridFitter.drumlessPassagesCountedByHarmony(
                beats, drums: Self.drums(drumless: 20..<56), chroma: Self.chroma(), hopDuration: Self.hop))
        try #require(counted.count == Self.count)
        for (index, time) in counted.enumerated() { #expect(abs(time - Self.beat(index)) < 1e-9) }
    }

    @Test("the tracker's own count, a chord held throughout, or a passage under eight bars stays")
    func stays() {
        let drums = Self.drums(drumless: 20..<56)
        let right = Self.tracked(from: 19, to: 56, intervals: 37)
        #expect(
            GridFitter.drumlessPassagesCountedByHarmony(
                right, drums: drums, chroma: Self.chroma(), hopDuration: Self.hop) == nil)
        let gained = Self.tracked(from: 19, to: 56, intervals: 39)
        #expect(
            GridFitter.drumlessPassagesCountedByHarmony(
                gained, drums: drums, chroma: Self.chroma(changing: false), hopDuration: Self.hop) == nil)
        // No drums at beats 20 to 43: 25 intervals, under eight bars.
        let short = Self.tracked(from: 19, to: 44, intervals: 27)
        #expect(
            GridFitter.drumlessPassagesCountedByHarmony(
                short, drums: Self.drums(drumless: 20..<44), chroma: Self.chroma(), hopDuration: Self.hop) == nil)
    }
}
