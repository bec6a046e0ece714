// SPDX-License-Identifier: GPL-3.0-or-later

import Foundation
import Testing

@Suite("beatmap plot")
struct PlotCommandTests {
    static let audio = CLI.packageRoot.appendingPathComponent("Audio/demo-tempo-change.flac").path
    static let map = CLI.packageRoot.appendingPathComponent("BeatMaps/demo-tempo-change.beatmap.json").path

    @Test("plots the demo track: both tempos labelled, every bar downbeat drawn, m:ss axis")
    func demo() throws {
        let folder = try CLI.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let result = try CLI.run(["plot", Self.audio, Self.map, "-o", "plot.svg"], in: folder)
        #expect(result.status == 0, "\(result.stderr)")
        let svg = try String(contentsOf: folder.appendingPathComponent("plot.svg"), encoding: .utf8)
        #expect(svg.hasPrefix("<svg "))
        #expect(svg.contains("128 BPM · 4/bar"))
        #expect(svg.contains("150 BPM · 4/bar"))
        // 72 beats in bars of 4: 18 downbeats.
        #expect(svg.components(separatedBy: "stroke=\"#c62828\" stroke-width=\"2\"").count - 1 == 18)
        #expect(svg.contains(">0:30<"))
        #expect(svg.contains("onset strength: aubio specflux"))
    }

    @Test("refuses to replace a file without --force, and bad ranges")
    func refusals() throws {
        let folder = try CLI.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try Data("keep".utf8).write(to: folder.appendingPathComponent("plot.svg"))
        let exists = try CLI.run(["plot", Self.audio, Self.map, "-o", "plot.svg"], in: folder)
        #expect(exists.status == 2)
        #expect(exists.stderr.contains("plot.svg"))
        #expect(exists.stderr.contains("--force"))
        #expect(try String(contentsOf: folder.appendingPathComponent("plot.svg"), encoding: .utf8) == "keep")
        let badTime = try CLI.run(["plot", Self.audio, Self.map, "-o", "z.svg", "--from", "1:xx"], in: folder)
        #expect(badTime.status != 0)
        #expect(badTime.stderr.contains("--from"))
        let outside = try CLI.run(["plot", Self.audio, Self.map, "-o", "z.svg", "--from", "5:00"], in: folder)
        #expect(outside.status == 2)
        #expect(outside.stderr.contains("nothing to plot"))
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("z.svg").path))
    }

    @Test("an audio file that cannot be read is named")
    func badAudio() throws {
        let folder = try CLI.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let result = try CLI.run(["plot", "missing.ogg", Self.map, "-o", "p.svg"], in: folder)
        #expect(result.status == 2)
        #expect(result.stderr.contains("missing.ogg"))
    }
}
