// SPDX-License-Identifier: GPL-3.0-or-later

import BeatMapKit
import Foundation
import Testing

@Suite("Map summary (beatmap info)")
struct BeatMapSummaryTests {
    @Test("tempo stretches, counts, span, coverage and intervals")
    func facts() {
        let map = SampleMaps.tempoChange
        let summary = BeatMapSummary(map: map, path: "x.beatmap.json", report: FileReport(path: "x.beatmap.json"))
        #expect(summary.beatCount == 70)
        #expect(summary.tempo.map(\.bpm) == [100, 150])
        #expect(summary.tempo.map(\.beatCount) == [30, 40])
        #expect(summary.tempo.map(\.beatsPerBar) == [3, 4])
        #expect(summary.tempo[0].from == 0)
        #expect(summary.tempo[1].to == map.audio.duration)
        #expect(summary.firstBeat == map.beats.first)
        #expect(summary.lastBeat == map.beats.last)
        let span = map.beats[map.beats.count - 1] - map.beats[0]
        #expect(abs((summary.coverage ?? 0) - span / map.audio.duration) < 1e-12)
        #expect(abs((summary.minimumInterval ?? 0) - 0.4) < 1e-9)
        #expect(abs((summary.maximumInterval ?? 0) - 0.6) < 1e-9)
        // 29 intervals of 0.6 s, 40 of 0.4 s (the change itself is 0.6 s): the median is 0.4 s.
        #expect(abs((summary.medianInterval ?? 0) - 0.4) < 1e-9)
        #expect(!summary.tempoIsInferred)
        #expect(summary.verdict.line == "valid: no findings")
    }

    @Test("a map with more segments than the text lists (followed beats) gets their range and median")
    func manySegments() throws {
        // Beats followed one by one: 40 beats, 39 one-beat segments at 118–138 BPM.
        var beats: [Double] = [0.5]
        for index in 0..<39 { beats.append(beats[index] + 60 / (118 + Double(index % 21))) }
        let tempo = (0..<39).map { TempoSegment(time: beats[$0], bpm: 60 / (beats[$0 + 1] - beats[$0])) }
        let map = BeatMap(audio: AudioReference(duration: 20), tempo: tempo, beats: beats)
        let summary = BeatMapSummary(map: map, path: "m", report: FileReport(path: "m"))
        #expect(summary.tempo.count == 39)
        let line = try #require(summary.text.split(separator: "\n").first { $0.contains("tempo") })
        #expect(line.contains("39 segments from 0:00 to 0:20: 118–138 BPM, median 127 BPM (each in the JSON summary)"))
        #expect(!line.contains(";"))
    }

    @Test("a segment of one beat is one beat, not one beats")
    func oneBeat() throws {
        let beats: [Double] = [0.5, 1.0, 1.5, 2.1, 2.5, 3.0]
        let tempo = [
            TempoSegment(time: 0.5, bpm: 120), TempoSegment(time: 2.1, bpm: 150), TempoSegment(time: 2.5, bpm: 120),
        ]
        let map = BeatMap(audio: AudioReference(duration: 4), tempo: tempo, beats: beats)
        let summary = BeatMapSummary(map: map, path: "m", report: FileReport(path: "m"))
        #expect(summary.text.contains("150 BPM from 0:02.100, 1 beat;"))
    }

    @Test("the analysis's other levels are listed with their tempi, in text and JSON; a map without them has no line")
    func otherLevels() throws {
        let beats: [Double] = [0.5, 1.0, 1.5, 2.0]
        let alternatives: JSONValue = .array([
            .object(JSONObject([("ratio", .string("½")), ("bpm", .double(60)), ("score", .double(4.1))])),
            .object(JSONObject([("ratio", .string("×2")), ("bpm", .double(240)), ("score", .double(2.2))])),
            .object(JSONObject([("ratio", .string("broken"))])),
        ])
        var map = BeatMap(
            audio: AudioReference(duration: 4), tempo: [TempoSegment(time: 0.5, bpm: 120)], beats: beats,
            analysis: .object(JSONObject([("alternatives", alternatives)])))
        let summary = BeatMapSummary(map: map, path: "m", report: FileReport(path: "m"))
        #expect(summary.otherLevels == [.init(ratio: "½", bpm: 60), .init(ratio: "×2", bpm: 240)])
        let line = try #require(summary.text.split(separator: "\n").first { $0.contains("levels") })
        #expect(line.contains("½ 60 BPM, ×2 240 BPM (the analysis's other readings of the beat, best first)"))
        let levels = try #require(summary.json.objectValue?["otherLevels"]?.arrayValue)
        #expect(levels.map { $0.objectValue?["ratio"]?.stringValue } == ["½", "×2"])
        #expect(levels.map { $0.objectValue?["bpm"]?.doubleValue } == [60, 240])
        map.analysis = nil
        let none = BeatMapSummary(map: map, path: "m", report: FileReport(path: "m"))
        #expect(!none.text.contains("levels"))
        #expect(none.otherLevels.isEmpty)
    }

    @Test("the fixes the analysis made against its own onsets are listed, in text and JSON; none, no line")
    func audioFixes() throws {
        var map = BeatMap(
            audio: AudioReference(duration: 4), tempo: [TempoSegment(time: 0.5, bpm: 120)], beats: [0.5, 1.0, 1.5],
            analysis: .object(
                JSONObject([("audioFixes", .array([.string("audio-metric-level: metric level ×2"), .int(3)]))])))
        let summary = BeatMapSummary(map: map, path: "m", report: FileReport(path: "m"))
        #expect(summary.audioFixes == ["audio-metric-level: metric level ×2"])
        let line = try #require(summary.text.split(separator: "\n").first { $0.contains("fixed ") })
        #expect(line.hasSuffix("audio-metric-level: metric level ×2 (by the analysis's check against its own onsets)"))
        let fixes = try #require(summary.json.objectValue?["audioFixes"]?.arrayValue)
        #expect(fixes.map(\.stringValue) == ["audio-metric-level: metric level ×2"])
        map.analysis = nil
        let none = BeatMapSummary(map: map, path: "m", report: FileReport(path: "m"))
        #expect(!none.text.contains("fixed"))
        #expect(none.json.objectValue?["audioFixes"]?.arrayValue?.isEmpty == true)
    }

    @Test("without a tempo map the tempo is inferred and said to be")
    func inferred() {
        let map = BeatMap(audio: AudioReference(duration: 10), beats: [1, 1.5, 2, 2.5, 3])
        let summary = BeatMapSummary(map: map, path: "m", report: FileReport(path: "m"))
        #expect(summary.tempoIsInferred)
        #expect(abs((summary.tempo.first?.bpm ?? 0) - 120) < 1e-9)
        #expect(summary.text.contains("no tempo map; 120 BPM inferred from the beats"))
    }

    @Test("the verdict counts findings per rule, most frequent first")
    func verdict() {
        let report = FileReport(
            path: "m",
            findings: [
                Finding(ruleID: "off-grid", severity: .warning, message: ""),
                Finding(ruleID: "gap", severity: .error, message: ""),
                Finding(ruleID: "off-grid", severity: .warning, message: ""),
                Finding(ruleID: "duplicate-beat", severity: .error, message: ""),
            ])
        let summary = BeatMapSummary(map: SampleMaps.steady, path: "m", report: report)
        #expect(summary.verdict.line == "invalid: 2 errors, 2 warnings (off-grid ×2, duplicate-beat ×1, gap ×1)")
        let warningsOnly = BeatMapSummary(
            map: SampleMaps.steady, path: "m",
            report: FileReport(path: "m", findings: [Finding(ruleID: "gap", severity: .warning, message: "")]))
        #expect(warningsOnly.verdict.line == "valid with warnings: 1 warning (gap ×1)")
    }

    @Test("clock times")
    func clock() {
        #expect(BeatMapSummary.clock(0) == "0:00")
        #expect(BeatMapSummary.clock(65.25) == "1:05.250")
        #expect(BeatMapSummary.clock(3600) == "60:00")
    }

    @Test("an empty map has no span or intervals")
    func empty() {
        let summary = BeatMapSummary(
            map: BeatMap(audio: AudioReference(duration: 3), beats: []), path: "m", report: FileReport(path: "m"))
        #expect(summary.firstBeat == nil)
        #expect(summary.coverage == nil)
        #expect(summary.medianInterval == nil)
        #expect(summary.tempo.isEmpty)
        #expect(summary.text.contains("tempo      none"))
    }
}
