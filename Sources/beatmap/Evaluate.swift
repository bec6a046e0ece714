// SPDX-License-Identifier: GPL-3.0-or-later

import ArgumentParser
import BeatMapKit
import Foundation

/// Output formats of `evaluate`.
enum EvaluationFormat: String, ExpressibleByArgument, CaseIterable {
    case text, json
}

/// `beatmap evaluate REFERENCE ESTIMATE`.
struct Evaluate: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Score estimated beats against reference beats with the standard beat-tracking metrics.",
        discussion: """
            REFERENCE and ESTIMATE are beat maps (*.beatmap.json) or plain text with one time in seconds per \
            line (# starts a comment; further fields on a line are ignored). Use - to read one of them from \
            standard input. As in mir_eval, beats before 5 s are ignored, and the scores are F-measure \
            (±70 ms), Cemgil (σ 40 ms), Goto, P-score, CMLc, CMLt, AMLc, AMLt and information gain (41 bins).

            \(Exit.summary) An input that cannot be read or is not a usable beat list is 2.
            """
    )

    @Argument(help: "The reference (ground-truth) beats: a beat map or a text file.")
    var reference: String

    @Argument(help: "The estimated beats to score: a beat map or a text file.")
    var estimate: String

    @Option(help: "Output format: text or json.")
    var format: EvaluationFormat = .text

    @Option(
        name: .customLong("min-beat-time"), parsing: .unconditional,
        help: ArgumentHelp(
            "Ignore beats before this time (seconds or m:ss), as mir_eval does.", valueName: timeValueName))
    var minimumBeatTime = ClockTime(seconds: 5) ?? .zero

    func validate() throws {
        if reference == "-" && estimate == "-" {
            throw ValidationError("only one of REFERENCE and ESTIMATE can be read from standard input")
        }
    }

    func run() throws {
        do {
            let referenceFile = try read(reference)
            let estimateFile = try read(estimate)
            var settings = BeatEvaluationSettings()
            settings.minimumBeatTime = minimumBeatTime.seconds
            let report = try BeatEvaluationReport(reference: referenceFile, estimate: estimateFile, settings: settings)
            for warning in report.warnings { Console.warning(warning) }
            Console.out(format == .json ? report.json : report.text)
        } catch let error as BeatTimesError {
            Console.error(error.localizedDescription)
            throw Exit.couldNotRun
        } catch let error as BeatEvaluationError {
            Console.error(error.localizedDescription)
            throw Exit.couldNotRun
        }
    }

    private func read(_ path: String) throws(BeatTimesError) -> BeatTimesFile {
        guard path == "-" else { return try BeatTimesReader.read(from: URL(fileURLWithPath: path), displayPath: path) }
        let data = FileHandle.standardInput.readDataToEndOfFile()
        return try BeatTimesReader.parse([UInt8](data), path: "<stdin>")
    }
}
