// SPDX-License-Identifier: GPL-3.0-or-later

import BeatMapKit
import Foundation
import Testing

/// Maps used by the conversion tests, built from a seeded generator so every run sees the same beats.
enum SampleMaps {
    /// A small linear congruential generator: deterministic jitter without Foundation's random sources.
    struct Jitter {
        var state: UInt64
        mutating func next() -> Double {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Double(state >> 11) / Double(1 << 53)
        }
    }

    /// 120 BPM from 0.5 s, 4/4, 60 beats, with its tempo map.
    static var steady: BeatMap {
        let beats = (0..<60).map { 0.5 + Double($0) * 0.5 }
        return BeatMap(
            audio: AudioReference(path: "song.ogg", duration: 31, sampleRate: 44_100),
            tempo: [TempoSegment(time: 0.5, bpm: 120, beatsPerBar: 4)], beats: beats)
    }

    /// 100 BPM then 150 BPM, 3/4 then 4/4, no audio path.
    static var tempoChange: BeatMap {
        var beats = (0..<30).map { 0.25 + Double($0) * 0.6 }
        let start = beats[beats.count - 1] + 0.6
        beats += (0..<40).map { start + Double($0) * 0.4 }
        return BeatMap(
            audio: AudioReference(duration: start + 16.5),
            tempo: [
                TempoSegment(time: 0.25, bpm: 100, beatsPerBar: 3), TempoSegment(time: start, bpm: 150, beatsPerBar: 4),
            ],
            beats: beats)
    }

    /// Beats as a beat tracker gives them: ±8 ms jitter around a slowly rising tempo, no tempo map.
    static var jittered: BeatMap {
        var jitter = Jitter(state: 42)
        var beats: [Double] = []
        var time = 1.234
        for index in 0..<200 {
            beats.append(NumberFormatting.roundedToMicroseconds(time + (jitter.next() - 0.5) * 0.016))
            time += 0.5 - Double(index) * 0.0004
        }
        return BeatMap(audio: AudioReference(path: "take.wav", duration: time + 1), beats: beats)
    }

    /// The steady map with beats 10–12 and 40 missing (a break), first beat at exactly 0.
    static var withGaps: BeatMap {
        let beats = (0..<60).filter { ![10, 11, 12, 40].contains($0) }.map { Double($0) * 0.5 }
        return BeatMap(
            audio: AudioReference(duration: 30.2), tempo: [TempoSegment(time: 0, bpm: 120, beatsPerBar: 4)],
            beats: beats)
    }

    static let all: [(String, BeatMap)] = [("steady", steady), ("tempo change", tempoChange), ("jittered", jittered)]
}

/// A fresh temporary folder.
func makeTemporaryFolder() throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("beatmapkit-interop-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

/// Writes `map` to `format` in `folder` and reads it back.
func roundTrip(_ map: BeatMap, _ format: InterchangeFormat, in folder: URL, options: ImportOptions = ImportOptions())
    throws -> ImportedMap
{
    let files = try format.converter.export(map, options: ExportOptions())
    let target: URL
    if format.writesFolder {
        target = folder.appendingPathComponent("map-\(format.rawValue)")
        try FileManager.default.createDirectory(at: target, withIntermediateDirectories: true)
        for file in files { try file.contents.write(to: target.appendingPathComponent(file.name ?? "x")) }
    } else {
        target = folder.appendingPathComponent("map.\(format.rawValue)")
        try files[0].contents.write(to: target)
    }
    var options = options
    if options.duration == nil { options.duration = map.audio.duration }
    return try format.converter.importMap(from: target, options: options)
}

/// The largest distance between paired beats, or infinity when the counts differ.
func largestDifference(_ a: [Double], _ b: [Double]) -> Double {
    guard a.count == b.count else { return .infinity }
    return zip(a, b).map { abs($0 - $1) }.max() ?? 0
}

@Suite("Export → import round trips")
struct RoundTripTests {
    @Test(
        "every format gives back every beat within 1 ms",
        arguments: InterchangeFormat.allCases)
    func roundTrips(format: InterchangeFormat) throws {
        let folder = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        for (name, map) in SampleMaps.all {
            let back = try roundTrip(map, format, in: folder)
            #expect(back.map.beats.count == map.beats.count, "\(name): beat count")
            let worst = largestDifference(back.map.beats, map.beats)
            #expect(worst <= 0.001, "\(name): a beat moved \(worst * 1000) ms")
        }
    }

    @Test(
        "lists of times are exact to the microsecond",
        arguments: [InterchangeFormat.swift, .csv, .txt, .jams, .audacity, .sonicVisualiser])
    func listFormatsAreExact(format: InterchangeFormat) throws {
        let folder = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let map = SampleMaps.jittered
        let back = try roundTrip(map, format, in: folder)
        #expect(back.map.beats == map.beats)
    }

    @Test(
        "the fitted tempo keeps StepMania beats within the fit tolerance",
        arguments: [InterchangeFormat.sm, .ssc, .beatsaber])
    func tempoFormatsStayWithinTolerance(format: InterchangeFormat) throws {
        let folder = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let back = try roundTrip(SampleMaps.jittered, format, in: folder)
        // 0.25 ms of fit plus at most a sample (Beat Saber) of rounding.
        #expect(largestDifference(back.map.beats, SampleMaps.jittered.beats) <= 0.000_25 + 1.0 / 44_100)
    }

    @Test("with --beats notes, StepMania and osu! keep gaps", arguments: [InterchangeFormat.sm, .ssc, .osu])
    func notesKeepGaps(format: InterchangeFormat) throws {
        let folder = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let map = SampleMaps.withGaps
        let back = try roundTrip(map, format, in: folder, options: ImportOptions(beats: .notes))
        #expect(largestDifference(back.map.beats, map.beats) <= 0.001)
    }

    @Test(
        "grid import fills a gap with the tempo's beats (the documented loss)",
        arguments: [InterchangeFormat.sm, .osu, .beatsaber])
    func gridFillsGaps(format: InterchangeFormat) throws {
        let folder = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let map = SampleMaps.withGaps
        let back = try roundTrip(map, format, in: folder)
        #expect(back.map.beats.count == 60)
        for beat in map.beats { #expect(back.map.beats.contains { abs($0 - beat) <= 0.001 }) }
    }

    @Test("tempo formats bring back the tempo map")
    func tempoComesBack() throws {
        let folder = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        for format in [InterchangeFormat.sm, .osu, .swift] {
            let back = try roundTrip(SampleMaps.tempoChange, format, in: folder)
            let bpms = (back.map.tempo ?? []).map { ($0.bpm * 1000).rounded() / 1000 }
            #expect(bpms == [100, 150], "\(format)")
        }
        let osu = try roundTrip(SampleMaps.tempoChange, .osu, in: folder)
        #expect(osu.map.tempo?.map(\.beatsPerBar) == [3, 4])
    }

    @Test("a one-beat map survives the tempo formats", arguments: [InterchangeFormat.sm, .osu, .beatsaber])
    func singleBeat(format: InterchangeFormat) throws {
        let folder = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let map = BeatMap(audio: AudioReference(duration: 3), tempo: [TempoSegment(time: 1, bpm: 90)], beats: [1.0])
        let back = try roundTrip(map, format, in: folder)
        #expect(back.map.beats == [1.0])
    }
}

@Suite("Tempo fitting")
struct BeatGridFitTests {
    @Test("beats on one tempo give one segment")
    func steadyIsOneSegment() {
        let fit = BeatGridFit(beats: SampleMaps.steady.beats, tempo: nil, tolerance: 0.000_25)
        #expect(fit.knots.count == 2)
        #expect(abs(fit.beatLength(ofSegment: 0) - 0.5) < 1e-12)
        #expect(fit.beatNumbers == Array(0..<60))
    }

    @Test("missing beats skip beat numbers instead of slowing the tempo")
    func gapsSkipNumbers() {
        let map = SampleMaps.withGaps
        let fit = BeatGridFit(beats: map.beats, tempo: nil, tolerance: 0.000_25)
        #expect(fit.beatNumbers == (0..<60).filter { ![10, 11, 12, 40].contains($0) })
        #expect(fit.knots.count == 2)
    }

    @Test("every beat lies within the tolerance of the fitted tempo map")
    func toleranceHolds() {
        let beats = SampleMaps.jittered.beats
        for tolerance in [0.0001, 0.001, 0.005] {
            let fit = BeatGridFit(beats: beats, tempo: nil, tolerance: tolerance)
            for (index, beat) in beats.enumerated() {
                #expect(abs(fit.time(ofBeat: Double(fit.beatNumbers[index])) - beat) <= tolerance + 1e-9)
            }
            // A looser tolerance never needs more segments.
            #expect(fit.knots.count <= beats.count)
        }
        let loose = BeatGridFit(beats: beats, tempo: nil, tolerance: 0.01)
        let tight = BeatGridFit(beats: beats, tempo: nil, tolerance: 0.0001)
        #expect(loose.knots.count < tight.knots.count)
    }
}

@Suite("Format details")
struct FormatDetailTests {
    @Test("the same map always exports the same bytes", arguments: InterchangeFormat.allCases)
    func deterministic(format: InterchangeFormat) throws {
        let first = try format.converter.export(SampleMaps.tempoChange, options: ExportOptions())
        let second = try format.converter.export(SampleMaps.tempoChange, options: ExportOptions())
        #expect(first == second)
    }

    @Test("StepMania export has no #STOPS and one BPM per tempo")
    func stepManiaTags() throws {
        let text = try InterchangeFormat.sm.converter.export(SampleMaps.tempoChange, options: ExportOptions())[0].text
        #expect(text.contains("#OFFSET:-0.25;"))
        #expect(text.contains("#BPMS:0.000=100.0,\n30.000=150.0;"))
        #expect(text.contains("#STOPS:;"))
    }

    @Test("osu! timing points carry offset, beat length and meter")
    func osuTimingPoints() throws {
        let text = try InterchangeFormat.osu.converter.export(SampleMaps.tempoChange, options: ExportOptions())[0].text
        #expect(text.contains("\n250,600,3,1,0,100,1,0\n"))
        #expect(text.contains("\n18250,400,4,1,0,100,1,0\n"))
    }

    @Test("labels give the position in the bar")
    func labels() throws {
        let text = try InterchangeFormat.audacity.converter.export(SampleMaps.tempoChange, options: ExportOptions())[0]
            .text
        let labels = text.split(separator: "\n").prefix(4).map { $0.split(separator: "\t")[2] }
        #expect(labels == ["1", "2", "3", "1"])
    }

    @Test("a tempo-map export refuses beats out of order, naming them")
    func refusesDisorder() {
        let map = BeatMap(audio: AudioReference(duration: 5), beats: [1, 2, 1.5])
        #expect {
            _ = try InterchangeFormat.sm.converter.export(map, options: ExportOptions())
        } throws: { error in
            (error as? InterchangeError)?.message.contains("beats[2]") == true
        }
    }

    @Test("a Swift export refuses names that are not identifiers")
    func refusesBadIdentifiers() {
        var options = ExportOptions()
        options.swiftTypeName = "Game Constants"
        #expect(throws: InterchangeError.self) {
            _ = try InterchangeFormat.swift.converter.export(SampleMaps.steady, options: options)
        }
        options.swiftTypeName = "GameConstants"
        options.swiftPropertyName = "class"
        #expect(throws: InterchangeError.self) {
            _ = try InterchangeFormat.swift.converter.export(SampleMaps.steady, options: options)
        }
    }

    @Test("relative paths between folders")
    func relativePaths() {
        #expect(
            Interchange.relativePath(
                from: URL(fileURLWithPath: "/a/b/maps"), to: URL(fileURLWithPath: "/a/b/audio/x.ogg"))
                == "../audio/x.ogg")
        #expect(
            Interchange.relativePath(from: URL(fileURLWithPath: "/a/b"), to: URL(fileURLWithPath: "/a/b/x.ogg"))
                == "x.ogg")
    }
}

@Suite("Import errors name the file and line")
struct ImportErrorTests {
    func importing(_ text: String, as format: InterchangeFormat, name: String) throws -> InterchangeError? {
        let folder = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent(name)
        try Data(text.utf8).write(to: url)
        do {
            _ = try format.converter.importMap(from: url, options: ImportOptions(duration: 10))
            return nil
        } catch {
            return error
        }
    }

    @Test("a bad #BPMS entry")
    func badBPMS() throws {
        let error = try importing("#TITLE:x;\n#OFFSET:0;\n#BPMS:0.000=abc;\n", as: .sm, name: "bad.sm")
        #expect(error?.line == 3)
        #expect(error?.path?.hasSuffix("bad.sm") == true)
        #expect(error?.message.contains("0.000=abc") == true)
    }

    @Test("StepMania warps are refused")
    func warps() throws {
        let error = try importing("#VERSION:0.83;\n#BPMS:0=120;\n#WARPS:4=2;\n", as: .ssc, name: "warp.ssc")
        #expect(error?.line == 3)
        #expect(error?.message.contains("WARPS") == true)
    }

    @Test("a file that is not an osu! beatmap")
    func notOsu() throws {
        let error = try importing("[General]\nAudioFilename: a.mp3\n", as: .osu, name: "x.osu")
        #expect(error?.line == 1)
    }

    @Test("a malformed timing point")
    func badTimingPoint() throws {
        let error = try importing(
            "osu file format v14\n\n[TimingPoints]\n0,500,4,1,0,100,1,0\nzero,500\n", as: .osu, name: "x.osu")
        #expect(error?.line == 5)
    }

    @Test("absurd tempos are refused instead of hanging or exhausting memory")
    func absurdTempos() throws {
        let osu = try importing(
            "osu file format v14\n[TimingPoints]\n-1e300,0.000000001,4,1,0,100,1,0\n[HitObjects]\n256,192,1000,1,0\n",
            as: .osu, name: "x.osu")
        #expect(osu?.message.contains("over a million beats") == true)
        let sm = try importing("#OFFSET:0;\n#BPMS:0=1e300;\n", as: .sm, name: "x.sm")
        #expect(sm?.message.contains("over a million beats") == true)
    }

    @Test("StepMania stops, delays and a BPM change between beats time the notes as StepMania does")
    func stepManiaTiming() throws {
        let folder = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("t.sm")
        let text =
            "#OFFSET:-0.1;\n#BPMS:0=120,4=60,4.5=240;\n#STOPS:2=0.5;\n#DELAYS:3=0.125;\n"
            + "#NOTES:\n dance-single:a:Beginner:1:0,0,0,0,0:\n1000\n1000\n1000\n1000\n,\n1000\n0000\n1000\n0000\n;\n"
        try Data(text.utf8).write(to: url)
        let map = try StepManiaFormat(dialect: .sm).importMap(
            from: url, options: ImportOptions(duration: 10, beats: .notes)
        ).map
        // Beat 0 at 0.1 s, 0.5 s per beat; the stop at beat 2 comes after its note, the delay at beat 3 before
        // its note; beat 4 → 4.5 at 60 BPM (0.5 s), then 240 BPM (0.25 s per beat) to beat 6.
        let expected = [0.1, 0.6, 1.1, 1.1 + 0.5 + 0.5 + 0.125, 2.225 + 0.5, 2.725 + 0.5 + 1.5 * 0.25]
        #expect(largestDifference(map.beats, expected) < 1e-9)
    }

    @Test("a chart without notes takes its end from --duration, and without one is refused")
    func gridWithoutNotes() throws {
        let folder = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let cases: [(InterchangeFormat, String, String)] = [
            (.sm, "empty.sm", "#OFFSET:0;\n#BPMS:0=120;\n"),
            (.osu, "empty.osu", "osu file format v14\n\n[TimingPoints]\n0,500,4,1,0,100,1,0\n"),
        ]
        for (format, name, text) in cases {
            let url = folder.appendingPathComponent(name)
            try Data(text.utf8).write(to: url)
            let map = try format.converter.importMap(from: url, options: ImportOptions(duration: 4)).map
            #expect(map.beats.first == 0, "\(name)")
            #expect((8...9).contains(map.beats.count), "\(name): \(map.beats.count) beats over 4 s at 120 BPM")
            #expect(map.audio.duration == 4, "\(name)")
            do {
                _ = try format.converter.importMap(from: url, options: ImportOptions())
                Issue.record("\(name) imported without a duration")
            } catch {
                #expect(error.message.contains("to say where the beats end"), "\(name): \(error.message)")
                #expect(error.remedy == .giveDuration, "\(name)")
                #expect(!error.message.contains("--"), "\(name): the library names no flag")
            }
        }
    }

    @Test("a time list line that is not a number")
    func badTime() throws {
        let error = try importing("0.5\n1.0\n1.5s\n", as: .txt, name: "beats.txt")
        #expect(error?.line == 3)
        #expect(error?.message.contains("1.5s") == true)
    }

    @Test("a CSV header line is skipped, a later bad line is not")
    func csvHeader() throws {
        #expect(try importing("time,label\n0.5,1\n1.0,2\n", as: .sonicVisualiser, name: "a.csv") == nil)
        #expect(try importing("0.5,1\nx,2\n", as: .sonicVisualiser, name: "a.csv")?.line == 2)
    }

    @Test("invalid JSON in a JAMS file")
    func badJAMS() throws {
        let error = try importing(
            "{\n  \"annotations\": [\n    {\"namespace\": \"beat\", \"data\": [1,]}\n  ]\n}\n", as: .jams,
            name: "a.jams")
        #expect(error?.line == 3)
    }

    @Test("a JAMS file without beats")
    func jamsWithoutBeats() throws {
        let error = try importing(
            "{\"annotations\": [{\"namespace\": \"chord\", \"data\": []}]}", as: .jams, name: "a.jams")
        #expect(error?.message.contains("beat") == true)
    }

    @Test("a Swift file without the array, or with a bad element")
    func badSwift() throws {
        #expect(
            try importing("enum A { static let x = 1 }\n", as: .swift, name: "A.swift")?.message.contains(
                "[TimeInterval]") == true)
        let error = try importing(
            "enum A {\n  static let beatMap: [TimeInterval] = [\n    0.5,\n    oops,\n  ]\n}\n", as: .swift,
            name: "A.swift")
        #expect(error?.line == 4)
    }

    @Test("a Beat Saber region that runs backwards")
    func backwardsRegion() throws {
        let folder = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try Data(
            #"{"version":"4.0.0","song":{"title":"x"},"audio":{"songFilename":"s.ogg","bpm":120,"audioDataFilename":"AudioData.dat"}}"#
                .utf8
        ).write(to: folder.appendingPathComponent("Info.dat"))
        try Data(
            "{\n\"version\":\"4.0.0\",\n\"songFrequency\":44100,\n\"bpmData\":[\n{\"si\":100,\"ei\":50,\"sb\":0,\"eb\":1}\n]\n}\n"
                .utf8
        ).write(
            to: folder.appendingPathComponent("AudioData.dat"))
        #expect {
            _ = try BeatSaberFormat().importMap(from: folder, options: ImportOptions(duration: 10))
        } throws: { error in
            (error as? InterchangeError)?.line == 5
                && (error as? InterchangeError)?.path?.hasSuffix("AudioData.dat") == true
        }
    }
}
