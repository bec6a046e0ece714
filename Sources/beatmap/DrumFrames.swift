// SPDX-License-Identifier: GPL-3.0-or-later

import ArgumentParser
import BeatAnalysis
import BeatMapKit
import Foundation

/// `beatmap drum-frames AUDIO`: a developer's command, left out of the help. It analyses one file as
/// `analyze` does with its default settings and prints the learned drum detector's kick and snare at
/// every frame it reads, with the onset envelope (``DrumActivationTable``), as JSON, for
/// `tools/learned/tracker_drums.py`. No map is written.
struct DrumFramesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "drum-frames",
        abstract: "Print the drum detector's kick and snare per frame of an audio file as JSON.",
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
            Console.out(JSONWriter.string(DrumActivationTable(analyzed).json) + "\n")
        }
    }
}
