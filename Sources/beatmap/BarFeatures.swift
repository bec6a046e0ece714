// SPDX-License-Identifier: GPL-3.0-or-later

import ArgumentParser
import BeatAnalysis
import BeatMapKit
import Foundation

/// `beatmap bar-features AUDIO`: a developer's command, left out of the help. It analyses one file as
/// `analyze` does with its default settings and prints the features the meter estimate reads at each
/// beat of the map (``BarFeatureTable``), as JSON, for `tools/learned/bars.py`. No map is written.
struct BarFeaturesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bar-features",
        abstract: "Print the meter estimate's per-beat features of an audio file as JSON (tools/learned/bars.py).",
        shouldDisplay: false
    )

    @Argument(help: "The audio file.")
    var audio: String

    func run() throws {
        let url = URL(fileURLWithPath: audio)
        try exitOnError(Exit.couldNotRun) {
            var options = BeatMapAnalysisOptions()
            options.computeHash = false
            let analyzed = try BeatMapAnalyzer(options: options).analyze(
                url, mapURL: url.deletingPathExtension().appendingPathExtension("beatmap.json"))
            Console.out(JSONWriter.string(BarFeatureTable(analyzed).json) + "\n")
        }
    }
}
