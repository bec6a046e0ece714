// SPDX-License-Identifier: GPL-3.0-or-later

import ArgumentParser
import Foundation

/// Writing to the terminal: results to stdout, diagnostics to stderr.
enum Console {
    /// Writes `text` to standard output as is.
    static func out(_ text: String) {
        FileHandle.standardOutput.write(Data(text.utf8))
    }

    /// Writes `beatmap: error: message` to standard error.
    static func error(_ message: String) {
        FileHandle.standardError.write(Data("beatmap: error: \(message)\n".utf8))
    }

    /// Writes `error` as the command line words it (``FlagHints/describe(_:)``) to standard error.
    static func error(_ error: any Error) {
        self.error(FlagHints.describe(error))
    }

    /// Writes `beatmap: note: message` to standard error.
    static func note(_ message: String) {
        FileHandle.standardError.write(Data("beatmap: note: \(message)\n".utf8))
    }

    /// Writes `beatmap: warning: message` to standard error.
    static func warning(_ message: String) {
        FileHandle.standardError.write(Data("beatmap: warning: \(message)\n".utf8))
    }
}

/// Exit statuses shared by the subcommands.
enum Exit {
    /// Findings or failures in the input.
    static let failure = ExitCode(1)
    /// The command could not run (missing path, unusable configuration).
    static let couldNotRun = ExitCode(2)
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
