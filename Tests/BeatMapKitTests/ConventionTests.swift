// SPDX-License-Identifier: GPL-3.0-or-later

import BeatMapKit
import Foundation
import Testing

/// The library halves of the command line's conventions: one time parser, formats named by files and
/// folders, standard input for maps.
@Suite("Conventions: times, format names, standard input")
struct ConventionTests {
    @Test(
        "times are seconds or m:ss(.fff), never negative",
        arguments: [
            ("90", 90.0), ("90.5", 90.5), ("1:00", 60.0), ("1:30.25", 90.25), ("0:05", 5.0), (" 2:00 ", 120.0),
            ("12:00.500", 720.5),
        ])
    func parsesTimes(text: String, seconds: Double) throws {
        let time = try #require(ClockTime(parsing: text))
        #expect(time.seconds == seconds)
    }

    @Test(
        "malformed or negative times are refused",
        arguments: ["", "-1", "1:60", "1:-5", "-1:00", "a:00", "1:2:3", "nan", "inf", "+1:00"])
    func refusesTimes(text: String) {
        #expect(ClockTime(parsing: text) == nil)
    }

    @Test("a time prints as m:ss(.fff), and the summary's clock is the same function")
    func formatsTimes() throws {
        #expect(ClockTime.formatted(65.25) == "1:05.250")
        #expect(ClockTime.formatted(32) == "0:32")
        #expect(try #require(ClockTime(parsing: "1:05.25")).description == "1:05.250")
        #expect(BeatMapSummary.clock(65.25) == ClockTime.formatted(65.25))
        #expect(BeatMapSummary.parseClock("1:30") == 90)
    }

    @Test(
        "a file name names its format: unique extensions, and extensions that are a format's own name",
        arguments: [
            ("song.sm", "sm"), ("a/b/song.osu", "osu"), ("beats.txt", "txt"), ("beats.CSV", "csv"),
            ("Info.dat", "beatsaber"), ("Game.swift", "swift"), ("x.jams", "jams"),
        ])
    func infersFormats(path: String, format: String) {
        #expect(InterchangeFormat.inferred(fromPath: path)?.rawValue == format)
    }

    @Test("unknown extensions name no format; every format's own extension names it or a sibling")
    func unknownAndRegistry() {
        #expect(InterchangeFormat.inferred(fromPath: "plot.png") == nil)
        #expect(InterchangeFormat.inferred(fromPath: "noextension") == nil)
        for format in InterchangeFormat.allCases where !format.fileExtension.isEmpty {
            #expect(InterchangeFormat.inferred(fromPath: "x." + format.fileExtension) != nil, "\(format)")
            #expect(format.fits(path: "x." + format.fileExtension), "\(format)")
        }
        #expect(InterchangeFormat.audacity.fits(path: "labels.txt"))
        #expect(!InterchangeFormat.txt.fits(path: "c.sm"))
        #expect(InterchangeFormat.txt.fits(path: "beats.dat"))
    }

    @Test("a folder holding Info.dat is a Beat Saber map")
    func folderFormat() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("conv-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(InterchangeFormat.inferred(fromPath: folder.path) == nil)
        try Data("{}".utf8).write(to: folder.appendingPathComponent("Info.dat"))
        #expect(InterchangeFormat.inferred(fromPath: folder.path) == .beatsaber)
    }

    @Test("- among validated paths is the map standard input gives, shown as <stdin>")
    func standardInputMap() async throws {
        let text = "{\"version\": 1, \"audio\": {\"duration\": 4}, \"beats\": [0.5, 1.0, 0.9]}"
        var configuration = ValidationConfiguration()
        configuration.checkAudio = false
        let report = try await Validator(configuration: configuration).validate(paths: ["-"]) { Array(text.utf8) }
        let file = try #require(report.files.first)
        #expect(file.path == "<stdin>")
        #expect(file.findings.contains { $0.ruleID == "non-monotonic" && $0.beatIndex == 2 })
        #expect(file.findings.contains { $0.message.hasPrefix("beat 3 at 0.9 s comes before beat 2") })
    }
}
