// SPDX-License-Identifier: GPL-3.0-or-later

import ArgumentParser
import BeatMapKit

/// The `beatmap` command: configuration only; the work is in the subcommands.
@main
struct Beatmap: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "beatmap",
        abstract: "Generate, validate and audition beat maps for rhythm games.",
        discussion: """
            Conventions of every command: - as a file name reads standard input or, after -o, writes standard \
            output; output formats follow the file's extension, and a name the command cannot write is \
            refused before any work. Times are seconds (90.5) or m:ss (1:30.5). Messages count beats from 1 \
            (beat 21 is beats[20]); JSON output keeps the 0-based index. Errors read `beatmap: error: …`.

            \(Exit.summary)

            Shell completion: beatmap --generate-completion-script bash|zsh|fish; \
            tools/install-shell-support.sh installs them with the man page.
            """,
        version: BeatMapKitInfo.version,
        subcommands: [
            Analyze.self, Validate.self, Rules.self, Info.self, Export.self, Import.self, Plot.self, Render.self,
            Preview.self, Edit.self, Studio.self, Evaluate.self, Format.self, BarFeaturesCommand.self,
        ]
    )

    /// Runs the tool through ``CommandRunner``: one error style and the exit status table of ``Exit``.
    static func main() async { await CommandRunner.main(Self.self) }
}
