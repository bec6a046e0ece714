// SPDX-License-Identifier: GPL-3.0-or-later

import Foundation
import Testing

@testable import BeatMapKit

/// Imports `text` as a `.chart` file named `name`.
func importChart(_ text: String, name: String = "notes.chart", duration: Double? = nil) throws -> Result<
    ImportedMap, InterchangeError
> {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let url = folder.appendingPathComponent(name)
    try Data(text.utf8).write(to: url)
    do {
        return .success(try ChartFormat().importMap(from: url, options: ImportOptions(duration: duration)))
    } catch {
        return .failure(error)
    }
}

@Suite("Clone Hero .chart files")
struct ChartFormatTests {
    /// A chart as Moonscraper writes one: 192 ticks per quarter, 4/4 at 120 BPM, then 3/4 at 90 BPM from
    /// bar 3, and notes to bar 5.
    static let moonscraperChart = """
        [Song]
        {
          Name = "Song"
          Artist = "Band"
          Charter = "Someone"
          Offset = 0
          Resolution = 192
          Player2 = bass
          Difficulty = 0
          PreviewStart = 0
          PreviewEnd = 0
          Genre = "rock"
          MediaType = "cd"
          MusicStream = "song.ogg"
        }
        [SyncTrack]
        {
          0 = TS 4
          0 = B 120000
          1536 = TS 3
          1536 = B 90000
        }
        [Events]
        {
          0 = E "section Intro"
        }
        [ExpertSingle]
        {
          0 = N 0 0
          3072 = N 1 0
        }

        """

    @Test("Resolution, B and TS give the beats, meters and tempo segments")
    func moonscraper() throws {
        let imported = try importChart(Self.moonscraperChart).get()
        // 8 beats of 0.5 s, then 3/4 at 90 BPM (2/3 s) up to the last note at tick 3072 (beat 8 of that part).
        let expected =
            (0..<8).map { Double($0) * 0.5 }
            + (0...8).map { NumberFormatting.roundedToMicroseconds(4 + Double($0) * 2 / 3) }
        #expect(imported.map.beats == expected)
        let tempo = try #require(imported.map.tempo)
        #expect(tempo.map(\.beatsPerBar) == [4, 3])
        #expect(tempo.map { ($0.bpm * 1000).rounded() / 1000 } == [120, 90])
        #expect(imported.map.audio.path == "song.ogg")
    }

    @Test("Offset is the time of tick 0, and TS takes a denominator exponent")
    func offsetAndDenominator() throws {
        let text = """
            [Song]
            {
              Offset = 0.25
              Resolution = 480
            }
            [SyncTrack]
            {
              0 = TS 6 3
              0 = B 60000
            }

            """
        let imported = try importChart(text, duration: 2).get()
        #expect(imported.map.beats == [0.25, 0.75, 1.25, 1.75])
        #expect(imported.map.tempo?.first?.beatsPerBar == 6)
    }

    @Test("export → import keeps every beat within 0.5 ms and the meters", arguments: SampleMaps.all.map(\.0))
    func roundTrip(name: String) throws {
        let map = try #require(SampleMaps.all.first { $0.0 == name }?.1)
        let text = try #require(try ChartFormat().export(map, options: ExportOptions()).first?.text)
        let imported = try importChart(text, duration: map.audio.duration).get()
        try #require(imported.map.beats.count == map.beats.count)
        #expect(largestDifference(imported.map.beats, map.beats) <= 0.000_5)
        if name == "tempo change" {
            #expect(imported.map.tempo?.compactMap(\.beatsPerBar) == [3, 4])
        }
    }

    @Test("an export has Moonscraper's sections, integer tempos and an empty note track")
    func exportShape() throws {
        let text = try #require(try ChartFormat().export(SampleMaps.steady, options: ExportOptions()).first?.text)
        let sections = text.split(separator: "\n").filter { $0.hasPrefix("[") }
        #expect(sections == ["[Song]", "[SyncTrack]", "[Events]", "[ExpertSingle]"])
        #expect(text.contains("  Resolution = 192\n"))
        #expect(text.contains("  Offset = 0\n"))
        #expect(text.contains("  MusicStream = \"song.ogg\"\n"))
        #expect(text.contains("  192 = TS 4\n"))
        #expect(text.contains("  0 = B 120000\n"))
        #expect(text.hasSuffix("[ExpertSingle]\n{\n}\n"))
    }

    /// The error of importing `text`, which must fail.
    func failure(_ text: String) throws -> InterchangeError {
        switch try importChart(text, name: "bad.chart", duration: 10) {
        case .success: throw InterchangeError(path: nil, "imported")
        case .failure(let error): return error
        }
    }

    @Test("a tempo of 0, a missing resolution, a bad tick and an unclosed section are errors with lines")
    func badInput() throws {
        let zero = try failure("[Song]\n{\n  Resolution = 192\n}\n[SyncTrack]\n{\n  0 = B 0\n}\n")
        #expect(zero.line == 7)
        #expect(zero.path?.hasSuffix("bad.chart") == true)
        let noResolution = try failure("[Song]\n{\n}\n[SyncTrack]\n{\n  0 = B 120000\n}\n")
        #expect(noResolution.message.contains("Resolution"))
        let badTick = try failure("[Song]\n{\n  Resolution = 192\n}\n[SyncTrack]\n{\n  -5 = B 120000\n}\n")
        #expect(badTick.line == 7)
        let unclosed = try failure("[Song]\n{\n  Resolution = 192\n")
        #expect(unclosed.message.contains("not closed"))
        let notChart = try failure("hello")
        #expect(notChart.line == 1)
    }

    @Test("a tempo map of over a million beats is refused")
    func tooManyBeats() throws {
        let error = try failure(
            "[Song]\n{\n  Resolution = 1\n}\n[SyncTrack]\n{\n  0 = TS 4 6\n  0 = B 4000000000\n}\n[Events]\n{\n  0 = E \"beatmap_first_beat\"\n  1099511627776 = E \"beatmap_last_beat\"\n}\n"
        )
        #expect(error.message.contains("million"))
    }
}

@Suite("C# and GDScript exports")
struct EngineSourceTests {
    @Test("C#: a static class in a namespace with Beats, Bpm, Duration and tempo changes")
    func csharpShape() throws {
        var options = ExportOptions()
        options.csharpNamespace = "Game.Levels"
        options.csharpClassName = "Level1"
        let text = try #require(try CSharpSourceFormat().export(SampleMaps.tempoChange, options: options).first?.text)
        #expect(text.contains("namespace Game.Levels\n{\n"))
        #expect(text.contains("    public static class Level1\n"))
        #expect(text.contains("public const double Bpm = 100.0;"))
        #expect(text.contains("public static readonly double[] TempoChangeTimes ="))
        #expect(text.contains("            0.25,\n"))
    }

    @Test("C# names that are not identifiers are refused", arguments: ["1Class", "class", "A-B", ""])
    func csharpBadNames(name: String) {
        var options = ExportOptions()
        options.csharpClassName = name
        #expect(throws: InterchangeError.self) { try CSharpSourceFormat().export(SampleMaps.steady, options: options) }
    }

    @Test("GDScript: extends RefCounted, typed consts, a PackedFloat64Array")
    func gdscriptShape() throws {
        let text = try #require(
            try GDScriptSourceFormat().export(SampleMaps.steady, options: ExportOptions()).first?.text)
        #expect(text.contains("\nextends RefCounted\n"))
        #expect(text.contains("\nconst BPM: float = 120.0\n"))
        #expect(text.contains("\nconst DURATION: float = 31.0\n"))
        #expect(text.contains("\nconst BEATS: PackedFloat64Array = PackedFloat64Array([\n\t0.5,\n\t1.0,\n"))
        #expect(text.hasSuffix("\t30.0,\n])\n"))
    }

    /// GDScript (Godot 4) as the exports use it, checked line by line: Debian's godot3 cannot parse Godot 4
    /// scripts (no `RefCounted`, no `PackedFloat64Array`) and needs an X11 display even with --no-window.
    /// Each line is a comment, blank, `extends RefCounted`, a typed float `const`, the opening of a typed
    /// `PackedFloat64Array` const, a tab-indented float literal with a comma, or the array's close.
    @Test("GDScript exports follow the Godot 4 grammar they use", arguments: SampleMaps.all.map(\.0))
    func gdscriptGrammar(name: String) throws {
        let map = try #require(SampleMaps.all.first { $0.0 == name }?.1)
        let text = try #require(try GDScriptSourceFormat().export(map, options: ExportOptions()).first?.text)
        let identifier = "[A-Z_][A-Z0-9_]*"
        let float = "-?[0-9]+\\.[0-9]+"
        let patterns = [
            "#.*", "", "extends RefCounted", "const \(identifier): float = \(float)",
            "const \(identifier): PackedFloat64Array = PackedFloat64Array\\(\\[", "\t\(float),", "\\]\\)",
            "const \(identifier): PackedFloat64Array = PackedFloat64Array\\(\\[\\]\\)",
        ].map { try! NSRegularExpression(pattern: "^(\($0))$") }
        var open = false
        var names: Set<String> = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            let range = NSRange(line.startIndex..., in: line)
            let matched = patterns.firstIndex { $0.firstMatch(in: line, range: range) != nil }
            let index = try #require(matched, "not GDScript this export writes: \(line)")
            if index == 4 {
                #expect(!open)
                open = true
            }
            if index == 5 { #expect(open) }
            if index == 6 {
                #expect(open)
                open = false
            }
            if index == 3 || index == 4 || index == 7 {
                let name = String(line.dropFirst(6).prefix { $0 != ":" })
                #expect(names.insert(name).inserted, "\(name) declared twice")
            }
        }
        #expect(!open)
        #expect(names.isSuperset(of: ["BPM", "DURATION", "BEATS"]))
    }

    @Test("C# and GDScript exports import back exactly", arguments: [InterchangeFormat.csharp, .gdscript])
    func roundTrip(format: InterchangeFormat) throws {
        let folder = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let back = try BeatMapKitTests.roundTrip(
            SampleMaps.tempoChange, format, in: folder, options: ImportOptions(duration: nil))
        #expect(back.map.beats == SampleMaps.tempoChange.beats.map(NumberFormatting.roundedToMicroseconds))
        #expect(
            back.map.audio.duration == NumberFormatting.roundedToMicroseconds(SampleMaps.tempoChange.audio.duration))
    }
}
