// SPDX-License-Identifier: GPL-3.0-or-later

import Foundation
import Testing

@Suite("beatmap validate")
struct ValidateCommandTests {
    static let formats = ["text", "json", "junit", "github", "sarif"]

    @Test("each reporter's output for the broken maps equals its canned expected output", arguments: formats)
    func reporterOutput(format: String) throws {
        let result = try CLI.run(["validate", "--no-config", "--format", format, "broken"], in: CLI.fixtures)
        let expected = try String(
            contentsOf: CLI.fixtures.appendingPathComponent("expected/broken.\(format)"), encoding: .utf8)
        #expect(result.status == 1)
        #expect(result.stdout == expected)
        #expect(result.stderr.isEmpty)
    }

    @Test("each broken map yields exactly its own rule, at the right beat and line")
    func exactRules() throws {
        let result = try CLI.run(["validate", "--no-config", "--format", "json", "broken"], in: CLI.fixtures)
        let root = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let files = try #require(root["files"] as? [[String: Any]])
        var seen: [String: [(rule: String, index: Int?, line: Int)]] = [:]
        for file in files {
            let path = try #require(file["path"] as? String)
            let name = String(path.dropFirst("broken/".count).dropLast(".beatmap.json".count))
            let findings = try #require(file["findings"] as? [[String: Any]])
            seen[name] = findings.map { ($0["rule"] as? String ?? "", $0["index"] as? Int, $0["line"] as? Int ?? 0) }
            #expect(Set(findings.compactMap { $0["rule"] as? String }) == [name], "\(name)")
        }
        try #require(seen.count == 11)
        #expect(seen["non-finite"]?.map(\.index) == [2])
        #expect(seen["non-monotonic"]?.map(\.index) == [3])
        #expect(seen["non-monotonic"]?.map(\.line) == [11])
        #expect(seen["duplicate-beat"]?.map(\.index) == [2])
        #expect(seen["out-of-duration"]?.map(\.index) == [4])
        #expect(seen["off-grid"]?.map(\.index) == [3, 5])
        #expect(seen["off-grid"]?.map(\.line) == [11, 13])
        #expect(seen["gap"]?.map(\.index) == [2])
        #expect(seen["hit-window-overlap"]?.map(\.index) == [1])
        #expect(seen["invalid-json"]?.map(\.line) == [7])
        #expect(seen["schema"]?.map(\.line) == [2, 6])
        #expect(seen["audio-mismatch"]?.map(\.line) == [5, 7])
        let summary = try #require(root["summary"] as? [String: Int])
        #expect(summary == ["files": 11, "errors": 12, "warnings": 2, "missingAudio": 0])
    }

    @Test("exit status: 0 clean, 0 with warnings, 1 with --strict warnings, 1 errors, 2 could not run")
    func exitStatus() throws {
        let folder = try CLI.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let good = "{ \"version\": 1, \"audio\": { \"duration\": 4 }, \"beats\": [0.5, 1.0, 1.5, 2.0] }"
        try Data(good.utf8).write(to: folder.appendingPathComponent("good.beatmap.json"))
        var result = try CLI.run(["validate", "good.beatmap.json"], in: folder)
        #expect(result.status == 0)
        #expect(result.stdout.hasSuffix("Validated 1 file: 0 errors, 0 warnings.\n"))

        let gap = CLI.fixtures.appendingPathComponent("broken/gap.beatmap.json").path
        result = try CLI.run(["validate", "--no-config", gap])
        #expect(result.status == 0)
        result = try CLI.run(["validate", "--no-config", "--strict", gap])
        #expect(result.status == 1)
        result = try CLI.run(["validate", "--no-config", "--rule", "gap=error", gap])
        #expect(result.status == 1)
        result = try CLI.run(["validate", "--no-config", "--strict", "--disable", "gap", gap])
        #expect(result.status == 0)

        result = try CLI.run(["validate", "--rule", "no-such-rule=off", gap])
        #expect(result.status == 2)
        #expect(result.stderr.contains("unknown rule 'no-such-rule'"))

        try FileManager.default.createDirectory(
            at: folder.appendingPathComponent("empty"), withIntermediateDirectories: true)
        result = try CLI.run(["validate", "empty"], in: folder)
        #expect(result.status == 2)
        #expect(result.stderr.contains("empty: no *.beatmap.json files found"))
    }

    @Test("folders are searched recursively, hidden folders skipped, in sorted order")
    func recursion() throws {
        let folder = try CLI.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let map = "{ \"version\": 1, \"audio\": { \"duration\": 4 }, \"beats\": [0.5, 1.0] }"
        for path in ["maps/b.beatmap.json", "maps/a/z.beatmap.json", "maps/.hidden/x.beatmap.json", "maps/notes.json"] {
            let url = folder.appendingPathComponent(path)
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(map.utf8).write(to: url)
        }
        let result = try CLI.run(["validate", "--format", "json", "maps"], in: folder)
        #expect(result.status == 0)
        let root = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let paths = (root["files"] as? [[String: Any]])?.compactMap { $0["path"] as? String }
        #expect(paths == ["maps/a/z.beatmap.json", "maps/b.beatmap.json"])
    }

    @Test("a configuration file in the current folder is used, --no-config ignores it")
    func configDiscovery() throws {
        let folder = try CLI.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.copyItem(
            at: CLI.fixtures.appendingPathComponent("broken/gap.beatmap.json"),
            to: folder.appendingPathComponent("gap.beatmap.json"))
        try Data("{ \"rules\": { \"gap\": \"error\" } }".utf8).write(
            to: folder.appendingPathComponent(".beatmaplint.json"))
        var result = try CLI.run(["validate", "gap.beatmap.json"], in: folder)
        #expect(result.status == 1)
        #expect(result.stdout.contains("error: [gap]"))
        result = try CLI.run(["validate", "--no-config", "gap.beatmap.json"], in: folder)
        #expect(result.status == 0)
        try Data("{ \"rules\": ".utf8).write(to: folder.appendingPathComponent(".beatmaplint.json"))
        result = try CLI.run(["validate", "gap.beatmap.json"], in: folder)
        #expect(result.status == 2)
        #expect(result.stderr.contains(".beatmaplint.json:1:"))
    }

    @Test("empty, binary, deeply nested and oversized files are findings, not crashes")
    func hostileFiles() throws {
        let folder = try CLI.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try Data().write(to: folder.appendingPathComponent("empty.beatmap.json"))
        try Data([0x00, 0xFF, 0x13, 0x37, 0x7F, 0x45, 0x4C, 0x46]).write(
            to: folder.appendingPathComponent("binary.beatmap.json"))
        try Data(String(repeating: "[", count: 50_000).utf8).write(
            to: folder.appendingPathComponent("deep.beatmap.json"))
        // A sparse file over the 128 MiB limit: refused from its size, never read into memory.
        let huge = folder.appendingPathComponent("huge.beatmap.json")
        _ = FileManager.default.createFile(atPath: huge.path, contents: Data("{".utf8))
        let handle = try FileHandle(forWritingTo: huge)
        try handle.truncate(atOffset: 129 * 1024 * 1024)
        try handle.close()
        let result = try CLI.run(["validate", "--format", "json", "."], in: folder)
        #expect(result.status == 1)
        #expect(result.stdout.contains("over the 134217728-byte limit"))
        let root = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let files = try #require(root["files"] as? [[String: Any]])
        #expect(files.count == 4)
        for file in files {
            let rules = (file["findings"] as? [[String: Any]])?.compactMap { $0["rule"] as? String }
            #expect(rules == ["invalid-json"], "\(file["path"] ?? "")")
        }
    }

    @Test("--max-findings lists that many per rule and sums up the rest; totals and exit status count them all")
    func findingsLimit() throws {
        let folder = try CLI.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let beats = Array(repeating: "2.0", count: 12).joined(separator: ", ")
        try Data("{ \"version\": 1, \"audio\": { \"duration\": 10 }, \"beats\": [\(beats)] }".utf8).write(
            to: folder.appendingPathComponent("same.beatmap.json"))
        let limited = try CLI.run(
            ["validate", "--no-config", "--max-findings", "3", "--format", "json", "."], in: folder)
        #expect(limited.status == 1)
        let root = try #require(try JSONSerialization.jsonObject(with: Data(limited.stdout.utf8)) as? [String: Any])
        #expect((root["summary"] as? [String: Any])?["errors"] as? Int == 11)
        let findings = try #require((root["files"] as? [[String: Any]])?.first?["findings"] as? [[String: Any]])
        #expect(findings.count == 4)
        #expect(findings.map { $0["count"] as? Int } == [nil, nil, nil, 8])
        #expect(findings.last?["index"] as? Int == 4)

        let all = try CLI.run(["validate", "--no-config", "--max-findings", "0", "."], in: folder)
        #expect(all.stdout.components(separatedBy: "[duplicate-beat]").count - 1 == 11)
        #expect(all.stdout.contains("11 errors"))
        let refused = try CLI.run(["validate", "--max-findings=-1", "."], in: folder)
        #expect(refused.status == 64, "a usage error")
        #expect(refused.stderr.contains("--max-findings must be 0 (all) or more"))
    }

    @Test("CI without the audio: a notice in github, skipped cases in JUnit; --require-audio makes it an error")
    func missingAudio() throws {
        let folder = try CLI.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let map = """
            { "version": 1, "audio": { "path": "../Audio/lfs.ogg", "duration": 4 },
              "tempo": [ { "time": 0.5, "bpm": 120 } ], "beats": [0.5, 1.0, 1.5, 2.0] }
            """
        try Data(map.utf8).write(to: folder.appendingPathComponent("m.beatmap.json"))
        let github = try CLI.run(["validate", "--no-config", "--format", "github", "m.beatmap.json"], in: folder)
        #expect(github.status == 0)
        #expect(
            github.stdout.hasPrefix(
                "::notice file=m.beatmap.json,line=1,col=36,title=beatmap [audio]::audio file ../Audio/lfs.ogg not found; audio checks skipped\n"
            ))
        let junit = try CLI.run(["validate", "--no-config", "--format", "junit", "m.beatmap.json"], in: folder)
        #expect(junit.status == 0)
        #expect(junit.stdout.contains("<skipped message=\"audio file ../Audio/lfs.ogg not found\"/>"))
        let required = try CLI.run(
            ["validate", "--no-config", "--require-audio", "--format", "github", "m.beatmap.json"], in: folder)
        #expect(required.status == 1)
        #expect(
            required.stdout.hasPrefix(
                "::error file=m.beatmap.json,line=1,col=36,title=beatmap [audio-mismatch]::audio file ../Audio/lfs.ogg not found, but the audio is required"
            ))
        let both = try CLI.run(["validate", "--require-audio", "--no-audio", "m.beatmap.json"], in: folder)
        #expect(both.status == 64)
    }
}
