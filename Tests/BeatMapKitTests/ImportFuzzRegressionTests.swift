// SPDX-License-Identifier: GPL-3.0-or-later

import Foundation
import Testing

@testable import BeatMapKit

/// Replays the import fuzz target's committed seeds (tools/fuzz/corpus/import/) and every input that once
/// made it fail (tools/fuzz/regressions/import/) the way tools/fuzz/targets/import.swift does, and checks
/// its invariants: an import throws an InterchangeError with a message, or gives a map with finite beats
/// whose text decodes and re-encodes to the same text.
@Suite("Fuzz regressions: importers")
struct ImportFuzzRegressionTests {
    static let regressions = FuzzRegressionTests.inputs(in: "tools/fuzz/regressions/import")
    static let seeds = FuzzRegressionTests.inputs(in: "tools/fuzz/corpus/import")

    /// What the target's last input byte selects.
    struct Selection {
        var format: InterchangeFormat
        var options: ImportOptions
        /// The files written into the scratch folder; the first is imported.
        var files: [(name: String, bytes: [UInt8])]
    }

    /// The same decoding of the selector byte as the fuzz target's.
    static func selection(of input: [UInt8]) -> Selection? {
        guard let selector = input.last.map(Int.init) else { return nil }
        let content = Array(input.dropLast())
        let formats = InterchangeFormat.allCases
        let format = formats[selector % formats.count]
        let variant = selector / formats.count
        var options = ImportOptions(beats: variant & 1 == 0 ? .grid : .notes)
        options.duration = [nil, 30, 0.000_2][(variant >> 1) % 3]
        var files: [(String, [UInt8])]
        switch format {
        case .beatsaber:
            if variant & 1 == 0, let split = content.firstIndex(of: 0) {
                files = [
                    (BeatSaberFormat.infoFileName, Array(content[..<split])),
                    (BeatSaberFormat.audioDataFileName, Array(content[(split + 1)...])),
                ]
            } else {
                files = [
                    (variant & 1 == 0 ? BeatSaberFormat.infoFileName : BeatSaberFormat.audioDataFileName, content)
                ]
            }
        case .swift, .sm, .ssc, .osu, .jams, .midi, .chart, .csharp, .gdscript:
            files = [("fuzz.\(format.fileExtension)", content)]
        default:  // audacity, sonic-visualiser, csv, txt: extensions they share
            files = [("fuzz-\(format.rawValue).\(format.fileExtension)", content)]
        }
        return Selection(format: format, options: options, files: files)
    }

    /// Imports `input` as the fuzz target does; returns the error or the map's text.
    static func importInput(_ input: [UInt8]) throws -> Result<String, InterchangeError>? {
        guard let selection = selection(of: input) else { return nil }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("import-fuzz-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        for file in selection.files { try Data(file.bytes).write(to: folder.appendingPathComponent(file.name)) }
        do {
            let result = try Interchange.importMap(
                from: folder.appendingPathComponent(selection.files[0].name), format: selection.format,
                options: selection.options, to: nil, workingFolder: folder, overwrite: false)
            return .success(result.text)
        } catch {
            return .failure(error)
        }
    }

    /// The fuzz target's invariants for `input`.
    static func checkInvariants(_ input: [UInt8], name: String) throws {
        switch try importInput(input) {
        case nil:
            return
        case .failure(let error)?:
            #expect(!error.message.isEmpty, "\(name): an error without a message")
            if let line = error.line { #expect(line >= 1, "\(name): \(error)") }
        case .success(let text)?:
            guard case .map(let map, _) = BeatMapCodec.decode(Array(text.utf8)) else {
                Issue.record("\(name): the imported map's text is not a valid map:\n\(text)")
                return
            }
            #expect(map.beats.allSatisfy { $0.isFinite }, "\(name): a non-finite beat")
            #expect(try BeatMapCodec.encode(map) == text, "\(name): not a fixed point")
        }
    }

    /// The error importing `text` (plus `selector`) gives, or `nil` when it imports.
    static func error(_ text: String, selector: UInt8) throws -> InterchangeError? {
        if case .failure(let error)? = try importInput(Array(text.utf8) + [selector]) { return error }
        return nil
    }

    @Test("the committed seeds and crash inputs exist")
    func corpusPresent() {
        #expect(Self.seeds.count >= 50)
        #expect(!Self.regressions.isEmpty)
    }

    @Test("every seed and crash input keeps the import target's invariants", arguments: regressions + seeds)
    func invariants(_ url: URL) throws {
        try Self.checkInvariants(Array(try Data(contentsOf: url)), name: url.lastPathComponent)
    }

    @Test("a recorded Beat Saber beat range at 1e20 is refused, not counted forever")
    func farBeatSaberBeats() throws {
        let info = #"""
            {"version":"4.0.0","audio":{"bpm":120,"songDuration":10},
             "customData":{"beatmapKit":{"firstBeat":1e20,"lastBeat":1e20}}}
            """#
        let error = try #require(try Self.error(info, selector: 4))
        #expect(error.line == 2)
        #expect(error.message == "customData.beatmapKit puts the beats at beat numbers 1e+20…1e+20, beyond ±2^40")
    }

    @Test("an osu! timing point at -1e20 ms is refused, not counted forever")
    func farOsuTimingPoint() throws {
        let osu = "osu file format v14\n[TimingPoints]\n-1e20,1,4,1,0,100,1,0\n"
        let error = try #require(try Self.error(osu, selector: 31))  // osu!, grid, 30 s
        #expect(error.line == 3)
        #expect(error.message.hasSuffix("beyond ±2^40"))
    }

    @Test("a Swift array with a 30,000-character element is read in one pass (it took 88 s and 2 GB)")
    func longSwiftElement() throws {
        let source = "let beatMap: [TimeInterval] = [0.5,\n " + String(repeating: "x", count: 30_000) + "]\n"
        let error = try #require(try Self.error(source, selector: 0))
        #expect(error.line == 2)
        #expect(error.message == "'" + String(repeating: "x", count: 60) + "…' in beatMap is not a number literal")
        // Many declarations whose bracketed type is never closed: each is skipped without rescanning.
        let unclosed =
            String(repeating: "let beatMapTempoChanges: [", count: 1_000) + "\nlet beatMap: [TimeInterval] = [1]"
        #expect(try Self.error(unclosed, selector: 28) == nil)  // Swift, grid, 30 s
    }

    @Test("a Beat Saber songFrequency of 0.5 Hz is refused, not imported as the invalid sampleRate 0")
    func fractionalSampleRate() throws {
        let audioData = #"""
            {"version":"4.0.0",
             "songFrequency":0.5,"songSampleCount":5,"bpmData":[{"si":0,"ei":5,"sb":0,"eb":20}]}
            """#
        let error = try #require(try Self.error(audioData, selector: 18))  // Beat Saber, AudioData.dat
        #expect(error.line == 2)
        #expect(error.message == "songFrequency 0.5 is not a sample rate (a whole number of Hz, 1…768000)")
        let whole = audioData.replacingOccurrences(of: "0.5", with: "1")
        #expect(try Self.error(whole, selector: 18) == nil)
    }

    @Test("one far osu! hit object cannot make an import lay millions of beats (found by the fuzzer: a timeout)")
    func farHitObject() throws {
        let osu =
            "osu file format v14\n[TimingPoints]\n500,468.75,4,1,0,100,1,0\n[HitObjects]\n448,192,2470031100,1,0\n"
        let error = try #require(try Self.error(osu, selector: 3))  // osu!, grid
        #expect(error.line == 3)
        #expect(error.message == "the timing point gives over a million beats")
        let stepMania =
            "#OFFSET:0;\n#BPMS:0=120;\n#NOTES:dance-single:a:b:1:0:\n" + "1000\n"
            + String(repeating: ",", count: 300_000) + "1000\n;"
        #expect(try Self.error(stepMania, selector: 1)?.message == "#BPMS gives over a million beats")
    }
}

/// How errors quote the files they are about.
@Suite("Import error messages")
struct ImportMessageTests {
    @Test("quoted file text is cut at 60 characters and control characters are escaped")
    func quotedText() throws {
        let line = "\u{1B}]0;owned\u{07}\u{1B}[31m" + String(repeating: "é", count: 100)
        // An Audacity label track (fields are split at tabs only).
        let error = try #require(try ImportFuzzRegressionTests.error("0.5\t0.5\t1\n" + line + "\t1\t2\n", selector: 5))
        #expect(error.line == 2)
        #expect(
            error.message
                == "'\\u{1B}]0;owned\\u{7}\\u{1B}[31m" + String(repeating: "é", count: 45)
                + "…' is not a time in seconds (expected start<TAB>end<TAB>label)")
        #expect(!error.message.unicodeScalars.contains { $0.value < 0x20 })
    }
}

/// Limits that inputs of fuzzing size cannot reach.
@Suite("Import limits")
struct ImportLimitTests {
    @Test("an import gives no map larger than the map reader accepts")
    func mapFileCapacity() throws {
        let most = JSONParser.maximumValues - FormatSupport.mapOverheadValues
        var map = BeatMap(
            audio: AudioReference(duration: 10), tempo: [TempoSegment(time: 0, bpm: 120, beatsPerBar: 4)],
            beats: [Double](repeating: 0.5, count: most - 4))
        #expect(throws: Never.self) { try FormatSupport.checkFitsInMapFile(map, path: "x.csv") }
        map.beats.append(0.5)
        #expect(
            throws: InterchangeError(
                path: "x.csv",
                "gives 8388541 beats and 1 tempo segment, more than a map file holds (8388608 JSON values: about 8388544 beats)"
            )
        ) {
            try FormatSupport.checkFitsInMapFile(map, path: "x.csv")
        }
        // The grid formats' own limit is lower.
        #expect(FormatSupport.maximumGridBeats < most)
    }
}
