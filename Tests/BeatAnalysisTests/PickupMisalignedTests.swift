// SPDX-License-Identifier: GPL-3.0-or-later

import BeatMapKit
import Foundation
import TestSynth
import Testing

@testable import BeatAnalysis

/// `audio-misaligned` on a bass drum with a pickup, with the drum evidence `validate --audio` computes
/// (``OnsetAudioInspector``, ``AnalysisDrumEvidence``).
@Suite("audio-misaligned and a pickup")
struct PickupMisalignedTests {
    /// 150 BPM from 0.5 s for 20 s: a kick on every beat and on the sixteenth before it (0.1 s), the
    /// pickup the louder, with a hi-hat accent on it; and the beats.
    static func samba() -> (track: SynthTrack, beats: [Double]) {
        var track = SynthTrack(duration: 20, sampleRate: 44_100)
        var beats: [Double] = []
        var beat = 0.5
        while beat < 19.6 {
            beats.append(beat)
            track.add(.kick, at: beat - 0.1, gain: 0.7)
            track.add(.hiHat, at: beat - 0.1, gain: 0.35)
            track.add(.kick, at: beat, gain: 0.5)
            track.add(.hiHat, at: beat + 0.2, gain: 0.15)
            beat += 0.4
        }
        return (track, beats)
    }

    /// The audio facts of `track`, as `validate --audio` reads them.
    static func facts(_ track: SynthTrack) throws -> AudioFacts { try BarPhaseRuleTests.facts(track) }

    /// The `audio-misaligned` findings on `beats` (150 BPM) against `facts`.
    static func findings(_ beats: [Double], facts: AudioFacts) throws -> [Finding] {
        try AudioRuleFindings.of("audio-misaligned", beats: beats, bpm: 150, facts: facts)
    }

    @Test("the drums read a pickup where the beats sit on it, and none where they sit on the beat")
    func evidence() throws {
        let (track, beats) = Self.samba()
        let facts = try Self.facts(track)
        let drums = try #require(facts.drumEvidence)
        #expect(drums.pickupShift(of: beats.map { $0 - 0.1 }) == 0.25)
        #expect(drums.pickupShift(of: beats) == nil)
    }

    @Test("a map on the beat of a bass drum with a pickup is not told to move onto the pickups")
    func rightMapStays() throws {
        let (track, beats) = Self.samba()
        var facts = try Self.facts(track)
        #expect(try Self.findings(beats, facts: facts).isEmpty)
        // Without the drums, the onsets alone put the beats on the pickups.
        facts.drumEvidence = nil
        let found = try Self.findings(beats, facts: facts)
        guard case .nudge(let seconds) = try #require(found.first).fix else {
            Issue.record("no nudge without the drums")
            return
        }
        #expect(seconds < -0.08, "nudge \(seconds)")
    }

    @Test("a map 40 ms late against the same drums is still told so")
    func offsetReported() throws {
        let (track, beats) = Self.samba()
        let facts = try Self.facts(track)
        let found = try Self.findings(beats.map { $0 + 0.04 }, facts: facts)
        let finding = try #require(found.first)
        guard case .nudge(let seconds) = finding.fix else {
            Issue.record("the finding's fix is not a nudge: \(String(describing: finding.fix))")
            return
        }
        #expect(abs(seconds + 0.04) < 0.003, "nudge \(seconds)")
    }
}
