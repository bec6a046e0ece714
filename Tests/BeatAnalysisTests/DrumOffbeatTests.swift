// SPDX-License-Identifier: GPL-3.0-or-later

import BeatMapKit
import Foundation
import TestSynth
import Testing

@testable import BeatAnalysis

/// `audio-offbeat` on synthesised audio whose onsets alone do not say where the beat is, with the
/// drum evidence `validate --audio` computes (``OnsetAudioInspector``, ``AnalysisDrumEvidence``).
@Suite("audio-offbeat and the drums")
struct DrumOffbeatTests {
    /// 124 BPM from 0.5 s for 20 s: a kick on every beat, a snare on every other one, and an open
    /// hi-hat on every off-beat as loud as the kick (house music's); and the beats.
    static func house() -> (track: SynthTrack, beats: [Double]) {
        var track = SynthTrack(duration: 20, sampleRate: 44_100)
        let period = 60 / 124.0
        var beats: [Double] = []
        var index = 0
        while 0.5 + Double(index) * period < 19.4 {
            let beat = 0.5 + Double(index) * period
            beats.append(beat)
            track.add(.kick, at: beat, gain: 0.5)
            if index % 2 == 1 { track.add(.snare, at: beat, gain: 0.4) }
            track.add(.hiHat, at: beat + period / 2, gain: 0.9)
            index += 1
        }
        return (track, beats)
    }

    /// The `audio-offbeat` findings on `beats` (124 BPM) against `facts`.
    static func findings(_ beats: [Double], facts: AudioFacts) throws -> [Finding] {
        try AudioRuleFindings.of("audio-offbeat", beats: beats, bpm: 124, facts: facts)
    }

    @Test("a map on the hi-hats is half a beat out by the drums, where the onsets alone say nothing")
    func offbeatByDrums() throws {
        let (track, beats) = Self.house()
        var facts = try BarPhaseRuleTests.facts(track)
        let period = 60 / 124.0
        let offbeats = beats.dropLast().map { $0 + period / 2 }
        let found = try Self.findings(offbeats, facts: facts)
        let finding = try #require(found.first)
        #expect(finding.message.contains("the drums (kick and snare) sit clearly halfway between the beats"))
        #expect(finding.fix == .shiftBeats(fraction: 0.5) || finding.fix == .shiftBeats(fraction: -0.5))
        #expect(try Self.findings(beats, facts: facts).isEmpty)
        facts.drumEvidence = nil
        #expect(try Self.findings(offbeats, facts: facts).isEmpty)
    }
}
