// SPDX-License-Identifier: GPL-3.0-or-later

import Foundation
import Testing

@testable import BeatAnalysis

/// The snare on one beat in four as evidence of the metric level (``DrumDetector/oneInFour(_:)``,
/// ``DrumDetector/everyOtherOfOneParity(_:)``,
/// ``GridFitter/halvedOnTheSnare(_:frames:frameDuration:)``): a back-beat at half the tempo or a
/// half-time feel at this one, the tempo estimate's prior choosing between them.
@Suite("Snare level")
struct SnareLevelTests {
    @Test("a snare on one beat in four gives that beat; a back-beat, every beat, none or a few fours give none")
    func oneInFour() {
        // Hip-hop read at twice its tempo: the snare on beat 2 of each four.
        #expect(DrumDetector.oneInFour(BackBeatTests.snares([0.1, 0.9, 0.1, 0.1])) == 1)
        #expect(DrumDetector.oneInFour(BackBeatTests.snares([0.05, 0.1, 0.1, 0.85])) == 3)
        // A back-beat at this level (2 and 4), a snare on every beat, no snare: nothing stands out alone.
        #expect(DrumDetector.oneInFour(BackBeatTests.snares([0.1, 0.8, 0.1, 0.8])) == nil)
        #expect(DrumDetector.oneInFour(BackBeatTests.snares([0.8, 0.8, 0.8, 0.8])) == nil)
        #expect(DrumDetector.oneInFour(BackBeatTests.snares([0, 0, 0, 0])) == nil)
        // Seven fours are too few to read.
        #expect(DrumDetector.oneInFour(BackBeatTests.snares([0.1, 0.9, 0.1, 0.1], count: 28)) == nil)
        // Beats the detector did not read are left out, not read as silence.
        var gaps = BackBeatTests.snares([0.1, 0.9, 0.1, 0.1], count: 96)
        for index in stride(from: 2, to: gaps.count, by: 8) { gaps[index] = nil }
        #expect(DrumDetector.oneInFour(gaps) == 1)
    }

    /// A hip-hop song read at twice its tempo, as the composed song-0078 is: the snare on the first of
    /// every eight beats for 32 beats, then on the third of every four for 32, and so on.
    static let changingSnare: [Float?] = (0..<4).flatMap { section -> [Float?] in
        let pattern: [Float] = section % 2 == 0 ? [0.95, 0, 0, 0, 0, 0, 0, 0] : [0, 0, 0.95, 0]
        return (0..<32).map { pattern[$0 % pattern.count] + Float(($0 * 7) % 5) * 0.01 }
    }

    @Test("a snare on every other or every fourth beat of one parity gives that parity, section by section")
    func everyOtherOfOneParity() {
        // No one beat of the four carries it over the song, so the reading by fours finds nothing.
        #expect(DrumDetector.oneInFour(Self.changingSnare) == nil)
        #expect(DrumDetector.everyOtherOfOneParity(Self.changingSnare) == 0)
        #expect(DrumDetector.oneInFourOrFewer(Self.changingSnare) == 0)
        #expect(DrumDetector.oneInFourOrFewer([nil] + Self.changingSnare) == 1)
        // A half-time snare on one beat of each four holds too.
        #expect(DrumDetector.everyOtherOfOneParity(BackBeatTests.snares([0.1, 0.9, 0.1, 0.1])) == 1)
        // A back-beat at this level (every beat of one parity), a snare on every beat, none: nothing.
        #expect(DrumDetector.everyOtherOfOneParity(BackBeatTests.snares([0.1, 0.8, 0.1, 0.8])) == nil)
        #expect(DrumDetector.everyOtherOfOneParity(BackBeatTests.snares([0.8, 0.8, 0.8, 0.8])) == nil)
        #expect(DrumDetector.everyOtherOfOneParity(BackBeatTests.snares([0, 0, 0, 0])) == nil)
        #expect(DrumDetector.oneInFourOrFewer(BackBeatTests.snares([0.1, 0.8, 0.1, 0.8])) == nil)
        // Thirty-two beats give twelve steps along a parity: too few to read.
        #expect(DrumDetector.everyOtherOfOneParity(Array(Self.changingSnare.prefix(32))) == nil)
    }

    @Test(
        "half the tempo is taken only where it lies nearer the prior's centre (109.5 BPM) and within the limits",
        arguments: [
            // Hip-hop and funk read at twice their tempo.
            (162.0, true), (198.0, true), (180.0, true),
            // Trap and a 140 BPM song with a half-time snare, a 120 BPM song: their halves lie further.
            (140.0, false), (120.0, false), (136.0, false),
            // A 95 BPM recording: its half is under the limits.
            (95.0, false),
        ] as [(Double, Bool)])
    func prefersHalf(bpm: Double, halves: Bool) {
        #expect(GridFitter().prefers(bpm / 2, to: bpm) == halves)
    }

    @Test(
        "twice the tempo is taken only where it lies nearer the prior's centre and within the limits",
        arguments: [
            // A rock song at 136 and a metal song at 147 read at half: twice lies nearer.
            (68.0, true), (73.5, true),
            // Half a 170 BPM metal song, and an 87 BPM song: twice lies further from 109.5 BPM.
            (85.0, false), (87.0, false),
            // Twice 110 BPM is over the limits.
            (110.0, false),
        ] as [(Double, Bool)])
    func prefersDouble(bpm: Double, doubles: Bool) {
        #expect(GridFitter().prefers(bpm * 2, to: bpm) == doubles)
    }
}
