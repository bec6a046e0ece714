// SPDX-License-Identifier: GPL-3.0-or-later

import BeatMapKit
import Foundation
import Testing

/// Compiles C# exports with Debian's `mcs` (package mono-mcs, which tools/setup.sh installs) and runs
/// them with `mono`.
@Suite("C# export compiles", .serialized)
struct CSharpExportCompileTests {
    /// An executable named `name` on the `PATH`.
    static func tool(_ name: String) -> URL? {
        for folder in (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":") {
            let candidate = URL(fileURLWithPath: String(folder)).appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        return nil
    }

    /// Compiles `generated` with a `Main` that prints the constants, runs it, and returns its output.
    func compileAndRun(generated: String, qualifiedClass: String) throws -> String {
        let compiler = try #require(Self.tool("mcs"), "mcs not found on PATH (apt-get install mono-mcs)")
        let runtime = try #require(Self.tool("mono"), "mono not found on PATH")
        let folder = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let main = """
            public static class Program
            {
                public static void Main()
                {
                    var c = System.Globalization.CultureInfo.InvariantCulture;
                    System.Console.WriteLine(\(qualifiedClass).Bpm.ToString("R", c));
                    System.Console.WriteLine(\(qualifiedClass).Duration.ToString("R", c));
                    System.Console.WriteLine(\(qualifiedClass).Beats.Length);
                    foreach (var beat in \(qualifiedClass).Beats) System.Console.WriteLine(beat.ToString("R", c));
                }
            }

            """
        try Data(generated.utf8).write(to: folder.appendingPathComponent("Generated.cs"))
        try Data(main.utf8).write(to: folder.appendingPathComponent("Program.cs"))
        let binary = folder.appendingPathComponent("program.exe")
        let runner = SwiftExportCompileTests()
        let (status, output, errors) = try runner.run(
            compiler,
            [
                "-warnaserror+", "-out:" + binary.path, folder.appendingPathComponent("Generated.cs").path,
                folder.appendingPathComponent("Program.cs").path,
            ])
        #expect(status == 0, "mcs failed: \(output) \(errors)")
        let (runStatus, printed, _) = try runner.run(runtime, [binary.path])
        #expect(runStatus == 0)
        return printed
    }

    @Test("the default export compiles and holds the map's beats, BPM and duration")
    func defaultExport() throws {
        let map = SampleMaps.jittered
        let text = try #require(try CSharpSourceFormat().export(map, options: ExportOptions()).first?.text)
        let lines = try compileAndRun(generated: text, qualifiedClass: "BeatMapData").split(separator: "\n")
        try #require(lines.count == 3 + map.beats.count)
        #expect(Double(lines[1]) == map.audio.duration.roundedToMicroseconds)
        #expect(Int(lines[2]) == map.beats.count)
        #expect(lines.dropFirst(3).map { Double($0) } == map.beats)
    }

    @Test("a namespace, a class name and tempo changes compile")
    func namespacedExport() throws {
        var options = ExportOptions()
        options.csharpNamespace = "Game.Levels"
        options.csharpClassName = "Level1"
        let map = SampleMaps.tempoChange
        let text = try #require(try CSharpSourceFormat().export(map, options: options).first?.text)
        let lines = try compileAndRun(generated: text, qualifiedClass: "Game.Levels.Level1").split(separator: "\n")
        try #require(lines.count == 3 + map.beats.count)
        #expect(Double(lines[0]) == 100)
        #expect(lines.dropFirst(3).map { Double($0) } == map.beats.map(NumberFormatting.roundedToMicroseconds))
    }

    @Test("an empty map compiles to an empty array")
    func emptyMap() throws {
        let map = BeatMap(audio: AudioReference(duration: 5), beats: [])
        let text = try #require(try CSharpSourceFormat().export(map, options: ExportOptions()).first?.text)
        let lines = try compileAndRun(generated: text, qualifiedClass: "BeatMapData").split(separator: "\n")
        #expect(lines == ["0", "5", "0"])
    }
}

extension Double {
    fileprivate var roundedToMicroseconds: Double { NumberFormatting.roundedToMicroseconds(self) }
}
