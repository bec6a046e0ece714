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
        subcommands: [Validate.self, Rules.self, Format.self]
    )
}
