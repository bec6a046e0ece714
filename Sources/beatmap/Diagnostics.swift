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
