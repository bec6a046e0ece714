// SPDX-License-Identifier: GPL-3.0-or-later

import ArgumentParser
import BeatMapKit
import Foundation

/// `beatmap format MAP…`: canonical form to stdout, `--check`, or `--in-place --force`.
struct Format: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Put beat maps into canonical form (stable member order, one beat per line, microsecond times).",
        discussion: """
            By default the canonical text of one MAP is printed to standard output and nothing is written. \
            --check lists the maps that are not canonical and exits 1 if there are any. \
            --in-place --force rewrites the maps that are not canonical (atomically; canonical files are not touched). \
            --output FILE writes one map's canonical text to FILE (replacing an existing FILE only with --force).

            Members this tool does not know are kept. MAPs may be folders (searched for *.beatmap.json).

            Exit status: 0 done, 1 a map is invalid or (with --check) not canonical, 2 could not run.
            """
    )

    @Argument(help: "Map files or folders.")
    var paths: [String]

    @Flag(help: "Do not write; list maps that are not canonical and exit 1 if any.")
    var check = false

    @Flag(name: .customLong("in-place"), help: "Rewrite the maps themselves (needs --force).")
    var inPlace = false

    @Option(name: [.short, .long], help: "Write the canonical text of the one MAP to this file.")
    var output: String?

    @Flag(help: "Allow replacing existing files (--in-place, or an existing --output file).")
    var force = false

    func validate() throws {
        let modes = [check, inPlace, output != nil].filter { $0 }.count
        if modes > 1 { throw ValidationError("--check, --in-place and --output cannot be combined") }
        if inPlace && !force {
            throw ValidationError("--in-place replaces your map files; add --force to confirm")
        }
    }

    /// What the flags ask for.
    var mode: CanonicalFormMode {
        if check { return .check }
        if inPlace { return .rewriteInPlace }
        guard let output else { return .print }
        return .write(to: URL(fileURLWithPath: output), shownAs: output, overwrite: force)
    }

    func run() throws {
        let report = try exitOnError(Exit.couldNotRun) { try BeatMapFormatter.run(mode, paths: paths) }
        Console.out(report.output)
        for failure in report.failures { Console.error(failure) }
        if !report.notCanonical.isEmpty {
            Console.error(
                "\(report.notCanonical.count) of \(report.files) maps are not in canonical form (run `beatmap format --in-place --force`)"
            )
        }
        if report.fails { throw Exit.failure }
    }
}
