// SPDX-License-Identifier: GPL-3.0-or-later

import BeatMapKit
import Foundation
import Testing

@Suite("Beat-map codec")
struct CodecTests {
    static let sample = BeatMap(
        audio: AudioReference(
            path: "../Audio/demo.ogg", duration: 32, sampleRate: 44100, sha256: String(repeating: "0", count: 64)),
        tempo: [TempoSegment(time: 0.5, bpm: 120, beatsPerBar: 4)],
        beats: [0.5, 1.0, 1.5000000000000002, 0.1 + 0.2 + 1.7],
        analysis: .object(JSONObject([("tool", .string("test")), ("confidence", .double(0.87654321))])))

    @Test("numbers are rounded to microseconds and printed without noise")
    func numberFormatting() {
        #expect(NumberFormatting.decimal(0.1 + 0.2) == "0.3")
        #expect(NumberFormatting.decimal(120) == "120.0")
        #expect(NumberFormatting.decimal(-0.000125) == "-0.000125")
        #expect(NumberFormatting.decimal(1.0000004) == "1.0")
        #expect(NumberFormatting.decimal(0) == "0.0")
        #expect(NumberFormatting.decimal(-0.0) == "0.0")
        #expect(NumberFormatting.decimal(3600.123456) == "3600.123456")
    }

    @Test("the writer's layout: stable member order, one beat per line")
    func layout() throws {
        let text = try BeatMapCodec.encode(Self.sample)
        #expect(
            text == """
                {
                  "version": 1,
                  "audio": {
                    "path": "../Audio/demo.ogg",
                    "duration": 32.0,
                    "sampleRate": 44100,
                    "sha256": "\(String(repeating: "0", count: 64))"
                  },
                  "tempo": [
                    { "time": 0.5, "bpm": 120.0, "beatsPerBar": 4 }
                  ],
                  "beats": [
                    0.5,
                    1.0,
                    1.5,
                    2.0
                  ],
                  "analysis": {
                    "tool": "test",
                    "confidence": 0.876543
                  }
                }

                """)
    }

    @Test("encode → decode → encode gives the same bytes, and unknown members survive")
    func roundTrip() throws {
        let text = """
            {
              "x-first": [1, 2.50, "three"],
              "version": 1,
              "audio": { "duration": 8, "x-codec": "vorbis" },
              "tempo": [ { "time": 0.5, "bpm": 120, "x-label": "verse" } ],
              "beats": [0.5, 1.0],
              "x-editor": { "zoom": 3, "nested": { "a": null, "b": true } }
            }
            """
        guard case .map(let map, _) = BeatMapCodec.decode(Array(text.utf8)) else {
            Issue.record("sample did not decode")
            return
        }
        #expect(
            map.additionalFields["x-first"]
                == .array([
                    .int(1), .number(map.additionalFields["x-first"]?.arrayValue?[1].numberValue ?? JSONNumber(0)),
                    .string("three"),
                ]))
        #expect(map.audio.additionalFields["x-codec"] == .string("vorbis"))
        #expect(map.tempo?.first?.additionalFields["x-label"] == .string("verse"))
        let first = try BeatMapCodec.encode(map)
        #expect(first.contains("\"x-editor\": {\n    \"zoom\": 3,"))
        #expect(first.contains("2.50"), "a number we did not compute keeps its text")
        guard case .map(let again, _) = BeatMapCodec.decode(Array(first.utf8)) else {
            Issue.record("output did not decode")
            return
        }
        #expect(try BeatMapCodec.encode(again) == first)
        #expect(again == map)
    }

    @Test("maps with NaN cannot be written")
    func nonFiniteRefused() {
        var map = Self.sample
        map.beats.append(.nan)
        #expect(throws: BeatMapError.nonFinite(field: "beats[4]")) { try BeatMapCodec.encode(map) }
    }

    @Test("write refuses to overwrite without permission and replaces atomically with it")
    func atomicWrite() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("codec-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("a.beatmap.json")
        try BeatMapCodec.write(Self.sample, to: url, overwrite: false)
        let original = try Data(contentsOf: url)
        var changed = Self.sample
        changed.beats = [1, 2]
        #expect(throws: BeatMapError.exists(path: url.path)) {
            try BeatMapCodec.write(changed, to: url, overwrite: false)
        }
        #expect(try Data(contentsOf: url) == original)
        try BeatMapCodec.write(changed, to: url, overwrite: true)
        #expect(try BeatMapCodec.read(from: url).beats == [1, 2])
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter {
            $0 != "a.beatmap.json"
        }
        #expect(leftovers.isEmpty, "temporary files left behind: \(leftovers)")
    }

    @Test("read names the file and the problem")
    func readErrors() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("codec-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("bad.beatmap.json")
        try Data("{\"version\": 1,\n \"beats\": [1,, 2]}".utf8).write(to: url)
        do {
            _ = try BeatMapCodec.read(from: url)
            Issue.record("bad map was read")
        } catch {
            #expect(error.localizedDescription.contains("bad.beatmap.json:2:14"))
        }
        #expect(throws: BeatMapError.self) {
            try BeatMapCodec.read(from: folder.appendingPathComponent("missing.json"))
        }
    }

    @Test("an empty file reads as no bytes (without Foundation's leaking chunked read)")
    func emptyFile() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("codec-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let empty = folder.appendingPathComponent("empty.sm")
        try Data().write(to: empty)
        #expect(try BeatMapCodec.readBytes(of: empty) == [])
    }

    @Test("SHA-256 matches known digests")
    func sha256() {
        #expect(
            SHA256Hasher.hex(of: Array("".utf8)) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(
            SHA256Hasher.hex(of: Array("abc".utf8))
                == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        let long = Array(String(repeating: "a", count: 1_000).utf8)
        var hasher = SHA256Hasher()
        hasher.update(long[0..<333])
        hasher.update(long[333...])
        #expect(hasher.finalizeHex() == SHA256Hasher.hex(of: long))
        #expect(SHA256Hasher.hex(of: long) == "41edece42d63e8d9bf515a9ba6932e1c20cbc9f5a5d134645adb5db1b9737ea3")
    }
}

extension JSONValue {
    var numberValue: JSONNumber? {
        if case .number(let number) = self { return number }
        return nil
    }
}
