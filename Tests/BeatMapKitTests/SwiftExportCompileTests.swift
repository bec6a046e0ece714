// SPDX-License-Identifier: GPL-3.0-or-later

import BeatMapKit
import Foundation
import TestSynth
import Testing

/// Compiles Swift exports with the real `swiftc` and runs them.
@Suite("Swift export compiles", .serialized)
struct SwiftExportCompileTests {
    /// `swiftc` from `$SWIFTC` or the `PATH`.
    static var compiler: URL? {
        if let explicit = ProcessInfo.processInfo.environment["SWIFTC"] { return URL(fileURLWithPath: explicit) }
        for folder in (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":") {
            let candidate = URL(fileURLWithPath: String(folder)).appendingPathComponent("swiftc")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        return nil
    }

    /// Runs `executable arguments…` and returns its status and standard output.
    func run(_ executable: URL, _ arguments: [String]) throws -> (Int32, String, String) {
        let result = try Subprocess.run(executable, arguments)
        return (result.status, result.stdout, result.stderr)
    }

    /// Compiles `generated` with `main` and returns what the program prints.
    func compileAndRun(generated: String, main: String) throws -> String {
        let compiler = try #require(Self.compiler, "swiftc not found on PATH")
        let folder = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try Data(generated.utf8).write(to: folder.appendingPathComponent("Generated.swift"))
        try Data(main.utf8).write(to: folder.appendingPathComponent("main.swift"))
        let binary = folder.appendingPathComponent("program")
        let (status, _, errors) = try run(
            compiler,
            [
                "-swift-version", "6", "-Onone", "-o", binary.path,
                folder.appendingPathComponent("Generated.swift").path,
                folder.appendingPathComponent("main.swift").path,
            ])
        #expect(status == 0, "swiftc failed: \(errors)")
        let (runStatus, output, _) = try run(binary, [])
        #expect(runStatus == 0)
        return output
    }

    @Test("the default export compiles and holds the map's beats, BPM and duration")
    func defaultExport() throws {
        let map = SampleMaps.jittered
        let generated = try InterchangeFormat.swift.converter.export(map, options: ExportOptions())[0].text
        let output = try compileAndRun(
            generated: generated,
            main: """
                print(GameConstants.beatMapBPM)
                print(GameConstants.beatMapDuration)
                for time in GameConstants.beatMap { print(time) }
                """)
        let lines = output.split(separator: "\n").map { Double($0) }
        #expect(lines.count == map.beats.count + 2)
        let expectedBPM = try #require(TempoGrid.inferTempo(from: map.beats)?.bpm)
        #expect(abs((lines[0] ?? 0) - expectedBPM) < 1e-6)
        #expect(lines[1] == map.audio.duration.rounded(toPlaces: 6))
        #expect(Array(lines.dropFirst(2)) == map.beats.map { Optional($0) })
    }

    @Test("an extension of an existing type with a chosen property, public, and tempo changes")
    func extensionExport() throws {
        var options = ExportOptions()
        options.swiftTypeName = "Level.Constants"
        options.swiftPropertyName = "beats"
        options.swiftDeclaration = .extension
        options.swiftAccessLevel = "public"
        let map = SampleMaps.tempoChange
        let generated = try InterchangeFormat.swift.converter.export(map, options: options)[0].text
        let output = try compileAndRun(
            generated: generated,
            main: """
                public enum Level { public enum Constants {} }
                print(Level.Constants.beatsBPM)
                print(Level.Constants.beatsTempoChanges.map { "\\($0.time)@\\($0.bpm)" }.joined(separator: " "))
                print(Level.Constants.beats.count, Level.Constants.beats.first ?? -1, Level.Constants.beats.last ?? -1)
                """)
        let lines = output.split(separator: "\n").map(String.init)
        #expect(lines.count == 3)
        #expect(lines.first == "100.0")
        let segments = map.tempo ?? []
        #expect(
            lines.dropFirst().first
                == segments.map { "\($0.time.rounded(toPlaces: 6))@\($0.bpm)" }.joined(separator: " "))
        #expect(
            lines.last == "\(map.beats.count) \(map.beats[0]) \(map.beats[map.beats.count - 1].rounded(toPlaces: 6))")
    }

    @Test("an empty map compiles to an empty array")
    func emptyMap() throws {
        let map = BeatMap(audio: AudioReference(duration: 12.5), beats: [])
        let generated = try InterchangeFormat.swift.converter.export(map, options: ExportOptions())[0].text
        let output = try compileAndRun(
            generated: generated, main: "print(GameConstants.beatMap.count, GameConstants.beatMapDuration)")
        #expect(output == "0 12.5\n")
    }
}

extension Double {
    /// `self` rounded to `places` decimals (as the exports write times).
    func rounded(toPlaces places: Int) -> Double {
        let scale = pow(10, Double(places))
        return (self * scale).rounded() / scale
    }
}
