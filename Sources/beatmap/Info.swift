// SPDX-License-Identifier: GPL-3.0-or-later

import ArgumentParser
import BeatAnalysis
import BeatAudio
import BeatMapKit
import Foundation

/// `beatmap info MAP`.
struct Info: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Summarise a beat map: tempo, beats, coverage, intervals and the validator's verdict.",
        discussion: """
            The verdict uses the same rules and settings as `beatmap validate` (configuration file and flags). \
            A MAP of - is read from standard input (a relative audio path in it is taken from the current folder).

            \(Exit.summary) The summary is printed whatever the verdict (exit 0); `beatmap validate` fails on findings.
            """
    )

    @Argument(help: "The beat map (*.beatmap.json; - for standard input).")
    var map: String

    @Flag(help: "Print JSON.")
    var json = false

    @OptionGroup var rules: RuleOptions

    func run() throws {
        do {
            let validator = Validator(configuration: try rules.configuration(), audioInspector: SndfileAudioInspector())
            let summary =
                try StandardStreams.isDash(map)
                ? BeatMapSummary.load(
                    bytes: StandardStreams.readInput(), path: StandardStreams.inputName,
                    mapURL: StandardStreams.inputMapURL, validator: validator)
                : BeatMapSummary.load(fileAt: URL(fileURLWithPath: map), path: map, validator: validator)
            Console.out(json ? JSONWriter.string(summary.json) + "\n" : summary.text)
        } catch let error as ConfigurationError {
            Console.error(error.localizedDescription)
            throw Exit.couldNotRun
        } catch let error as BeatMapError {
            Console.error(error)
            throw Exit.couldNotRun
        }
    }
}
