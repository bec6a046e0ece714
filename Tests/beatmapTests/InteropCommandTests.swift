// SPDX-License-Identifier: GPL-3.0-or-later

import Foundation
import Testing

@Suite("beatmap export / import")
struct InteropCommandTests {
    static let mapText = """
        {
          "version": 1,
          "audio": {"path": "song.ogg", "duration": 10.0},
          "tempo": [{"time": 0.5, "bpm": 120, "beatsPerBar": 4}],
          "beats": [0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 3.5, 4.0]
        }

        """

    func folderWithMap() throws -> URL {
        let folder = try CLI.temporaryFolder()
        try Data(Self.mapText.utf8).write(to: folder.appendingPathComponent("song.beatmap.json"))
        return folder
    }

    @Test("export writes a file, refuses to overwrite it without --force, replaces it with --force")
    func overwriteRules() throws {
        let folder = try folderWithMap()
        defer { try? FileManager.default.removeItem(at: folder) }
        let first = try CLI.run(["export", "song.beatmap.json", "-o", "song.sm"], in: folder)
        #expect(first.status == 0, "\(first.stderr)")
        let target = folder.appendingPathComponent("song.sm")
        let written = try String(contentsOf: target, encoding: .utf8)
        #expect(written.contains("#BPMS:0.000=120.0;"))

        try Data("keep me".utf8).write(to: target)
        let second = try CLI.run(["export", "song.beatmap.json", "-o", "song.sm"], in: folder)
        #expect(second.status == 2)
        #expect(second.stderr.contains("song.sm"))
        #expect(second.stderr.contains("--force"))
        #expect(try String(contentsOf: target, encoding: .utf8) == "keep me")

        let third = try CLI.run(["export", "song.beatmap.json", "-o", "song.sm", "--force"], in: folder)
        #expect(third.status == 0)
        #expect(try String(contentsOf: target, encoding: .utf8) == written)
    }

    @Test("without -o the export is printed; --format is required when no file name implies it")
    func stdoutAndFormat() throws {
        let folder = try folderWithMap()
        defer { try? FileManager.default.removeItem(at: folder) }
        let printed = try CLI.run(["export", "song.beatmap.json", "--format", "txt"], in: folder)
        #expect(printed.status == 0)
        #expect(printed.stdout == "0.5\n1.0\n1.5\n2.0\n2.5\n3.0\n3.5\n4.0\n")
        let missing = try CLI.run(["export", "song.beatmap.json"], in: folder)
        #expect(missing.status != 0)
        #expect(missing.stderr.contains("--format"))
    }

    @Test("Beat Saber export needs a folder and writes Info.dat and AudioData.dat")
    func beatSaberFolder() throws {
        let folder = try folderWithMap()
        defer { try? FileManager.default.removeItem(at: folder) }
        let refused = try CLI.run(["export", "song.beatmap.json", "--format", "beatsaber"], in: folder)
        #expect(refused.status == 64)
        #expect(refused.stderr.contains("-o FOLDER"))
        let written = try CLI.run(
            ["export", "song.beatmap.json", "--format", "beatsaber", "-o", "BeatSaber"], in: folder)
        #expect(written.status == 0)
        for name in ["Info.dat", "AudioData.dat"] {
            #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent("BeatSaber/\(name)").path))
        }
        let back = try CLI.run(["import", "BeatSaber", "--format", "beatsaber"], in: folder)
        #expect(back.status == 0)
        #expect(back.stdout.contains("\"beats\": [\n    0.5,\n"))
        #expect(back.stdout.contains("    4.0\n  ]"))
    }

    @Test("import writes a map, with the audio path relative to the new map")
    func importWritesMap() throws {
        let folder = try folderWithMap()
        defer { try? FileManager.default.removeItem(at: folder) }
        _ = try CLI.run(["export", "song.beatmap.json", "-o", "song.osu"], in: folder)
        try FileManager.default.createDirectory(
            at: folder.appendingPathComponent("maps"), withIntermediateDirectories: true)
        let result = try CLI.run(
            ["import", "song.osu", "-o", "maps/back.beatmap.json", "--duration", "10"], in: folder)
        #expect(result.status == 0, "\(result.stderr)")
        let text = try String(contentsOf: folder.appendingPathComponent("maps/back.beatmap.json"), encoding: .utf8)
        #expect(text.contains("\"path\": \"../song.ogg\""))
        #expect(text.contains("\"duration\": 10.0"))
        let validate = try CLI.run(["validate", "--no-audio", "maps/back.beatmap.json"], in: folder)
        #expect(validate.status == 0, "\(validate.stdout)")
    }

    @Test("a bad input file is named with its line, exit 2, nothing written")
    func badInput() throws {
        let folder = try CLI.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try Data("0.5\n1.0\nnope\n".utf8).write(to: folder.appendingPathComponent("beats.txt"))
        let result = try CLI.run(["import", "beats.txt", "--format", "txt", "-o", "out.beatmap.json"], in: folder)
        #expect(result.status == 2)
        #expect(result.stderr.contains("beats.txt:3:"))
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("out.beatmap.json").path))
    }

    @Test("a missing map is named")
    func missingMap() throws {
        let folder = try CLI.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let result = try CLI.run(["export", "nothing.beatmap.json", "--format", "csv"], in: folder)
        #expect(result.status == 2)
        #expect(result.stderr.contains("nothing.beatmap.json"))
    }
}
