// SPDX-License-Identifier: GPL-3.0-or-later

import Foundation
import TestSynth
import Testing

/// The conventions every command follows (README "Conventions", docs/cli.md): the exit status table,
/// the one error style, `-` for standard input and output, output names that say what is written,
/// negative option values, times as seconds or m:ss, help at 80 columns.
@Suite("Unix conventions of every command")
struct UnixConventionsTests {
    /// A folder with a valid map (`song.beatmap.json` over `song.wav`), a map with findings
    /// (`broken.beatmap.json`), a non-map (`bad.beatmap.json`), a beat list (`beats.txt`) and a drum
    /// track to analyse (`drums.wav`).
    static func workspace() throws -> URL {
        let folder = try CLI.temporaryFolder()
        _ = try AudioFixtures.song(in: folder, seconds: 6)
        let (track, _) = TestTracks.drums(bpm: 120, start: 0.3, duration: 8)
        try WAVWriter.write(track, to: folder.appendingPathComponent("drums.wav"))
        let broken = """
            {"version": 1, "audio": {"duration": 10.0}, "beats": [0.5, 1.0, 0.9, 2.0]}

            """
        try Data(broken.utf8).write(to: folder.appendingPathComponent("broken.beatmap.json"))
        try Data("{ not json".utf8).write(to: folder.appendingPathComponent("bad.beatmap.json"))
        try Data("0.5\n1.0\n1.5\n2.0\n".utf8).write(to: folder.appendingPathComponent("beats.txt"))
        return folder
    }

    /// One row of the exit status table: a command line and the status it must end with.
    struct Row: CustomTestStringConvertible, Sendable {
        var arguments: [String]
        var status: Int32
        var testDescription: String { "beatmap \(arguments.joined(separator: " ")) → \(status)" }
    }

    static let rows: [Row] = [
        // 0: done.
        Row(arguments: ["validate", "song.beatmap.json"], status: 0),
        Row(arguments: ["rules"], status: 0),
        Row(arguments: ["info", "song.beatmap.json"], status: 0),
        Row(arguments: ["export", "song.beatmap.json", "--format", "txt"], status: 0),
        Row(arguments: ["import", "beats.txt", "--duration", "0:10"], status: 0),
        Row(arguments: ["evaluate", "song.beatmap.json", "song.beatmap.json"], status: 0),
        Row(arguments: ["format", "song.beatmap.json"], status: 0),
        Row(arguments: ["plot", "song.wav", "song.beatmap.json", "-o", "-"], status: 0),
        Row(arguments: ["render", "song.wav", "song.beatmap.json", "-o", "out.wav", "--music-gain", "-6"], status: 0),
        Row(arguments: ["analyze", "drums.wav", "-o", "-", "--no-progress"], status: 0),
        // 1: findings, or a failed file among several.
        Row(arguments: ["validate", "broken.beatmap.json"], status: 1),
        Row(arguments: ["format", "--check", "song.beatmap.json"], status: 1),
        Row(arguments: ["format", "--check", "song.beatmap.json", "bad.beatmap.json"], status: 1),
        // 2: could not run (missing or unreadable input, bad data).
        Row(arguments: ["validate", "missing.beatmap.json"], status: 2),
        Row(arguments: ["info", "missing.beatmap.json"], status: 2),
        Row(arguments: ["info", "bad.beatmap.json"], status: 2),
        Row(arguments: ["export", "missing.beatmap.json", "--format", "txt"], status: 2),
        Row(arguments: ["export", "bad.beatmap.json", "--format", "txt"], status: 2),
        Row(arguments: ["import", "missing.txt", "--duration", "10"], status: 2),
        Row(arguments: ["evaluate", "missing.txt", "beats.txt"], status: 2),
        Row(arguments: ["evaluate", "bad.beatmap.json", "beats.txt"], status: 2),
        Row(arguments: ["format", "missing.beatmap.json"], status: 2),
        Row(arguments: ["format", "bad.beatmap.json"], status: 2),
        Row(arguments: ["plot", "missing.wav", "song.beatmap.json", "-o", "p.svg"], status: 2),
        Row(arguments: ["plot", "song.wav", "bad.beatmap.json", "-o", "p.svg"], status: 2),
        Row(arguments: ["render", "missing.wav", "song.beatmap.json", "-o", "r.wav"], status: 2),
        Row(arguments: ["preview", "missing.wav", "song.beatmap.json", "--no-ui"], status: 2),
        Row(arguments: ["analyze", "missing.wav", "--no-progress"], status: 2),
        Row(arguments: ["studio", "missing.beatmap.json", "--no-open"], status: 2),
        Row(arguments: ["edit", "missing.beatmap.json", "--nudge", "5"], status: 2),
        // 64: usage.
        Row(arguments: ["frobnicate"], status: 64),
        Row(arguments: ["validate", "--no-such-flag", "song.beatmap.json"], status: 64),
        Row(arguments: ["rules", "--no-such-flag"], status: 64),
        Row(arguments: ["info"], status: 64),
        Row(arguments: ["export", "song.beatmap.json"], status: 64),
        Row(arguments: ["import", "beats.unknown"], status: 64),
        Row(arguments: ["evaluate", "beats.txt"], status: 64),
        Row(arguments: ["format", "--check", "--in-place", "song.beatmap.json"], status: 64),
        Row(arguments: ["plot", "song.wav", "song.beatmap.json", "-o", "p.png"], status: 64),
        Row(arguments: ["render", "song.wav", "song.beatmap.json", "-o", "r.wav", "--from", "1:99"], status: 64),
        Row(arguments: ["preview", "song.wav", "song.beatmap.json", "--buffer-frames", "-5"], status: 64),
        Row(arguments: ["analyze", "song.wav", "--min-bpm", "-60"], status: 64),
        Row(arguments: ["studio", "song.beatmap.json", "--port", "-1"], status: 64),
        Row(arguments: ["edit", "song.beatmap.json"], status: 64),
    ]

    @Test("every command follows the one exit status table and the one error style", arguments: rows)
    func exitStatusTable(_ row: Row) throws {
        let folder = try Self.workspace()
        defer { try? FileManager.default.removeItem(at: folder) }
        let result = try CLI.run(row.arguments, in: folder)
        #expect(result.status == row.status, "\(result.stderr)")
        #expect(!result.stderr.contains("Error:"), "\(result.stderr)")
        if row.status >= 2 {
            #expect(result.stderr.hasPrefix("beatmap: error: "), "\(result.stderr)")
        }
    }

    @Test("every command's help names the exit status table and the shared wording")
    func helpNamesTheTable() throws {
        for command in Self.commands {
            let help = try CLI.run([command, "--help"], environment: ["COLUMNS": "80"])
            #expect(help.status == 0)
            let text = help.stdout.replacingOccurrences(of: "\n", with: " ")
            #expect(text.contains("Exit status: 0 done, 1 findings or a failed file, 2 could not run"), "\(command)")
        }
    }

    static let commands = [
        "analyze", "validate", "info", "export", "import", "plot", "render", "preview", "evaluate", "format",
        "studio", "edit",
    ]

    @Test("help fits 80 columns and states each default once")
    func helpAt80Columns() throws {
        for command in Self.commands + ["rules", ""] {
            let help = try CLI.run(command.isEmpty ? ["--help"] : [command, "--help"], environment: ["COLUMNS": "80"])
            #expect(help.status == 0)
            // Option entries: a line starting with two spaces and a dash, plus its indented continuation.
            var entries: [String] = []
            for line in help.stdout.split(separator: "\n", omittingEmptySubsequences: false) {
                if !line.hasPrefix("USAGE:") {
                    #expect(line.count <= 80, "\(command): \(line)")
                }
                if line.hasPrefix("  -") || line.hasPrefix("  <") {
                    entries.append(String(line))
                } else if line.hasPrefix("      "), !entries.isEmpty {
                    entries[entries.count - 1] += " " + line.trimmingCharacters(in: .whitespaces)
                }
            }
            #expect(!entries.isEmpty || command == "rules", "\(command)")
            for entry in entries {
                let defaults = entry.components(separatedBy: "default").count - 1
                #expect(defaults <= 1, "\(command): \(entry)")
            }
        }
    }

    @Test("-o - writes standard output and never a file named -")
    func dashOutput() throws {
        let folder = try Self.workspace()
        defer { try? FileManager.default.removeItem(at: folder) }
        let runs: [([String], String)] = [
            (["analyze", "drums.wav", "-o", "-", "--no-progress"], "\"beats\": ["),
            (["plot", "song.wav", "song.beatmap.json", "-o", "-"], "<svg"),
            (["format", "song.beatmap.json", "-o", "-"], "\"version\": 1"),
            (["export", "song.beatmap.json", "--format", "csv", "-o", "-"], "0.25"),
            (["import", "beats.txt", "--duration", "10", "-o", "-"], "\"beats\": ["),
        ]
        for (arguments, expected) in runs {
            let result = try CLI.run(arguments, in: folder)
            #expect(result.status == 0, "\(arguments): \(result.stderr)")
            #expect(result.stdout.contains(expected), "\(arguments)")
            #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("-").path), "\(arguments)")
        }
    }

    @Test("- reads standard input wherever one file is read")
    func dashInput() throws {
        let folder = try Self.workspace()
        defer { try? FileManager.default.removeItem(at: folder) }
        let map = try Data(contentsOf: folder.appendingPathComponent("song.beatmap.json"))
        let audio = try Data(contentsOf: folder.appendingPathComponent("song.wav"))
        let drums = try Data(contentsOf: folder.appendingPathComponent("drums.wav"))

        let validate = try CLI.run(["validate", "-"], in: folder, stdin: map)
        #expect(validate.status == 0, "\(validate.stderr)")
        #expect(validate.stdout.contains("Validated 1 file"))
        // The map's relative audio path is taken from the current folder: the audio is found and checked.
        #expect(!validate.stdout.contains("not found"))

        let broken = try CLI.run(
            ["validate", "-"], in: folder,
            stdin: try Data(contentsOf: folder.appendingPathComponent("broken.beatmap.json")))
        #expect(broken.status == 1)
        #expect(broken.stdout.contains("<stdin>:"))

        let info = try CLI.run(["info", "-", "--json"], in: folder, stdin: map)
        #expect(info.status == 0, "\(info.stderr)")
        #expect(info.stdout.contains("\"path\": \"<stdin>\""))

        let format = try CLI.run(["format", "-"], in: folder, stdin: map)
        #expect(format.status == 0)
        #expect(format.stdout.hasPrefix("{\n  \"version\": 1,"))

        let export = try CLI.run(["export", "-", "-o", "beats.csv"], in: folder, stdin: map)
        #expect(export.status == 0, "\(export.stderr)")
        let csv = try String(contentsOf: folder.appendingPathComponent("beats.csv"), encoding: .utf8)
        #expect(csv.hasPrefix("0.25\n"))

        let imported = try CLI.run(
            ["import", "-", "--format", "txt", "--duration", "10"], in: folder, stdin: Data("0.5\n1.0\n".utf8))
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(imported.stdout.contains("\"beats\": [\n    0.5,\n    1.0\n  ]"))

        let plot = try CLI.run(["plot", "-", "song.beatmap.json", "-o", "-"], in: folder, stdin: audio)
        #expect(plot.status == 0, "\(plot.stderr)")
        #expect(plot.stdout.contains("song.beatmap.json over &lt;stdin&gt;") || plot.stdout.contains("over <stdin>"))

        let render = try CLI.run(["render", "song.wav", "-", "-o", "r.wav"], in: folder, stdin: map)
        #expect(render.status == 0, "\(render.stderr)")
        #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent("r.wav").path))

        let analyzed = try CLI.run(["analyze", "-", "-o", "-", "--no-progress"], in: folder, stdin: drums)
        #expect(analyzed.status == 0, "\(analyzed.stderr)")
        #expect(analyzed.stdout.contains("\"duration\": 8.0"))
        #expect(!analyzed.stdout.contains("\"path\""))
        #expect(analyzed.stderr.contains("<stdin> → -"))

        let empty = try CLI.run(["analyze", "-", "-o", "-", "--no-progress"], in: folder, stdin: Data())
        #expect(empty.status == 2)
        #expect(empty.stderr.contains("<stdin>: standard input is empty"))
        #expect(!empty.stderr.contains("beatmap-stdin"))
    }

    @Test("an output name that does not say what the command writes is refused before any work")
    func outputNamesFollowExtensions() throws {
        let folder = try Self.workspace()
        defer { try? FileManager.default.removeItem(at: folder) }
        let png = try CLI.run(["plot", "song.wav", "song.beatmap.json", "-o", "plot.png"], in: folder)
        #expect(png.status == 64)
        #expect(png.stderr.contains("writes SVG"))
        #expect(png.stderr.contains(".png is not supported"))
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("plot.png").path))

        let txt = try CLI.run(["export", "song.beatmap.json", "-o", "c.txt"], in: folder)
        #expect(txt.status == 0, "\(txt.stderr)")
        #expect(try String(contentsOf: folder.appendingPathComponent("c.txt"), encoding: .utf8).hasPrefix("0.25\n"))

        let contradiction = try CLI.run(["export", "song.beatmap.json", "-o", "c.sm", "--format", "txt"], in: folder)
        #expect(contradiction.status == 64)
        #expect(contradiction.stderr.contains("--format txt does not match -o c.sm (it names sm)"))
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("c.sm").path))

        let analyze = try CLI.run(["analyze", "drums.wav", "-o", "drums.txt", "--no-progress"], in: folder)
        #expect(analyze.status == 64)
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("drums.txt").path))

        let saber = try CLI.run(["export", "song.beatmap.json", "--format", "beatsaber", "-o", "Saber"], in: folder)
        #expect(saber.status == 0, "\(saber.stderr)")
        let back = try CLI.run(["import", "Saber"], in: folder)
        #expect(back.status == 0, "\(back.stderr)")
        #expect(back.stdout.contains("\"beats\": [\n    0.25,"))
    }

    @Test("negative numbers are option values, and times are seconds or m:ss everywhere")
    func negativeValuesAndTimes() throws {
        let folder = try Self.workspace()
        defer { try? FileManager.default.removeItem(at: folder) }
        let spaced = try CLI.run(
            ["render", "song.wav", "song.beatmap.json", "-o", "a.wav", "--music-gain", "-6", "--click-gain", "-1.5"],
            in: folder)
        #expect(spaced.status == 0, "\(spaced.stderr)")
        let joined = try CLI.run(
            ["render", "song.wav", "song.beatmap.json", "-o", "b.wav", "--music-gain=-6"], in: folder)
        #expect(joined.status == 0, "\(joined.stderr)")
        #expect(
            try Data(contentsOf: folder.appendingPathComponent("a.wav")).count
                == Data(contentsOf: folder.appendingPathComponent("b.wav")).count)

        let clock = try CLI.run(
            ["render", "song.wav", "song.beatmap.json", "-o", "c.wav", "--from", "0:01.5", "--to", "0:03"], in: folder)
        #expect(clock.status == 0, "\(clock.stderr)")
        let seconds = try CLI.run(
            ["render", "song.wav", "song.beatmap.json", "-o", "d.wav", "--from", "1.5", "--to", "3"], in: folder)
        #expect(seconds.status == 0)
        #expect(
            try Data(contentsOf: folder.appendingPathComponent("c.wav"))
                == Data(contentsOf: folder.appendingPathComponent("d.wav")))

        let plot = try CLI.run(["plot", "song.wav", "song.beatmap.json", "-o", "-", "--from", "0:02"], in: folder)
        #expect(plot.status == 0, "\(plot.stderr)")
        let negative = try CLI.run(["plot", "song.wav", "song.beatmap.json", "-o", "-", "--from", "-2"], in: folder)
        #expect(negative.status == 64)
        #expect(negative.stderr.contains("'-2' is invalid for '--from <time>'"))
        let reversed = try CLI.run(
            ["render", "song.wav", "song.beatmap.json", "-o", "e.wav", "--from", "0:03", "--to", "2"], in: folder)
        #expect(reversed.status == 64)
        #expect(reversed.stderr.contains("--to 0:02 must be after --from 0:03"))
    }

    @Test("findings count beats from 1 in text and keep the 0-based index in JSON")
    func beatNumbering() throws {
        let folder = try Self.workspace()
        defer { try? FileManager.default.removeItem(at: folder) }
        // beats[2] = 0.9 comes before beats[1] = 1.0: people read "beat 3 … before beat 2".
        let text = try CLI.run(["validate", "broken.beatmap.json"], in: folder)
        #expect(text.stdout.contains("beat 3 at 0.9 s comes before beat 2 at 1.0 s"), "\(text.stdout)")
        let json = try CLI.run(["validate", "--format", "json", "broken.beatmap.json"], in: folder)
        #expect(json.stdout.contains("\"index\": 2,"))
        #expect(!json.stdout.contains("\"index\": 3,"))
    }

    @Test("format --in-place is the explicit request: no --force needed")
    func inPlaceIsEnough() throws {
        let folder = try Self.workspace()
        defer { try? FileManager.default.removeItem(at: folder) }
        let result = try CLI.run(["format", "--in-place", "song.beatmap.json"], in: folder)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "formatted song.beatmap.json\n")
        let check = try CLI.run(["format", "--check", "song.beatmap.json"], in: folder)
        #expect(check.status == 0)
    }

    @Test("completion scripts generate for bash, zsh and fish", arguments: ["bash", "zsh", "fish"])
    func completionScripts(_ shell: String) throws {
        let result = try CLI.run(["--generate-completion-script", shell])
        #expect(result.status == 0)
        for command in Self.commands { #expect(result.stdout.contains(command), "\(shell): \(command)") }
    }
}
