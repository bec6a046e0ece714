// SPDX-License-Identifier: GPL-3.0-or-later

import Foundation
import Testing

@Suite("beatmap info")
struct InfoCommandTests {
    /// The demo map of the package (beats on 120 BPM from 0.5 s).
    static let demo = CLI.packageRoot.appendingPathComponent("BeatMaps/demo-120.beatmap.json").path

    @Test("text: tempo, beats, coverage, intervals and a one-line verdict")
    func text() throws {
        let result = try CLI.run(["info", Self.demo])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("tempo      120 BPM from 0:00 (4 per bar)"))
        #expect(result.stdout.contains("beats      62, first 0.5 s, last 31 s"))
        #expect(result.stdout.contains("intervals  min 500.0 ms, median 500.0 ms, max 500.0 ms"))
        #expect(result.stdout.contains("verdict    valid: no findings"))
    }

    @Test("--json carries the same facts")
    func json() throws {
        let result = try CLI.run(["info", "--json", Self.demo])
        #expect(result.status == 0)
        let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
        let beats = object?["beats"] as? [String: Any]
        #expect(beats?["count"] as? Int == 62)
        let verdict = object?["verdict"] as? [String: Any]
        #expect(verdict?["valid"] as? Bool == true)
        #expect((object?["coverage"] as? Double).map { abs($0 - 30.5 / 32) < 1e-9 } == true)
    }

    @Test("a map with problems gets an invalid verdict naming the rules, still exit 0")
    func invalidVerdict() throws {
        let folder = try CLI.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let text = #"{"version": 1, "audio": {"duration": 5}, "beats": [0.5, 1.0, 1.0, 1.5, 9.0]}"#
        try Data(text.utf8).write(to: folder.appendingPathComponent("m.beatmap.json"))
        let result = try CLI.run(["info", "m.beatmap.json"], in: folder)
        #expect(result.status == 0)
        #expect(result.stdout.contains("verdict    invalid: "))
        #expect(result.stdout.contains("out-of-duration ×1"))
    }

    @Test("a file that is not a map is named with its line, exit 2 (bad data)")
    func broken() throws {
        let folder = try CLI.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try Data("{\n  \"version\": 1,\n  \"beats\": [1,\n".utf8).write(
            to: folder.appendingPathComponent("b.beatmap.json"))
        let result = try CLI.run(["info", "b.beatmap.json"], in: folder)
        #expect(result.status == 2)
        #expect(result.stderr.contains("b.beatmap.json:"))
        #expect(result.stdout.isEmpty)
    }
}
