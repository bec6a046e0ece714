// SPDX-License-Identifier: GPL-3.0-or-later

import ArgumentParser
import Foundation

/// The tool's entry point: parses, runs the subcommand, and turns every way out into the one exit status
/// table (``Exit``) and the one error style (`beatmap: error: …`), argument-parser's usage errors
/// included (it would print `Error: …`).
enum CommandRunner {
    /// Runs `root` with `arguments` (default: the process's) and exits.
    static func main(_ root: any AsyncParsableCommand.Type, _ arguments: [String]? = nil) async -> Never {
        let status: Int32
        do {
            var command = try await root.asyncParseAsRoot(arguments)
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
            status = Exit.done.rawValue
        } catch let code as ExitCode {
            status = code.rawValue  // the command has said why
        } catch {
            status = report(error, root: root)
        }
        StandardStreams.removeSpooled()
        exit(status)
    }

    /// Writes what `error` means and returns the exit status for it.
    static func report(_ error: any Error, root: any AsyncParsableCommand.Type) -> Int32 {
        let code = root.exitCode(for: error)
        if code == .success {
            // --help, --version, --generate-completion-script: argument-parser prints them.
            StandardStreams.removeSpooled()
            root.exit(withError: error)
        }
        guard code == Exit.usage else {
            // An error a command did not expect to throw: it could not run.
            Console.error(error)
            return Exit.couldNotRun.rawValue
        }
        var text = root.fullMessage(for: error, columns: nil)
        if text.hasPrefix("Error: ") { text.removeFirst("Error: ".count) }
        while text.hasSuffix("\n") { text.removeLast() }
        Console.error(text)
        return Exit.usage.rawValue
    }
}
