// SPDX-License-Identifier: GPL-3.0-or-later

import BeatMapKit
import Foundation
import Testing

/// Where the bars are, as the format defines them from `tempo[].beatsPerBar`.
@Suite("Bar positions")
struct BarPositionsTests {
    static func map(_ tempo: [TempoSegment]?, beats: [Double]) -> BeatMap {
        BeatMap(audio: AudioReference(duration: 60), tempo: tempo, beats: beats)
    }

    @Test("a segment's time is a downbeat; a pickup before it counts back from there")
    func pickup() {
        let beats = (0..<10).map { 0.5 + Double($0) * 0.5 }
        let positions = BarPositions.positions(
            of: Self.map([TempoSegment(time: 1.5, bpm: 120, beatsPerBar: 4)], beats: beats))
        #expect(positions == [3, 4, 1, 2, 3, 4, 1, 2, 3, 4])
    }

    @Test("a segment without beatsPerBar after one with it counts on from the last downbeat")
    func continuation() {
        let first = (0..<6).map { 0.5 + Double($0) * 0.5 }  // 120 BPM, downbeat at 0.5
        let second = (0..<6).map { 3.5 + Double($0) * 0.4 }  // 150 BPM from 3.5 s, mid-bar
        let tempo = [TempoSegment(time: 0.5, bpm: 120, beatsPerBar: 3), TempoSegment(time: 3.5, bpm: 150)]
        let positions = BarPositions.positions(of: Self.map(tempo, beats: first + second))
        #expect(positions == [1, 2, 3, 1, 2, 3, 1, 2, 3, 1, 2, 3])
    }

    @Test("maps without beatsPerBar (every map before bars) say nothing about bars and still validate")
    func oldMaps() throws {
        let beats = (0..<8).map { 0.5 + Double($0) * 0.5 }
        let old = Self.map([TempoSegment(time: 0.5, bpm: 120)], beats: beats)
        #expect(BarPositions.positions(of: old).allSatisfy { $0 == nil })
        #expect(BarPositions.positions(of: Self.map(nil, beats: beats)).allSatisfy { $0 == nil })
        let text = try BeatMapCodec.encode(old)
        #expect(!text.contains("beatsPerBar"))
        let report = Validator().validate(bytes: Array(text.utf8), path: "old.beatmap.json", audio: nil)
        #expect(report.findings.filter { $0.severity == .error }.isEmpty)
    }

    @Test("analysis.bars and beatsPerBar survive a round trip byte for byte")
    func roundTrip() throws {
        var map = Self.map([TempoSegment(time: 1.5, bpm: 120, beatsPerBar: 3)], beats: [1, 1.5, 2])
        map.analysis = .object(
            JSONObject([
                (
                    "bars",
                    .object(
                        JSONObject([
                            ("beatsPerBar", .int(3)), ("phaseConfidence", .double(0.97)),
                            (
                                "runnerUp",
                                .object(JSONObject([("beatsPerBar", .int(6)), ("probability", .double(0.02))]))
                            ),
                        ]))
                )
            ]))
        let text = try BeatMapCodec.encode(map)
        guard case .map(let decoded, _) = BeatMapCodec.decode(Array(text.utf8)) else {
            Issue.record("the map did not decode")
            return
        }
        #expect(decoded.tempo == map.tempo)
        #expect(try BeatMapCodec.encode(decoded) == text)
    }
}
