// SPDX-License-Identifier: GPL-3.0-or-later

import BeatMapKit
import Foundation
import Testing

@Suite("beatmap validate --audio --fix")
struct ValidateFixTests {
    /// The exact beats of ``ValidateAudioTests/project(map:)``'s drums (125 BPM from 0.4 s) that it keeps.
    static let exact = (0..<41).map { 0.4 + Double($0) * 0.48 }

    /// Whether every beat of `beats` is within `tolerance` of its exact beat, one for one.
    static func onExactBeats(_ beats: [Double], tolerance: Double) -> Bool {
        beats.count == exact.count && zip(beats, exact).allSatisfy { abs($0 - $1) <= tolerance }
    }

    @Test("a map half a beat late and 20 ms off is put back on its beats, the original kept; a second run: nothing")
    func offbeat() throws {
        let folder = try ValidateAudioTests.project(shift: 0.26)
        defer { try? FileManager.default.removeItem(at: folder) }
        let map = folder.appendingPathComponent("BeatMaps/song.beatmap.json")
        let original = try Data(contentsOf: map)
        let result = try CLI.run(["validate", "--audio", "--fix", "BeatMaps"], in: folder)
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(
            result.stdout.contains(
                "BeatMaps/song.beatmap.json:1:1: note: fixed [audio-offbeat] every beat half a beat earlier"),
            "\(result.stdout)")
        #expect(result.stdout.contains("fixed [audio-misaligned] nudge -"), "\(result.stdout)")
        #expect(result.stdout.contains("previous version kept as BeatMaps/song.beatmap.json.bak"))
        #expect(result.stdout.hasSuffix("0 errors, 0 warnings; 2 fixes made first.\n"), "\(result.stdout)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: map.path + ".bak")) == original)
        let fixed = try BeatMapCodec.read(from: map)
        // Half a beat (0.24 s) earlier, then the 20 ms left nudged: the detector's onsets read drums
        // about 2 ms late (DelayCompensationTests), well inside 5 ms.
        #expect(Self.onExactBeats(fixed.beats, tolerance: 0.005), "\(fixed.beats.prefix(4))")

        let again = try CLI.run(["validate", "--audio", "--fix", "--strict", "BeatMaps"], in: folder)
        #expect(again.status == 0, "\(again.stdout)")
        #expect(!again.stdout.contains("fixed"), "\(again.stdout)")
        #expect(again.stdout.hasSuffix("0 errors, 0 warnings.\n"), "\(again.stdout)")
        #expect(!FileManager.default.fileExists(atPath: map.path + ".bak.2"), "nothing written, no second backup")
    }

    @Test("a half-tempo map gets the ×2 level; the JSON report gives the fix and counts it; --no-backup keeps none")
    func halfTempo() throws {
        let folder = try ValidateAudioTests.project { beats in
            (stride(from: 0, to: beats.count, by: 2).map { beats[$0] }, 62.5)
        }
        defer { try? FileManager.default.removeItem(at: folder) }
        let result = try CLI.run(
            ["validate", "--audio", "--fix", "--no-backup", "--format", "json", "BeatMaps"], in: folder)
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let summary = try #require(json["summary"] as? [String: Any])
        #expect(summary["fixed"] as? Int == 1)
        #expect(summary["warnings"] as? Int == 0)
        let files = try #require(json["files"] as? [[String: Any]])
        let file = try #require(files.first)
        let fixes = try #require(file["fixed"] as? [[String: Any]])
        let fix = try #require(fixes.first)
        #expect(fix["rule"] as? String == "audio-metric-level")
        #expect(fix["edit"] as? String == "metric")
        #expect(fix["ratio"] as? String == "×2")
        #expect((fix["changes"] as? [String])?.first == "metric level ×2")
        #expect(file["backup"] == nil)
        let map = folder.appendingPathComponent("BeatMaps/song.beatmap.json")
        #expect(!FileManager.default.fileExists(atPath: map.path + ".bak"))
        let fixed = try BeatMapCodec.read(from: map)
        #expect(fixed.tempo?.first?.bpm == 125)
        // Doubling adds a beat between each pair the map had, not after its last one.
        let expected = Array(Self.exact.prefix(fixed.beats.count))
        #expect(fixed.beats.count >= Self.exact.count - 1)
        #expect(zip(fixed.beats, expected).allSatisfy { abs($0 - $1) <= 1e-6 }, "\(fixed.beats.prefix(4))")
    }

    @Test("each finding with a fix names the edit command that makes it; run as printed, it clears the finding")
    func commandHint() throws {
        let folder = try ValidateAudioTests.project { beats in
            (stride(from: 0, to: beats.count, by: 2).map { beats[$0] }, 62.5)
        }
        defer { try? FileManager.default.removeItem(at: folder) }
        let result = try CLI.run(["validate", "--audio", "BeatMaps"], in: folder)
        let hint = "; fix: beatmap edit BeatMaps/song.beatmap.json --metric x2\n"
        #expect(result.stdout.contains("[audio-metric-level]"), "\(result.stdout)")
        #expect(result.stdout.contains(hint), "\(result.stdout)")
        let github = try CLI.run(["validate", "--audio", "--format", "github", "BeatMaps"], in: folder)
        #expect(github.stdout.contains(hint), "\(github.stdout)")
        let json = try CLI.run(["validate", "--audio", "--format", "json", "BeatMaps"], in: folder)
        #expect(!json.stdout.contains("beatmap edit"), "JSON gives the fix as data")

        let line = try #require(result.stdout.split(separator: "\n").first { $0.contains("; fix: beatmap edit ") })
        let command = try #require(line.range(of: "; fix: beatmap ").map { line[$0.upperBound...] })
        let edit = try CLI.run(command.split(separator: " ").map(String.init), in: folder)
        #expect(edit.status == 0, "\(edit.stderr)")
        let again = try CLI.run(["validate", "--audio", "--strict", "BeatMaps"], in: folder)
        #expect(again.status == 0, "\(again.stdout)")
    }

    @Test("a map named twice (and found in its folder) is fixed once, with one backup, and reported each time")
    func namedTwice() throws {
        let folder = try ValidateAudioTests.project(shift: 0.24)
        defer { try? FileManager.default.removeItem(at: folder) }
        let map = folder.appendingPathComponent("BeatMaps/song.beatmap.json")
        let result = try CLI.run(
            ["validate", "--audio", "--fix", "BeatMaps/song.beatmap.json", "./BeatMaps/song.beatmap.json", "BeatMaps"],
            in: folder)
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.components(separatedBy: "fixed [audio-offbeat]").count == 2, "\(result.stdout)")
        #expect(
            result.stdout.hasSuffix("Validated 3 files: 0 errors, 0 warnings; 1 fix made first.\n"), "\(result.stdout)")
        #expect(FileManager.default.fileExists(atPath: map.path + ".bak"))
        #expect(!FileManager.default.fileExists(atPath: map.path + ".bak.2"))
    }

    @Test("a right map is left as it is, byte for byte")
    func rightMap() throws {
        let folder = try ValidateAudioTests.project(shift: 0)
        defer { try? FileManager.default.removeItem(at: folder) }
        let map = folder.appendingPathComponent("BeatMaps/song.beatmap.json")
        let original = try Data(contentsOf: map)
        let result = try CLI.run(["validate", "--audio", "--fix", "BeatMaps"], in: folder)
        #expect(result.status == 0, "\(result.stdout)")
        #expect(!result.stdout.contains("fixed"))
        #expect(try Data(contentsOf: map) == original)
        #expect(!FileManager.default.fileExists(atPath: map.path + ".bak"))
    }

    @Test("--fix without --audio, with standard input, and --no-backup without --fix are usage errors")
    func usage() throws {
        let withoutAudio = try CLI.run(["validate", "--fix", "x.beatmap.json"])
        #expect(withoutAudio.status == 64)
        #expect(
            withoutAudio.stderr.contains("--fix makes the fixes of the rules that check the beats against the audio"))
        let piped = try CLI.run(["validate", "--audio", "--fix", "-"])
        #expect(piped.status == 64)
        #expect(piped.stderr.contains("give the map's path, not -"))
        let backup = try CLI.run(["validate", "--no-backup", "x.beatmap.json"])
        #expect(backup.status == 64)
        #expect(backup.stderr.contains("--no-backup goes with --fix"))
    }
}
