// SPDX-License-Identifier: GPL-3.0-or-later

import BeatMapKit
import Foundation
import TestSynth
import Testing

@testable import BeatAnalysis

/// `bar-phase` on synthesised audio, with the evidence `validate --audio` computes
/// (``OnsetAudioInspector``, ``AnalysisBarEvidence``).
@Suite("bar-phase on audio")
struct BarPhaseRuleTests {
    /// The audio facts of `track`, as `validate --audio` reads them.
    static func facts(_ track: SynthTrack) throws -> AudioFacts {
        let folder = try TestTracks.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("track.wav")
        try WAVWriter.write(track, to: url)
        return try OnsetAudioInspector().inspect(url, computeHash: false)
    }

    /// The `bar-phase` findings on `beats` with bars of `perBar` anchored at `anchor`.
    static func findings(_ beats: [Double], perBar: Int, anchor: Double, bpm: Double, facts: AudioFacts) throws
        -> [Finding]
    {
        let map = BeatMap(
            audio: AudioReference(duration: facts.duration, sampleRate: facts.sampleRate),
            tempo: [TempoSegment(time: anchor, bpm: bpm, beatsPerBar: perBar)], beats: beats)
        let text = try BeatMapCodec.encode(map)
        return Validator().validate(bytes: Array(text.utf8), path: "m.beatmap.json", audio: facts).findings.filter {
            $0.ruleID == "bar-phase"
        }
    }

    @Test("4/4 and 3/4 songs: nothing on the right bars; bars a beat early or late are reported", arguments: [4, 3])
    func songs(meter: Int) throws {
        let bpm = 120.0
        let (track, truth) = BarTests.song(bpm: bpm, meter: meter, pickup: 0, bars: 16)
        let facts = try Self.facts(track)
        let beats = (0..<(16 * meter)).map { 0.5 + Double($0) * 0.5 }
        let first = try #require(truth.first)
        #expect(try Self.findings(beats, perBar: meter, anchor: first, bpm: bpm, facts: facts).isEmpty)
        let late = try Self.findings(beats, perBar: meter, anchor: first + 0.5, bpm: bpm, facts: facts)
        #expect(late.map(\.message).first?.hasPrefix("bar lines look 1 beat late against the audio") == true)
        let early = try Self.findings(
            beats, perBar: meter, anchor: first + Double(meter - 1) * 0.5, bpm: bpm, facts: facts)
        #expect(early.map(\.message).first?.hasPrefix("bar lines look 1 beat early against the audio") == true)
    }

    @Test(
        "the test drum track (kick on 1 and 3 alike) never reports its right bars, at any tempo",
        arguments: [90.0, 125.0, 160.0])
    func drums(bpm: Double) throws {
        let (track, beats) = TestTracks.drums(bpm: bpm, start: 0.4, duration: 20)
        let facts = try Self.facts(track)
        let first = try #require(beats.first)
        #expect(try Self.findings(beats, perBar: 4, anchor: first, bpm: bpm, facts: facts).isEmpty)
    }
}
