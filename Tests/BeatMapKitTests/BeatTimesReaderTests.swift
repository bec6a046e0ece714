// SPDX-License-Identifier: GPL-3.0-or-later

import Foundation
import Testing

@testable import BeatMapKit

@Suite("Beat-times reader and evaluation report")
struct BeatTimesReaderTests {
    private func parse(_ text: String) throws(BeatTimesError) -> BeatTimesFile {
        try BeatTimesReader.parse(Array(text.utf8), path: "t.txt")
    }

    @Test("text: comments, blank lines, extra fields, commas, CRLF, exponents")
    func text() throws {
        let file = try parse("# header\n\n5.0\n  5.5  # trailing\r\n6,1\n6.5\tdownbeat\n7e0\n+7.25\n")
        #expect(file.format == .text)
        #expect(file.times == [5.0, 5.5, 6.0, 6.5, 7.0, 7.25])
    }

    @Test("an empty or comment-only file is an empty list")
    func empty() throws {
        #expect(try parse("").times.isEmpty)
        #expect(try parse("# nothing\n\n").times.isEmpty)
    }

    @Test("equal times are allowed, decreasing ones are refused with line and column")
    func order() throws {
        #expect(try parse("5\n5\n6\n").times == [5, 5, 6])
        #expect(
            throws: BeatTimesError.notIncreasing(
                path: "t.txt", location: SourceLocation(line: 3, column: 3), time: 4, previous: 6)
        ) {
            try parse("5\n6\n  4\n")
        }
    }

    @Test(
        "words, hexadecimal, inf and nan are not times", arguments: ["abc", "0x10", "inf", "nan", "1e", ".", "-", "5s"])
    func notTimes(token: String) {
        #expect(throws: BeatTimesError.notATime(path: "t.txt", line: 2, text: token)) { try parse("5\n\(token)\n") }
    }

    @Test("times beyond ±30000 s are refused")
    func range() {
        #expect(
            throws: BeatTimesError.outOfRange(path: "t.txt", location: SourceLocation(line: 1, column: 1), time: -30001)
        ) {
            try parse("-30001\n")
        }
    }

    @Test("non-UTF-8 text is refused with its line")
    func binary() {
        #expect(throws: BeatTimesError.notText(path: "t.txt", line: 2)) {
            try BeatTimesReader.parse(Array("5\n".utf8) + [0xFF, 0xFE, 0x0A], path: "t.txt")
        }
    }

    @Test("a beat map gives its beats; its errors point into the file")
    func map() throws {
        let map = BeatMap(audio: AudioReference(duration: 10), beats: [5, 5.5, 6])
        let text = try BeatMapCodec.encode(map)
        let file = try BeatTimesReader.parse(Array(("\u{FEFF}\n" + text).utf8), path: "m.beatmap.json")
        #expect(file.format == .beatMap)
        #expect(file.times == [5, 5.5, 6])

        let unordered = "{\"version\": 1, \"audio\": {\"duration\": 9},\n\"beats\": [6,\n 5]}"
        #expect(
            throws: BeatTimesError.notIncreasing(
                path: "m", location: SourceLocation(line: 3, column: 2), time: 5, previous: 6)
        ) {
            try BeatTimesReader.parse(Array(unordered.utf8), path: "m")
        }
        do {
            _ = try BeatTimesReader.parse(Array("{\"version\": 2}".utf8), path: "m")
            Issue.record("a version-2 map was accepted")
        } catch {
            #expect(error.localizedDescription.hasPrefix("m:1:"))
            #expect(!error.isUnreadable)
        }
    }

    @Test("reading a missing file is an unreadable error naming the path as given")
    func missing() {
        do {
            _ = try BeatTimesReader.read(from: URL(fileURLWithPath: "/nonexistent/beats.txt"), displayPath: "beats.txt")
            Issue.record("no error")
        } catch {
            #expect(error.isUnreadable)
            #expect(error.localizedDescription == "beats.txt: cannot read: No such file or directory")
        }
    }

    @Test("the JSON line has the nine keys in order; zero and NaN are printed as JSON can read them")
    func json() throws {
        let reference = BeatTimesFile(path: "r", format: .text, times: (0..<20).map { 5 + Double($0) * 0.5 })
        let estimate = BeatTimesFile(path: "e", format: .text, times: reference.times.map { $0 + 0.25 })
        let report = try BeatEvaluationReport(reference: reference, estimate: estimate)
        let expected =
            "{\"fMeasure\":0.0,\"cemgil\":\(report.scores.cemgil),\"goto\":0.0,\"pScore\":0.0,\"cmlc\":0.0,\"cmlt\":0.0,"
            + "\"amlc\":\(report.scores.amlc),\"amlt\":\(report.scores.amlt),\"informationGain\":\(report.scores.informationGain)}\n"
        #expect(report.json == expected)
        #expect(BeatEvaluationReport.number(.nan) == "null")
        #expect(BeatEvaluationReport.number(-0.0) == "0.0")
        #expect(report.warnings.isEmpty)
    }

    @Test("warnings name the file whose sequence is too short after trimming")
    func warnings() throws {
        let reference = BeatTimesFile(path: "r.txt", format: .text, times: [1, 2, 6])
        let estimate = BeatTimesFile(path: "e.txt", format: .text, times: [1, 2])
        let report = try BeatEvaluationReport(reference: reference, estimate: estimate)
        #expect(
            report.warnings == [
                "r.txt: the reference has one beat at or after 5 s; P-score, continuity and information gain are 0",
                "e.txt: the estimate has no beats at or after 5 s; every score is 0",
            ])
    }
}
