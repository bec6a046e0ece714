// SPDX-License-Identifier: GPL-3.0-or-later

import Foundation

/// The evaluation of one estimate file against one reference file, with what `beatmap evaluate`
/// prints for it.
public struct BeatEvaluationReport: Sendable, Equatable {
    /// The reference (ground truth).
    public var reference: BeatTimesFile
    /// The estimate being scored.
    public var estimate: BeatTimesFile
    /// The settings used.
    public var settings: BeatEvaluationSettings
    /// The scores.
    public var scores: BeatScores

    /// Evaluates `estimate` against `reference` with `settings`.
    public init(
        reference: BeatTimesFile, estimate: BeatTimesFile, settings: BeatEvaluationSettings = BeatEvaluationSettings()
    ) throws(BeatEvaluationError) {
        self.reference = reference
        self.estimate = estimate
        self.settings = settings
        self.scores = try BeatEvaluator(settings: settings).evaluate(
            reference: reference.times, estimate: estimate.times)
    }

    /// Number of beats of `file` that are scored (at or after the minimum beat time).
    public func scoredBeatCount(of file: BeatTimesFile) -> Int {
        file.times.reduce(0) { $0 + ($1 >= settings.minimumBeatTime ? 1 : 0) }
    }

    /// Remarks for standard error: a sequence that has too few beats left after trimming for some
    /// metrics (which then score 0, as in mir_eval).
    public var warnings: [String] {
        var warnings: [String] = []
        for (role, file) in [("reference", reference), ("estimate", estimate)] {
            let count = scoredBeatCount(of: file)
            let from = "at or after \(Self.plain(settings.minimumBeatTime)) s"
            if count == 0 {
                warnings.append("\(file.path): the \(role) has no beats \(from); every score is 0")
            } else if count == 1 {
                warnings.append(
                    "\(file.path): the \(role) has one beat \(from); P-score, continuity and information gain are 0")
            }
        }
        return warnings
    }

    /// One line of JSON with the scores, in this order and nothing else:
    /// `{"fMeasure":…,"cemgil":…,"goto":…,"pScore":…,"cmlc":…,"cmlt":…,"amlc":…,"amlt":…,"informationGain":…}`.
    /// Numbers are printed in full (shortest round-trip form); an undefined score is `null`.
    public var json: String {
        "{" + scores.named.map { "\"\($0.name)\":\(Self.number($0.value))" }.joined(separator: ",") + "}\n"
    }

    /// A table for people: the two files, then each score to four decimals.
    public var text: String {
        var out = ""
        for (role, file) in [("reference", reference), ("estimate", estimate)] {
            out += role.padding(toLength: 11, withPad: " ", startingAt: 0)
            out += "\(file.path) (\(file.format.rawValue)): \(file.times.count) beats, "
            out += "\(scoredBeatCount(of: file)) scored (at or after \(Self.plain(settings.minimumBeatTime)) s)\n"
        }
        out += "\n"
        let window = Self.plain(settings.fMeasureWindow * 1000)
        let sigma = Self.plain(settings.cemgilSigma * 1000)
        let rows: [(String, Double, String)] = [
            ("F-measure", scores.fMeasure, "±\(window) ms"),
            ("Cemgil", scores.cemgil, "σ \(sigma) ms; best metric level \(Self.fixed(scores.cemgilBestMetricLevel))"),
            ("Goto", scores.goto, ""),
            ("P-score", scores.pScore, ""),
            ("CMLc", scores.cmlc, "correct metric level, longest continuous run"),
            ("CMLt", scores.cmlt, "correct metric level, total"),
            ("AMLc", scores.amlc, "any metric level, longest continuous run"),
            ("AMLt", scores.amlt, "any metric level, total"),
            ("Information gain", scores.informationGain, "\(settings.informationGainBins) bins, normalised"),
        ]
        for (name, value, note) in rows {
            out += name.padding(toLength: 18, withPad: " ", startingAt: 0) + Self.fixed(value)
            out += note.isEmpty ? "\n" : "   \(note)\n"
        }
        return out
    }

    /// A score in JSON: shortest round-trip decimal, `null` for NaN, no negative zero.
    static func number(_ value: Double) -> String {
        guard value.isFinite else { return "null" }
        return value == 0 ? "0.0" : "\(value)"
    }

    /// A setting for people: `5`, `70`, `0.5` (microsecond precision, no trailing `.0`).
    static func plain(_ value: Double) -> String {
        let text = NumberFormatting.decimal(value)
        return text.hasSuffix(".0") ? String(text.dropLast(2)) : text
    }

    /// A score to four decimals.
    static func fixed(_ value: Double) -> String {
        guard value.isFinite else { return "n/a" }
        return String(format: "%.4f", value == 0 ? 0 : value)
    }
}
