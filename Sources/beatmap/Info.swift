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
        discussion: "The verdict uses the same rules and settings as `beatmap validate` (configuration file and flags)."
    )

    @Argument(help: "The beat map (*.beatmap.json).")
    var map: String

    @Flag(help: "Print JSON.")
    var json = false

    @OptionGroup var rules: RuleOptions

    func run() throws {
        do {
            let configuration = try rules.configuration()
            let url = URL(fileURLWithPath: map)
            let parsed = try BeatMapCodec.read(from: url)
            let report = Validator(configuration: configuration, audioInspector: SndfileAudioInspector()).validateFile(
                at: url, path: map)
            let summary = BeatMapSummary(map: parsed, path: map, report: report)
            Console.out(json ? JSONWriter.string(summary.json) + "\n" : summary.text)
        } catch let error as ConfigurationError {
            Console.error(error.localizedDescription)
            throw Exit.couldNotRun
        } catch let error as BeatMapError {
            Console.error(error.localizedDescription)
            throw Exit.failure
        }
    }
}
