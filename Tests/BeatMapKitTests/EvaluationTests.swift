// SPDX-License-Identifier: GPL-3.0-or-later

import BeatMapKit
import Foundation
import Testing

/// A reference/estimate pair with the scores mir_eval gave it (made by tools/make-eval-fixtures.py).
struct EvaluationFixture: Decodable, CustomTestStringConvertible {
    struct Scores: Decodable {
        var fMeasure, cemgil, cemgilBestMetricLevel, goto, pScore, cmlc, cmlt, amlc, amlt, informationGain: Double
    }
    var name: String
    var description: String
    var reference: [Double]
    var estimate: [Double]
    var mirEval: Scores

    var testDescription: String { name }

    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Fixtures/evaluation")

    static func all() throws -> [EvaluationFixture] {
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path)
            .filter { $0.hasSuffix(".json") }.sorted()
        return try names.map { name in
            try JSONDecoder().decode(
                EvaluationFixture.self, from: Data(contentsOf: folder.appendingPathComponent(name)))
        }
    }

    /// (metric, ours, mir_eval's) for every score.
    func comparisons(_ scores: BeatScores) -> [(String, Double, Double)] {
        [
            ("fMeasure", scores.fMeasure, mirEval.fMeasure), ("cemgil", scores.cemgil, mirEval.cemgil),
            ("cemgilBestMetricLevel", scores.cemgilBestMetricLevel, mirEval.cemgilBestMetricLevel),
            ("goto", scores.goto, mirEval.goto), ("pScore", scores.pScore, mirEval.pScore),
            ("cmlc", scores.cmlc, mirEval.cmlc), ("cmlt", scores.cmlt, mirEval.cmlt),
            ("amlc", scores.amlc, mirEval.amlc),
            ("amlt", scores.amlt, mirEval.amlt), ("informationGain", scores.informationGain, mirEval.informationGain),
        ]
    }
}

@Suite("Beat evaluation against mir_eval")
struct EvaluationTests {
    @Test("the committed fixtures cover the required situations")
    func fixtureCoverage() throws {
        let names = Set(try EvaluationFixture.all().map(\.name))
        for required in [
            "exact", "jitter-10ms", "double-tempo", "half-tempo-odd", "off-beat", "missing-beats", "extra-beats",
            "empty-estimate", "empty-reference", "both-empty", "short-4s",
        ] {
            #expect(names.contains(required), "missing fixture \(required)")
        }
        #expect(names.count >= 30)
    }

    @Test("every metric equals mir_eval's within 0.001", arguments: try EvaluationFixture.all())
    func matchesMirEval(fixture: EvaluationFixture) throws {
        let scores = try BeatEvaluator().evaluate(reference: fixture.reference, estimate: fixture.estimate)
        for (metric, ours, theirs) in fixture.comparisons(scores) {
            #expect(abs(ours - theirs) <= 0.001, "\(fixture.name) \(metric): ours \(ours), mir_eval \(theirs)")
        }
    }

    @Test("scores do not depend on anything but the input")
    func deterministic() throws {
        for fixture in try EvaluationFixture.all() {
            let first = try BeatEvaluator().evaluate(reference: fixture.reference, estimate: fixture.estimate)
            let second = try BeatEvaluator().evaluate(reference: fixture.reference, estimate: fixture.estimate)
            #expect(first == second, "\(fixture.name)")
        }
    }

    @Test("identical sequences score 1 on every metric")
    func perfect() throws {
        let beats = (0..<200).map { 5.0 + Double($0) * 0.47 }
        let scores = try BeatEvaluator().evaluate(reference: beats, estimate: beats)
        for (name, value) in scores.named { #expect(value == 1, "\(name)") }
    }

    @Test("trimming keeps beats at exactly the minimum time and drops the ones before")
    func trimming() {
        #expect(BeatEvaluator.trim([4.999, 5.0, 5.5, .nan], minimumTime: 5) == [5.0, 5.5])
        #expect(BeatEvaluator.trim([-1, 0, 1], minimumTime: 0) == [0, 1])
    }

    @Test("the minimum beat time is a setting: with 0, a short track is scored")
    func trimSetting() throws {
        let beats = (0..<8).map { 0.5 + Double($0) * 0.5 }
        #expect(try BeatEvaluator().evaluate(reference: beats, estimate: beats).fMeasure == 0)
        var settings = BeatEvaluationSettings()
        settings.minimumBeatTime = 0
        #expect(try BeatEvaluator(settings: settings).evaluate(reference: beats, estimate: beats).fMeasure == 1)
    }

    @Test("a decreasing time is refused with the sequence and beat number")
    func decreasing() {
        #expect(throws: BeatEvaluationError.notIncreasing(.estimate, index: 2, time: 6, previous: 7)) {
            try BeatEvaluator().evaluate(reference: [5, 6, 7], estimate: [6, 7, 6])
        }
        let message = BeatEvaluationError.notIncreasing(.estimate, index: 2, time: 6, previous: 7).localizedDescription
        #expect(message.contains("estimate beat 3"))
    }

    @Test("non-finite and out-of-range times are refused")
    func badTimes() {
        #expect(throws: BeatEvaluationError.nonFinite(.reference, index: 1)) {
            try BeatEvaluator().evaluate(reference: [5, .nan, 7], estimate: [6])
        }
        #expect(throws: BeatEvaluationError.outOfRange(.estimate, index: 1, time: 30_001)) {
            try BeatEvaluator().evaluate(reference: [5, 6], estimate: [6, 30_001])
        }
    }

    @Test("equal times are allowed, as in mir_eval")
    func duplicates() throws {
        let scores = try BeatEvaluator().evaluate(reference: [6, 6, 7, 8], estimate: [6, 7, 7, 8])
        #expect(scores.fMeasure == 0.75)
    }

    @Test("unusable settings are refused")
    func settings() {
        var settings = BeatEvaluationSettings()
        settings.informationGainBins = 0
        #expect(throws: BeatEvaluationError.self) {
            try BeatEvaluator(settings: settings).evaluate(reference: [], estimate: [])
        }
        settings = BeatEvaluationSettings()
        settings.fMeasureWindow = -1
        #expect(throws: BeatEvaluationError.self) {
            try BeatEvaluator(settings: settings).evaluate(reference: [], estimate: [])
        }
    }

    @Test("double tempo: half the estimates match, AML forgives the metric level")
    func doubleTempo() throws {
        let reference = (0..<100).map { 5.0 + Double($0) * 0.5 }
        let estimate = (0..<199).map { 5.0 + Double($0) * 0.25 }
        let scores = try BeatEvaluator().evaluate(reference: reference, estimate: estimate)
        // 100 matches: precision 100/199, recall 1.
        let precision = 100.0 / 199.0
        #expect(abs(scores.fMeasure - 2 * precision / (precision + 1)) < 1e-12)
        #expect(scores.cmlt == 0)
        #expect(scores.amlt == 1)
    }
}
