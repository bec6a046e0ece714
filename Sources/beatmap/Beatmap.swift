// SPDX-License-Identifier: GPL-3.0-or-later

import ArgumentParser
import BeatMapKit

/// The `beatmap` command: configuration only; the work is in the subcommands.
@main
struct Beatmap: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "beatmap",
        abstract: "Generate, validate and audition beat maps for rhythm games.",
        version: BeatMapKitInfo.version,
        subcommands: [
            Analyze.self, Validate.self, Rules.self, Info.self, Export.self, Import.self, Plot.self, Render.self,
            Preview.self, Edit.self, Studio.self, Evaluate.self, Format.self,
        ]
    )
}
