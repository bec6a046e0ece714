// SPDX-License-Identifier: GPL-3.0-or-later

import ArgumentParser
import Foundation

/// Writing to the terminal: results to stdout, diagnostics to stderr.
enum Console {
    /// Writes `text` to standard output as is.
    static func out(_ text: String) {
        FileHandle.standardOutput.write(Data(text.utf8))
    }

    /// Writes `beatmap: error: message` to standard error: the one error style of every command (usage
    /// errors included, see ``CommandRunner``).
    static func error(_ message: String) {
        FileHandle.standardError.write(Data("beatmap: error: \(StandardStreams.naming(message))\n".utf8))
    }

    /// Writes `error` as the command line words it (``FlagHints/describe(_:)``) to standard error.
    static func error(_ error: any Error) {
        self.error(FlagHints.describe(error))
    }

    /// Writes `beatmap: note: message` to standard error.
    static func note(_ message: String) {
        FileHandle.standardError.write(Data("beatmap: note: \(message)\n".utf8))
    }

    /// Writes `message` and a newline to standard error: a result line when standard output carries data.
    static func info(_ message: String) {
        FileHandle.standardError.write(Data((StandardStreams.naming(message) + "\n").utf8))
    }

    /// Writes `beatmap: warning: message` to standard error.
    static func warning(_ message: String) {
        FileHandle.standardError.write(Data("beatmap: warning: \(StandardStreams.naming(message))\n".utf8))
    }
}
