// SPDX-License-Identifier: GPL-3.0-or-later

import BeatMapKit
import Foundation
import Testing

/// A fixture made by tools/make-eval-fixtures.py: two beat lists and mir_eval's scores for them.
private struct MirEvalCase: Decodable, CustomTestStringConvertible {
    var name: String
    var reference: [Double]
    var estimate: [Double]
    var mirEval: [String: Double]

    var testDescription: String { name }

    static let folder = CLI.packageRoot.appendingPathComponent("Tests/BeatMapKitTests/Fixtures/evaluation")

    static func all() throws -> [MirEvalCase] {
        try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".json") }.sorted()
            .map {
                try JSONDecoder().decode(MirEvalCase.self, from: Data(contentsOf: folder.appendingPathComponent($0)))
            }
    }
}

/// The keys of `--format json`, in their order.
private let scoreKeys = ["fMeasure", "cemgil", "goto", "pScore", "cmlc", "cmlt", "amlc", "amlt", "informationGain"]

/// Writes `times` as a text beat list (with a comment and a second column, as annotation files have).
private func writeText(_ times: [Double], to url: URL) throws {
    var text = "# beat times in seconds\n"
    for (index, time) in times.enumerated() { text += "\(time)\t\(index % 4 + 1)\n" }
    try Data(text.utf8).write(to: url)
}

/// Writes `times` as a beat map.
private func writeMap(_ times: [Double], to url: URL) throws {
    let map = BeatMap(audio: AudioReference(duration: (times.last ?? 0) + 1), beats: times)
    try BeatMapCodec.write(map, to: url, overwrite: true)
}

/// The keys, in order, and values of a one-line JSON object of numbers.
private func parseScores(_ line: String) throws -> [(String, Double)] {
    let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    var keys: [String] = []
    var rest = Substring(line)
    while let quote = rest.firstIndex(of: "\"") {
        let afterQuote = rest.index(after: quote)
        let close = try #require(rest[afterQuote...].firstIndex(of: "\""))
        keys.append(String(rest[afterQuote..<close]))
        rest = rest[rest.index(after: close)...]
    }
    return try keys.map { key in (key, try #require((object[key] as? NSNumber)?.doubleValue)) }
}

@Suite("beatmap evaluate")
struct EvaluateCommandTests {
    @Test("--format json prints exactly the nine scores, equal to mir_eval's", arguments: try MirEvalCase.all())
    fileprivate func jsonMatchesMirEval(fixture: MirEvalCase) throws {
        let folder = try CLI.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        // The reference as text and the estimate as a beat map: both readers in every case.
        try writeText(fixture.reference, to: folder.appendingPathComponent("reference.txt"))
        try writeMap(fixture.estimate, to: folder.appendingPathComponent("estimate.beatmap.json"))
        let result = try CLI.run(
            ["evaluate", "reference.txt", "estimate.beatmap.json", "--format", "json"], in: folder)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.hasSuffix("}\n"))
        #expect(result.stdout.filter { $0 == "\n" }.count == 1)
        let scores = try parseScores(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
        #expect(scores.map(\.0) == scoreKeys)
        for (key, value) in scores {
            let expected = try #require(fixture.mirEval[key])
            #expect(abs(value - expected) <= 0.001, "\(fixture.name) \(key): \(value), mir_eval \(expected)")
        }
    }

    @Test("the text output names both files and lists every score")
    func textOutput() throws {
        let folder = try CLI.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let reference = (0..<40).map { 5.0 + Double($0) * 0.5 }
        try writeText(reference, to: folder.appendingPathComponent("ref.txt"))
        try writeText(reference.map { $0 + 0.25 }, to: folder.appendingPathComponent("off.txt"))
        let result = try CLI.run(["evaluate", "ref.txt", "off.txt"], in: folder)
        #expect(result.status == 0)
        #expect(result.stdout.contains("reference  ref.txt (text): 40 beats, 40 scored (at or after 5 s)"))
        #expect(result.stdout.contains("estimate   off.txt (text): 40 beats"))
        // Off-beat: nothing within ±70 ms, everything right at another metric level.
        #expect(result.stdout.contains("F-measure         0.0000"))
        #expect(result.stdout.contains("AMLt              0.9750"))
        for label in ["Cemgil", "Goto", "P-score", "CMLc", "CMLt", "AMLc", "Information gain"] {
            #expect(result.stdout.contains("\n\(label) "), "\(label)")
        }
        #expect(result.stderr.isEmpty)
    }

    @Test("the same input gives byte-identical output")
    func deterministic() throws {
        let folder = CLI.packageRoot.appendingPathComponent("Tests/BeatMapKitTests/Fixtures/evaluation")
        let fixture = try #require(try MirEvalCase.all().first { $0.name == "jitter-40ms" })
        let work = try CLI.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: work) }
        try writeText(fixture.reference, to: work.appendingPathComponent("r.txt"))
        try writeText(fixture.estimate, to: work.appendingPathComponent("e.txt"))
        for format in ["text", "json"] {
            let first = try CLI.run(["evaluate", "r.txt", "e.txt", "--format", format], in: work)
            let second = try CLI.run(["evaluate", "r.txt", "e.txt", "--format", format], in: work)
            #expect(first.status == 0)
            #expect(first.stdout == second.stdout)
            #expect(!first.stdout.isEmpty)
        }
        #expect(FileManager.default.fileExists(atPath: folder.path))
    }

    @Test("- reads one of the two from standard input, e.g. piped from a tracker")
    func standardInput() throws {
        let folder = try CLI.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let reference = (0..<30).map { 5.0 + Double($0) * 0.5 }
        try writeMap(reference, to: folder.appendingPathComponent("song.beatmap.json"))
        let piped = reference.map { "\($0)" }.joined(separator: "\n")
        let result = try CLI.run(
            ["evaluate", "song.beatmap.json", "-", "--format", "json"], in: folder, stdin: Data(piped.utf8))
        #expect(result.status == 0)
        #expect(result.stdout.hasPrefix("{\"fMeasure\":1.0,\"cemgil\":1.0,"))
        let both = try CLI.run(["evaluate", "-", "-"], in: folder, stdin: Data())
        #expect(both.status != 0)
        #expect(both.stderr.contains("standard input"))
    }

    @Test("an empty estimate scores 0 with a warning on stderr")
    func emptyEstimate() throws {
        let folder = try CLI.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try writeText((0..<30).map { 5.0 + Double($0) * 0.5 }, to: folder.appendingPathComponent("ref.txt"))
        try Data("# nothing detected\n".utf8).write(to: folder.appendingPathComponent("none.txt"))
        let result = try CLI.run(["evaluate", "ref.txt", "none.txt", "--format", "json"], in: folder)
        #expect(result.status == 0)
        #expect(try parseScores(result.stdout).allSatisfy { $0.1 == 0 })
        #expect(result.stderr.contains("none.txt: the estimate has no beats at or after 5 s"))
    }

    @Test("--min-beat-time changes the trimming")
    func minimumBeatTime() throws {
        let folder = try CLI.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let beats = (0..<8).map { 0.5 + Double($0) * 0.5 }
        try writeText(beats, to: folder.appendingPathComponent("short.txt"))
        let trimmed = try CLI.run(["evaluate", "short.txt", "short.txt", "--format", "json"], in: folder)
        let kept = try CLI.run(
            ["evaluate", "short.txt", "short.txt", "--format", "json", "--min-beat-time", "0"], in: folder)
        #expect(try parseScores(trimmed.stdout).first?.1 == 0)
        #expect(try parseScores(kept.stdout).first?.1 == 1)
    }

    @Test(
        "bad input: a clear error naming the file and line, non-zero exit, nothing on stdout",
        arguments: [
            ("5.0\n6.0\nfive\n", "bad.txt:3: \"five\" is not a time in seconds", Int32(2)),
            ("5.0\n6.0\n5.5\n", "bad.txt:3:1: 5.5 s comes before the previous time 6.0 s", 2),
            ("5.0\n  nan\n", "bad.txt:2: \"nan\" is not a time in seconds", 2),
            ("5.0\n40000\n", "bad.txt:2:1: 40000.0 s is beyond ±30000 s", 2),
            ("{\"version\": 1, \"beats\": [5.0,\n", "bad.txt:2:1: invalid JSON", 2),
            ("{\"version\": 1, \"audio\": {\"duration\": 9}, \"beats\": [5.0, NaN]}", "bad.txt:1:", 2),
            (
                "{\"version\": 1, \"audio\": {\"duration\": 9},\n \"beats\": [6.0,\n 5.0]}",
                "bad.txt:3:2: 5.0 s comes before", 2
            ),
            ("{\"version\": 1, \"beats\": [5.0]}", "bad.txt:1:1: missing required member \"audio\"", 2),
        ])
    func badInput(contents: String, message: String, status: Int32) throws {
        let folder = try CLI.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try writeText([5, 6, 7], to: folder.appendingPathComponent("ref.txt"))
        try Data(contents.utf8).write(to: folder.appendingPathComponent("bad.txt"))
        let result = try CLI.run(["evaluate", "ref.txt", "bad.txt"], in: folder)
        #expect(result.status == status)
        #expect(result.stderr.contains(message), "\(result.stderr)")
        #expect(result.stdout.isEmpty)
    }

    @Test("a missing or unreadable file exits 2 naming it")
    func missingFile() throws {
        let folder = try CLI.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try writeText([5, 6, 7], to: folder.appendingPathComponent("ref.txt"))
        let missing = try CLI.run(["evaluate", "ref.txt", "missing.txt"], in: folder)
        #expect(missing.status == 2)
        #expect(missing.stderr.contains("missing.txt: cannot read: No such file or directory"))
        let directory = try CLI.run(["evaluate", ".", "ref.txt"], in: folder)
        #expect(directory.status == 2)
        #expect(directory.stderr.contains(".: cannot read: is a directory"))
    }
}
