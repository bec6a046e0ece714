// SPDX-License-Identifier: GPL-3.0-or-later

import ArgumentParser

/// The one exit status table every subcommand follows (README "Exit status", docs/cli.md).
///
/// | status | meaning |
/// |---|---|
/// | 0 | done |
/// | 1 | findings (validation errors, maps not canonical) or a failed file among several |
/// | 2 | could not run: a missing or unreadable input, bad data in it, an output that may not be replaced, no audio device |
/// | 64 | usage: an unknown flag, a bad value, a missing argument |
enum Exit {
    /// Done.
    static let done = ExitCode(0)
    /// Findings in the input, or a file of several failed (the others are done).
    static let failure = ExitCode(1)
    /// The command could not run: a missing or unreadable input, bad data, an output it may not replace.
    static let couldNotRun = ExitCode(2)
    /// Usage: the command line is wrong (argument-parser's `EX_USAGE`).
    static let usage = ExitCode.validationFailure

    /// The table in one line, for help texts.
    static let summary =
        "Exit status: 0 done, 1 findings or a failed file, 2 could not run (missing or unreadable input, "
        + "bad data), 64 usage."
}

/// Runs `body`; an error it throws is written to standard error and the command exits with `status`.
func exitOnError<T>(_ status: ExitCode, _ body: () throws -> T) throws -> T {
    do {
        return try body()
    } catch {
        Console.error(error)
        throw status
    }
}

/// The async form of ``exitOnError(_:_:)``.
func exitOnError<T>(_ status: ExitCode, _ body: () async throws -> T) async throws -> T {
    do {
        return try await body()
    } catch {
        Console.error(error)
        throw status
    }
}
