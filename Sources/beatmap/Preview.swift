// SPDX-License-Identifier: GPL-3.0-or-later

import ArgumentParser
import BeatMapKit
import BeatPreview
import Foundation

/// `beatmap preview [AUDIO] MAP`.
struct Preview: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Play the audio with a click on every beat, with keys to pause, seek, loop, nudge and save.",
        usage: "beatmap preview [<audio>] <map> [<options>]",
        discussion: """
            Keys: \(TransportKeyDecoder.help).

            With --no-ui (or when not run at a terminal) it plays the span from --from to --to once and exits. \
            The status line counts beats from 1. The device plays at the music's rate when it takes it, \
            otherwise at its own default rate, with the music resampled by libsoxr and the clicks still on \
            exact device frames. The audio must be the one the map was made for (its SHA-256, or its \
            duration); --force plays other audio anyway.

            \(Exit.summary)
            """
    )

    @OptionGroup var files: AudioAndMap

    @Option(
        parsing: .unconditional, help: ArgumentHelp("Start at this time, in seconds or m:ss.", valueName: timeValueName)
    )
    var from: ClockTime?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp("Stop at this time, in seconds or m:ss (with --no-ui).", valueName: timeValueName))
    var to: ClockTime?

    @Flag(name: .customLong("no-ui"), help: "Play once without the terminal interface (for scripts).")
    var noUI = false

    @Option(help: ArgumentHelp("Output device: part of its name (default: the system's).", valueName: "name"))
    var device: String?

    @Option(
        name: .customLong("buffer-frames"), parsing: .unconditional,
        help: ArgumentHelp("Frames per audio callback.", valueName: "n"))
    var bufferFrames = 256

    @Flag(help: "Show PortAudio/ALSA/JACK device messages and playback statistics.")
    var verbose = false

    @Flag(help: "Play audio that is not the one the map was made for.")
    var force = false

    @OptionGroup var mix: MixOptions

    func validate() throws {
        guard (16...8192).contains(bufferFrames) else {
            throw ValidationError("--buffer-frames must be from 16 to 8192")
        }
        try requireOrdered(from: from, to: to)
        if files.files.contains(where: StandardStreams.isDash) {
            throw ValidationError("preview reads its keys from the terminal: give files, not - (standard input)")
        }
    }

    func run() throws {
        let started = PreviewPlayer.now()
        guard #available(macOS 15, iOS 18, tvOS 18, visionOS 2, *) else {
            Console.error("preview needs macOS 15 or later")
            throw Exit.couldNotRun
        }
        let interactive = !noUI && RawTerminal.isInteractive
        if !noUI && !interactive { Console.warning("not a terminal: playing once without keys (as with --no-ui)") }
        do {
            try play(interactive: interactive, started: started)
        } catch {
            Console.error(error)
            throw Exit.couldNotRun
        }
    }

    @available(macOS 15, iOS 18, tvOS 18, visionOS 2, *)
    private func play(interactive: Bool, started: Int) throws(PreviewError) {
        let mapURL = URL(fileURLWithPath: files.map)
        do {
            let material = try PreviewMaterial.load(
                audio: files.audio.map { URL(fileURLWithPath: $0) }, map: mapURL, click: mix.clickURL,
                acceptMismatch: force)
            let hint =
                "To listen without an audio device, render a file: beatmap render \(files.files.joined(separator: " ")) -o preview.wav"
            let player = try PreviewPlayer(
                material: material, settings: mix.settings(),
                options: .init(
                    deviceName: device, framesPerBuffer: bufferFrames, verbose: verbose, startedAt: started,
                    offlineHint: hint, restartAdvice: { FlagHints.hint(.restart(at: $0)).dropFirst(2).description }))
            defer { player.close() }
            if !interactive {
                if let from = from?.seconds, from >= player.duration {
                    throw PreviewError.span(.startPastEnd(start: from, duration: nil))
                }
                player.play(from: from.seconds ?? 0, to: to.seconds, completeAtEnd: true)
                let span = (to.seconds ?? player.duration) - (from.seconds ?? 0)
                if let problem = player.waitUntilFinished(timeout: span + 30) {
                    throw PreviewError.device("\(problem). \(hint)")
                }
                report(player)
                return
            }
            guard let terminal = RawTerminal() else {
                throw PreviewError.device("cannot put the terminal in raw mode; use --no-ui")
            }
            defer { terminal.restore() }
            player.play(from: from.seconds ?? 0)
            var transport = TerminalTransport(player: player, saver: MapSaver(mapURL: mapURL, original: material.map)) {
                Console.out($0)
            }
            transport.run(terminal: terminal)
            terminal.restore()
            if verbose { report(player) }
        }
    }

    @available(macOS 15, iOS 18, tvOS 18, visionOS 2, *)
    private func report(_ player: PreviewPlayer) {
        let stats = player.statistics
        let seconds = Double(stats.framesPlayed) / Double(player.sampleRate)
        var text = String(format: "played %.3f s on \"%@\" at %d Hz", seconds, player.deviceName, player.sampleRate)
        if player.isResampling { text += " (the music resampled from \(player.material.sourceRate) Hz)" }
        if let first = stats.firstSoundLatency { text += String(format: "; first sound after %.0f ms", first * 1000) }
        text += "\n"
        if verbose {
            text += String(
                format: "callbacks %d; render load %.3f %% of real time (longest %.3f ms); PortAudio CPU load %.3f %%; "
                    + "decoder underruns %d; output underflows %d\n",
                stats.callbacks, stats.renderLoad * 100, stats.longestRender * 1000, stats.portAudioCPULoad * 100,
                stats.decoderUnderruns, stats.outputUnderflows)
        }
        Console.out(text)
    }
}
