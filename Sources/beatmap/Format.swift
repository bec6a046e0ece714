// SPDX-License-Identifier: GPL-3.0-or-later

import ArgumentParser
import BeatMapKit
import Foundation

/// `beatmap format MAP…`: canonical form to stdout, `--check`, or `--in-place`.
struct Format: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Put beat maps into canonical form (stable member order, one beat per line, microsecond times).",
        discussion: """
            By default the canonical text of one MAP is printed to standard output and nothing is written. \
            --check lists the maps that are not canonical and exits 1 if there are any. --in-place rewrites \
            the maps that are not canonical (atomically; canonical files are not touched). --output FILE \
            writes one map's canonical text to FILE (replacing an existing FILE only with --force; - is \
            standard output). A MAP of - is read from standard input.

            Members this tool does not know are kept. MAPs may be folders (searched for *.beatmap.json).

            \(Exit.summary) With --check or --in-place, 1 means a map is invalid or (with --check) not canonical.
            """
    )

    @Argument(help: "Map files or folders (- for standard input).")
    var paths: [String]

    @Flag(help: "Do not write; list maps that are not canonical and exit 1 if any.")
    var check = false

    @Flag(name: .customLong("in-place"), help: "Rewrite the maps themselves.")
    var inPlace = false

    @Option(
        name: [.short, .long], help: "Write the canonical text of the one MAP to this file (- for standard output).")
    var output: String?

    @Flag(help: "Allow replacing an existing --output file.")
    var force = false

    func validate() throws {
        let modes = [check, inPlace, output != nil].filter { $0 }.count
        if modes > 1 { throw ValidationError("--check, --in-place and --output cannot be combined") }
        if inPlace && paths.contains(StandardStreams.dash) {
            throw ValidationError("--in-place cannot rewrite standard input; leave out --in-place to print the map")
        }
        if paths.filter(StandardStreams.isDash).count > 1 {
            throw ValidationError("standard input (-) can be named once")
        }
        try OutputName.require(output, option: "--output", suffixes: [".json"], writes: "a beat map (JSON)")
    }

    /// What the flags ask for.
    var mode: CanonicalFormMode {
        if check { return .check }
        if inPlace { return .rewriteInPlace }
        guard let output, !StandardStreams.isDash(output) else { return .print }
        return .write(to: URL(fileURLWithPath: output), shownAs: output, overwrite: force)
    }

    func run() throws {
        let report = try exitOnError(Exit.couldNotRun) {
            try BeatMapFormatter.run(mode, paths: paths, standardInput: StandardStreams.readInput)
        }
        Console.out(report.output)
        for failure in report.failures { Console.error(failure) }
        if !report.notCanonical.isEmpty {
            Console.error(
                "\(report.notCanonical.count) of \(report.files) maps are not in canonical form (run `beatmap format --in-place`)"
            )
        }
        guard report.fails else { return }
        // One map to print or write: a map that cannot be read means the command could not run.
        let oneMap = !check && !inPlace
        throw oneMap && !report.failures.isEmpty ? Exit.couldNotRun : Exit.failure
    }
}
