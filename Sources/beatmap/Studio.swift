// SPDX-License-Identifier: GPL-3.0-or-later

import ArgumentParser
import BeatAnalysis
import BeatStudio
import Foundation

/// `beatmap studio MAP [AUDIO]`.
struct Studio: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Audition and fix a map in the browser: waveform, beats and bars, clicks, nudge, tap, save.",
        discussion: """
            Serves one page on 127.0.0.1 and prints its address (with the launch token) as the first \
            line. Stop it with Ctrl-C (exit status 0).

            \(Exit.summary) 2 includes an unreadable map or audio and a port that cannot be listened on.
            """
    )

    @Argument(help: "The beat map.")
    var map: String

    @Argument(help: "The audio file (default: the map's audio.path).")
    var audio: String?

    @Option(
        parsing: .unconditional, help: ArgumentHelp("The port on 127.0.0.1 (default: any free one).", valueName: "n"))
    var port: Int?

    @Flag(name: .customLong("no-open"), help: "Do not open a browser; only print the address.")
    var noOpen = false

    func validate() throws {
        guard (0...65535).contains(port ?? 0) else { throw ValidationError("--port must be from 0 to 65535") }
    }

    func run() async throws {
        let open = !noOpen
        do {
            let report = try await StudioServer.serve(
                map: URL(fileURLWithPath: map), audio: audio.map { URL(fileURLWithPath: $0) },
                options: StudioOptions(port: port ?? 0), audioInspector: OnsetAudioInspector()
            ) { url, _ in
                Console.out(url + "\n")
                if open && !BrowserOpener.open(url) { Console.warning("no browser could be started; open the address") }
            }
            Console.out(report.text)
        } catch {
            Console.error(error)
            throw Exit.couldNotRun
        }
    }
}
