// SPDX-License-Identifier: GPL-3.0-or-later

import BeatMapKit
import Foundation
import Testing

@Suite("beatmap format")
struct FormatCommandTests {
    /// A valid map in a non-canonical layout, with members the format does not define everywhere.
    static let messy = """
        {"x-editor": {"zoom": 3, "grid": [1, 2.50]}, "beats": [1.0000001, 0.5, 1.5],
         "version": 1, "analysis": {"tool": "hand", "score": 0.900},
         "tempo": [{"bpm": 120, "time": 0.5, "x-label": "verse"}],
         "audio": {"x-null": null, "duration": 8, "x-codec": "vorbis"}}
        """

    static let expected = """
        {
          "version": 1,
          "audio": {
            "duration": 8.0,
            "x-null": null,
            "x-codec": "vorbis"
          },
          "tempo": [
            { "time": 0.5, "bpm": 120.0, "x-label": "verse" }
          ],
          "beats": [
            1.0,
            0.5,
            1.5
          ],
          "analysis": {
            "tool": "hand",
            "score": 0.900
          },
          "x-editor": {
            "zoom": 3,
            "grid": [
              1,
              2.50
            ]
          }
        }

        """

    static func folder(with files: [String: String]) throws -> URL {
        let folder = try CLI.temporaryFolder()
        for (name, text) in files { try Data(text.utf8).write(to: folder.appendingPathComponent(name)) }
        return folder
    }

    @Test("prints the canonical text, keeping unknown members and their number texts, and writes nothing")
    func printsCanonical() throws {
        let folder = try Self.folder(with: ["a.beatmap.json": Self.messy])
        defer { try? FileManager.default.removeItem(at: folder) }
        let result = try CLI.run(["format", "a.beatmap.json"], in: folder)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == Self.expected)
        #expect(try String(contentsOf: folder.appendingPathComponent("a.beatmap.json"), encoding: .utf8) == Self.messy)
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        #expect(names == ["a.beatmap.json"])
    }

    @Test("the canonical text is a fixed point: formatting it again changes nothing")
    func idempotent() throws {
        let folder = try Self.folder(with: ["a.beatmap.json": Self.expected])
        defer { try? FileManager.default.removeItem(at: folder) }
        let result = try CLI.run(["format", "a.beatmap.json"], in: folder)
        #expect(result.status == 0)
        #expect(result.stdout == Self.expected)
        let check = try CLI.run(["format", "--check", "a.beatmap.json"], in: folder)
        #expect(check.status == 0)
        #expect(check.stdout.isEmpty)
    }

    @Test("--check lists the maps that are not canonical and exits 1")
    func check() throws {
        let folder = try Self.folder(with: ["messy.beatmap.json": Self.messy, "tidy.beatmap.json": Self.expected])
        defer { try? FileManager.default.removeItem(at: folder) }
        let result = try CLI.run(["format", "--check", "."], in: folder)
        #expect(result.status == 1)
        #expect(result.stdout == "./messy.beatmap.json\n")
        #expect(result.stderr.contains("1 of 2 maps"))
        #expect(
            try String(contentsOf: folder.appendingPathComponent("messy.beatmap.json"), encoding: .utf8) == Self.messy)
    }

    @Test("--in-place is the explicit request: it rewrites the map without --force")
    func inPlaceIsEnough() throws {
        let folder = try Self.folder(with: ["a.beatmap.json": Self.messy])
        defer { try? FileManager.default.removeItem(at: folder) }
        let result = try CLI.run(["format", "--in-place", "a.beatmap.json"], in: folder)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            try String(contentsOf: folder.appendingPathComponent("a.beatmap.json"), encoding: .utf8) == Self.expected)
    }

    @Test("--in-place --force rewrites only maps that change, keeping permissions and symbolic links")
    func inPlace() throws {
        let folder = try Self.folder(with: ["messy.beatmap.json": Self.messy, "tidy.beatmap.json": Self.expected])
        defer { try? FileManager.default.removeItem(at: folder) }
        let manager = FileManager.default
        let messy = folder.appendingPathComponent("messy.beatmap.json")
        let tidy = folder.appendingPathComponent("tidy.beatmap.json")
        try manager.setAttributes([.posixPermissions: 0o600], ofItemAtPath: messy.path)
        let link = folder.appendingPathComponent("link.beatmap.json")
        try manager.createSymbolicLink(atPath: link.path, withDestinationPath: "messy.beatmap.json")
        let tidyInode = try manager.attributesOfItem(atPath: tidy.path)[.systemFileNumber] as? Int

        let result = try CLI.run(
            ["format", "--in-place", "--force", "link.beatmap.json", "tidy.beatmap.json"], in: folder)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "formatted link.beatmap.json\n")
        #expect(try String(contentsOf: messy, encoding: .utf8) == Self.expected)
        #expect(try manager.destinationOfSymbolicLink(atPath: link.path) == "messy.beatmap.json")
        #expect(try manager.attributesOfItem(atPath: messy.path)[.posixPermissions] as? Int == 0o600)
        #expect(try manager.attributesOfItem(atPath: tidy.path)[.systemFileNumber] as? Int == tidyInode)
        let names = try manager.contentsOfDirectory(atPath: folder.path).sorted()
        #expect(names == ["link.beatmap.json", "messy.beatmap.json", "tidy.beatmap.json"])
    }

    @Test("--output never replaces an existing file without --force")
    func output() throws {
        let folder = try Self.folder(with: ["a.beatmap.json": Self.messy, "out.beatmap.json": "keep me"])
        defer { try? FileManager.default.removeItem(at: folder) }
        let out = folder.appendingPathComponent("out.beatmap.json")
        let refused = try CLI.run(["format", "a.beatmap.json", "-o", "out.beatmap.json"], in: folder)
        #expect(refused.status == 2)
        #expect(refused.stderr.contains("out.beatmap.json already exists"))
        #expect(try String(contentsOf: out, encoding: .utf8) == "keep me")
        let forced = try CLI.run(["format", "a.beatmap.json", "-o", "out.beatmap.json", "--force"], in: folder)
        #expect(forced.status == 0, "\(forced.stderr)")
        #expect(try String(contentsOf: out, encoding: .utf8) == Self.expected)
        let fresh = try CLI.run(["format", "a.beatmap.json", "--output", "new.beatmap.json"], in: folder)
        #expect(fresh.status == 0)
        #expect(
            try String(contentsOf: folder.appendingPathComponent("new.beatmap.json"), encoding: .utf8) == Self.expected)
    }

    @Test("invalid maps are named with the problem's location and never rewritten")
    func invalidMaps() throws {
        let broken = "{\"version\": 1,\n \"audio\": {\"duration\": 8},\n \"beats\": [0.5, NaN]}"
        let folder = try Self.folder(with: [
            "nan.beatmap.json": broken, "syntax.beatmap.json": "{\"version\": 1,,}", "ok.beatmap.json": Self.messy,
        ])
        defer { try? FileManager.default.removeItem(at: folder) }
        let result = try CLI.run(["format", "--in-place", "--force", "."], in: folder)
        #expect(result.status == 1)
        #expect(result.stderr.contains("./nan.beatmap.json:3:17: beats[1] is not a finite number"))
        #expect(result.stderr.contains("./syntax.beatmap.json:1:15: invalid JSON"))
        #expect(try String(contentsOf: folder.appendingPathComponent("nan.beatmap.json"), encoding: .utf8) == broken)
        #expect(
            try String(contentsOf: folder.appendingPathComponent("ok.beatmap.json"), encoding: .utf8) == Self.expected)
    }

    @Test("usage errors: several maps to stdout, combined modes, missing paths")
    func usage() throws {
        let folder = try Self.folder(with: ["a.beatmap.json": Self.messy, "b.beatmap.json": Self.messy])
        defer { try? FileManager.default.removeItem(at: folder) }
        let several = try CLI.run(["format", "a.beatmap.json", "b.beatmap.json"], in: folder)
        #expect(several.status == 2)
        #expect(several.stdout.isEmpty)
        let combined = try CLI.run(["format", "--check", "--in-place", "--force", "a.beatmap.json"], in: folder)
        #expect(combined.status != 0)
        #expect(combined.stderr.contains("cannot be combined"))
        let missing = try CLI.run(["format", "missing.beatmap.json"], in: folder)
        #expect(missing.status == 2)
        #expect(missing.stderr.contains("missing.beatmap.json: no such file or directory"))
    }
}
