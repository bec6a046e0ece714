// SPDX-License-Identifier: GPL-3.0-or-later

import BeatMapKit
import Foundation
import Testing

/// The map edits of `beatmap edit` and the studio (``BeatMapEditor``).
@Suite("Map edits")
struct BeatMapEditorTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    static func demo(_ name: String) throws -> BeatMap {
        try BeatMapCodec.read(from: root.appendingPathComponent("BeatMaps/\(name).beatmap.json"))
    }

    static func grid(count: Int, start: Double = 0.5, bpm: Double = 120, perBar: Int? = 4) -> BeatMap {
        let length = 60 / bpm
        return BeatMap(
            audio: AudioReference(duration: start + Double(count + 2) * length),
            tempo: [TempoSegment(time: start, bpm: bpm, beatsPerBar: perBar)],
            beats: (0..<count).map { NumberFormatting.roundedToMicroseconds(start + Double($0) * length) })
    }

    static func apply(_ edits: [BeatMapEdit], to map: BeatMap) throws -> BeatMap {
        var current = map
        for edit in edits { current = try BeatMapEditor.apply(edit, to: current).map }
        return current
    }

    static func maximumDifference(_ a: [Double], _ b: [Double]) throws -> Double {
        try #require(a.count == b.count)
        return zip(a, b).map { abs($0 - $1) }.max() ?? 0
    }

    @Test(
        "½ then ×2 gives back the demo maps' beats within 1 µs",
        arguments: ["demo-120", "demo-95-shuffle", "demo-tempo-change"])
    func halfThenDouble(name: String) throws {
        let map = try Self.demo(name)
        let half = try Self.apply([.metricLevel(.half)], to: map)
        #expect(half.beats.count < map.beats.count)
        let back = try Self.apply([.metricLevel(.double)], to: half)
        // Within 1 µs (the file's resolution; 1e-9 of floating-point slack on top).
        #expect(try Self.maximumDifference(back.beats, map.beats) <= 1e-6 + 1e-9)
        #expect(back.tempo?.map(\.bpm) == map.tempo?.map(\.bpm))
        #expect(back.tempo?.map(\.beatsPerBar) == map.tempo?.map(\.beatsPerBar))
    }

    @Test("×2 then ½ and ⅔ then 3⁄2 give back a map on a grid")
    func otherRoundTrips() throws {
        let map = Self.grid(count: 62, start: 0.25, bpm: 128)
        let doubled = try Self.apply([.metricLevel(.double)], to: map)
        #expect(doubled.beats.count == 124)
        #expect(doubled.tempo?.first?.beatsPerBar == 8)
        #expect(try Self.maximumDifference(try Self.apply([.metricLevel(.half)], to: doubled).beats, map.beats) <= 1e-6)
        let twoThirds = try Self.apply([.metricLevel(.twoThirds)], to: Self.grid(count: 60, perBar: 6))
        #expect(twoThirds.tempo?.first?.bpm == 80)
        #expect(twoThirds.tempo?.first?.beatsPerBar == 4)
        let back = try Self.apply([.metricLevel(.threeHalves)], to: twoThirds)
        #expect(
            try Self.maximumDifference(
                back.beats, Array(Self.grid(count: 60, perBar: 6).beats.prefix(back.beats.count))) <= 1e-6)
    }

    @Test("½ keeps the downbeats; a bar of 3 has no half, so the meter goes")
    func halfKeepsDownbeats() throws {
        // A one-beat pickup: the first downbeat is the second beat.
        var map = Self.grid(count: 16)
        map.tempo?[0].time = 1.0
        let half = try Self.apply([.metricLevel(.half)], to: map)
        #expect(half.beats.first == 1.0)
        #expect(half.tempo?.first?.beatsPerBar == 2)
        let waltz = try Self.apply([.metricLevel(.half)], to: Self.grid(count: 12, perBar: 3))
        #expect(waltz.tempo?.first?.beatsPerBar == nil)
    }

    @Test("an analysed map's alternative gives the new level's tempo and score, and the old level becomes one")
    func alternatives() throws {
        var map = Self.grid(count: 32)
        map.analysis = .object(
            JSONObject([
                ("bpm", .double(120)), ("score", .double(5)),
                (
                    "alternatives",
                    .array([
                        .object(JSONObject([("ratio", .string("½")), ("bpm", .double(60)), ("score", .double(4))])),
                        .object(JSONObject([("ratio", .string("×2")), ("bpm", .double(240)), ("score", .double(2))])),
                    ])
                ),
            ]))
        let half = try BeatMapEditor.apply(.metricLevel(.half), to: map)
        let analysis = try #require(half.map.analysis?.objectValue)
        #expect(analysis["bpm"]?.doubleValue == 60)
        #expect(analysis["score"]?.doubleValue == 4)
        let alternatives = try #require(analysis["alternatives"]?.arrayValue)
        #expect(alternatives.count == 1)
        #expect(alternatives.first?.objectValue?["ratio"]?.stringValue == "×2")
        #expect(alternatives.first?.objectValue?["bpm"]?.doubleValue == 120)
        let back = try BeatMapEditor.apply(.metricLevel(.double), to: half.map)
        #expect(back.map.analysis?.objectValue?["bpm"]?.doubleValue == 120)
    }

    @Test("the spellings of the levels")
    func spellings() {
        #expect(MetricLevel(spelling: "x2") == .double)
        #expect(MetricLevel(spelling: "×2") == .double)
        #expect(MetricLevel(spelling: "1/2") == .half)
        #expect(MetricLevel(spelling: "½") == .half)
        #expect(MetricLevel(spelling: "2/3") == .twoThirds)
        #expect(MetricLevel(spelling: "⅔") == .twoThirds)
        #expect(MetricLevel(spelling: "3/2") == .threeHalves)
        #expect(MetricLevel(spelling: "3⁄2") == .threeHalves)
        #expect(MetricLevel(spelling: "4") == nil)
    }

    @Test("beats per bar over the whole map keeps the first downbeat; in one segment, that segment's")
    func meter() throws {
        let map = Self.grid(count: 16)
        let waltz = try BeatMapEditor.apply(.beatsPerBar(3, segment: .all), to: map)
        #expect(waltz.map.tempo == [TempoSegment(time: 0.5, bpm: 120, beatsPerBar: 3)])
        #expect(waltz.changes.contains("meter: 4 beats per bar → 3 beats per bar"))
        #expect(BarPositions.positions(of: waltz.map).prefix(4) == [1, 2, 3, 1])
        let none = Self.grid(count: 16, perBar: nil)
        let set = try BeatMapEditor.apply(.beatsPerBar(4, segment: .index(0)), to: none)
        #expect(set.map.tempo?.first?.beatsPerBar == 4)
        #expect(throws: BeatMapEditError.noSuchSegment(index: 2, count: 1)) {
            try BeatMapEditor.apply(.beatsPerBar(4, segment: .index(2)), to: none)
        }
        #expect(throws: BeatMapEditError.self) { try BeatMapEditor.apply(.beatsPerBar(0, segment: .all), to: none) }
    }

    @Test("shifting the bars moves the downbeats by whole beats; by a whole bar, nothing")
    func shiftBars() throws {
        let map = Self.grid(count: 16)
        let later = try BeatMapEditor.apply(.shiftBars(beats: 1, segment: .all), to: map)
        #expect(later.map.tempo?.first?.time == 1.0)
        #expect(later.map.beats == map.beats)
        #expect(BarPositions.positions(of: later.map).prefix(3) == [4, 1, 2])
        let earlier = try BeatMapEditor.apply(.shiftBars(beats: -1, segment: .all), to: later.map)
        #expect(earlier.map.tempo == map.tempo)
        let whole = try BeatMapEditor.apply(.shiftBars(beats: 4, segment: .all), to: map)
        #expect(whole.map == map)
        #expect(whole.changes.isEmpty)
        #expect(throws: BeatMapEditError.self) {
            try BeatMapEditor.apply(.shiftBars(beats: 1, segment: .all), to: Self.grid(count: 16, perBar: nil))
        }
    }

    @Test("a segment's bars move on its own grid; the segments after it count on")
    func shiftOneSegment() throws {
        let first = (0..<8).map { 0.5 + Double($0) * 0.5 }
        let second = (0..<8).map { 4.5 + Double($0) * 0.4 }
        let map = BeatMap(
            audio: AudioReference(duration: 10),
            tempo: [
                TempoSegment(time: 0.5, bpm: 120, beatsPerBar: 4), TempoSegment(time: 4.5, bpm: 150, beatsPerBar: 4),
            ],
            beats: first + second)
        let moved = try BeatMapEditor.apply(.shiftBars(beats: 1, segment: .index(1)), to: map)
        #expect(moved.map.tempo?[1].time == 4.9)
        #expect(moved.map.tempo?[0] == map.tempo?[0])
    }

    @Test("nudge moves beats and anchors; trim keeps the span and the bars")
    func nudgeAndTrim() throws {
        let map = Self.grid(count: 16)
        let nudged = try BeatMapEditor.apply(.nudge(seconds: -0.012), to: map)
        #expect(nudged.map.beats.first == 0.488)
        #expect(nudged.map.tempo?.first?.time == 0.488)
        let trimmed = try BeatMapEditor.apply(.trim(from: 1.2, to: 4.0), to: map)
        #expect(trimmed.map.beats == [1.5, 2.0, 2.5, 3.0, 3.5, 4.0])
        #expect(BarPositions.positions(of: trimmed.map) == BarPositions.positions(of: map)[2...7].map { $0 })
        #expect(throws: BeatMapEditError.self) { try BeatMapEditor.apply(.trim(from: 4, to: 1), to: map) }
        #expect(throws: BeatMapEditError.self) { try BeatMapEditor.apply(.nudge(seconds: .nan), to: map) }
    }

    @Test("a file edit is validated, keeps a backup and writes nothing when it fails")
    func fileRun() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("edit-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("song.beatmap.json")
        let map = Self.grid(count: 16)
        try BeatMapCodec.write(map, to: url, overwrite: false)
        let original = try Data(contentsOf: url)
        let report = try MapEditRun.run(
            MapEditRequest(mapURL: url, path: "song.beatmap.json", edits: [.metricLevel(.half)]), validator: Validator()
        )
        #expect(report.wrote)
        #expect(report.backupPath == "song.beatmap.json.bak")
        #expect(try Data(contentsOf: folder.appendingPathComponent("song.beatmap.json.bak")) == original)
        #expect(try BeatMapCodec.read(from: url).beats.count == 8)
        // Doubling 60 BPM three times goes past the format's 400 BPM, which the edit refuses: nothing
        // written.
        let before = try Data(contentsOf: url)
        #expect(throws: MapEditRunError.self) {
            try MapEditRun.run(
                MapEditRequest(
                    mapURL: url, edits: [.metricLevel(.double), .metricLevel(.double), .metricLevel(.double)],
                    keepsBackup: false), validator: Validator())
        }
        #expect(try Data(contentsOf: url) == before)
    }
}
