// SPDX-License-Identifier: GPL-3.0-or-later

import BeatMapKit
import Foundation
import Testing

/// `import` writes maps its own validator passes where the source allows it, and says where it does not
/// (session 98: a followed map exported as beat times came back failing `off-grid` against its one
/// inferred tempo, and a StepMania chart whose beat 0 lies before the audio came back with a tempo
/// segment before 0 s; both were written without a word).
@Suite("Import: checked against the validator")
struct ImportCheckTests {
    /// Imports `text` written as `name` in a new folder, with `duration`.
    static func importing(_ text: String, name: String, format: InterchangeFormat, duration: Double) throws
        -> Interchange.ImportResult
    {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("import-check-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent(name)
        try Data(text.utf8).write(to: url)
        return try Interchange.importMap(
            from: url, format: format, options: ImportOptions(duration: duration), to: nil, workingFolder: folder,
            overwrite: false)
    }

    /// The errors `validate` finds in a map file's text.
    static func errors(_ text: String) -> [String] {
        Validator().validate(bytes: Array(text.utf8), path: "imported.beatmap.json").findings
            .filter { $0.severity == .error }.map(\.ruleID)
    }

    @Test("a drifting beat list gets a tempo map through its beats, which stay where they were")
    func driftingList() throws {
        var beats: [Double] = []
        var t = 0.3
        for index in 0..<80 {
            beats.append(NumberFormatting.roundedToMicroseconds(t))
            t += 0.5 * (1 + 0.06 * sin(Double(index) / 9))
        }
        let result = try Self.importing(
            beats.map { NumberFormatting.decimal($0) }.joined(separator: "\n") + "\n", name: "beats.txt", format: .txt,
            duration: t + 1)
        #expect(Self.errors(result.text) == [])
        #expect(result.errors.isEmpty)
        let map = result.imported.map
        #expect(map.beats == beats)
        let tempo = try #require(map.tempo)
        #expect(tempo.count > 1)
        #expect(result.imported.notes.contains { $0.message.hasPrefix("the beats follow no one tempo") })
    }

    @Test("a steady beat list stays a bare list")
    func steadyList() throws {
        let beats = (0..<40).map { NumberFormatting.decimal(0.25 + Double($0) * 0.5) }
        let result = try Self.importing(
            beats.joined(separator: "\n") + "\n", name: "beats.txt", format: .txt, duration: 30)
        #expect(result.imported.map.tempo == nil)
        #expect(result.imported.notes.isEmpty)
        #expect(Self.errors(result.text) == [])
    }

    @Test("a StepMania chart whose beat 0 is before the audio gets its anchor inside the track")
    func stepManiaBeforeZero() throws {
        // Beat 0 at −0.45 s (#OFFSET 0.45), 120 BPM: the first beat inside the track is at 0.05 s.
        let notes = String(repeating: "1000\n0000\n0000\n0000\n,\n", count: 3) + "1000\n0000\n0000\n0000\n;\n"
        let chart = """
            #TITLE:t;
            #MUSIC:t.ogg;
            #OFFSET:0.45;
            #BPMS:0.000=120.000;
            #NOTES:
                 dance-single:
                 :
                 Beginner:
                 1:
                 0,0,0,0,0:
            \(notes)
            """
        let result = try Self.importing(chart, name: "song.sm", format: .sm, duration: 10)
        #expect(Self.errors(result.text) == [])
        let tempo = try #require(result.imported.map.tempo)
        let first = try #require(tempo.first)
        #expect(first.time >= 0)
        #expect(result.imported.map.beats.allSatisfy { $0 >= 0 })
    }

    @Test("a source the validator faults is written as it says, with the errors counted and named")
    func faultySource() throws {
        // A beat past the duration the user gave.
        let result = try Self.importing("0.5\n1.0\n1.5\n2.0\n12.0\n", name: "beats.txt", format: .txt, duration: 10)
        #expect(result.imported.map.beats.count == 5)
        #expect(result.errors.map(\.ruleID).contains("out-of-duration"))
        #expect(
            result.imported.notes.contains {
                $0.message.hasPrefix("the map as the file gives it fails validation: ")
                    && $0.message.contains("out-of-duration ×1")
            })
    }
}
