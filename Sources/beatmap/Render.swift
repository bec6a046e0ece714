// SPDX-License-Identifier: GPL-3.0-or-later

import ArgumentParser
import BeatMapKit
import BeatPreview
import Foundation

/// The click and gain settings shared by `render` and `preview`.
struct MixOptions: ParsableArguments {
    @Option(
        name: .customLong("click"),
        help: ArgumentHelp("A click sample to use instead of the built-in click.", valueName: "file"))
    var clickFile: String?

    @Option(
        name: .customLong("music-gain"), parsing: .unconditional,
        help: ArgumentHelp("Music level in dB.", valueName: "dB"))
    var musicGain: Double = -3

    @Option(
        name: .customLong("click-gain"), parsing: .unconditional,
        help: ArgumentHelp("Click level in dB.", valueName: "dB"))
    var clickGain: Double = -3

    func validate() throws {
        for (name, value) in [("--music-gain", musicGain), ("--click-gain", clickGain)]
        where !(value.isFinite && value <= 24) {
            throw ValidationError("\(name) must be a number of dB no higher than 24")
        }
    }

    var clickURL: URL? { clickFile.map { URL(fileURLWithPath: $0) } }

    func settings(musicMuted: Bool = false, clicksMuted: Bool = false) -> MixSettings {
        MixSettings(
            musicGain: linearGain(decibels: musicGain), clickGain: linearGain(decibels: clickGain),
            musicMuted: musicMuted,
            clicksMuted: clicksMuted)
    }
}

/// `beatmap render AUDIO MAP -o OUT.wav`.
struct Render: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Mix the audio with a click on every beat of the map into a WAV file.",
        discussion: """
            Each click starts exactly at its beat's frame, round(time × sample rate), at the audio's own \
            sample rate; bars' first beats are accented when the map's tempo gives beatsPerBar. The mix \
            goes through a soft limiter, so it never clips. The file is written atomically.

            \(Exit.summary)
            """
    )

    @Argument(help: "The audio file (- for standard input).")
    var audio: String

    @Argument(help: "The beat map (- for standard input).")
    var map: String

    @Option(name: .shortAndLong, help: ArgumentHelp("The WAV file to write.", valueName: "out.wav"))
    var output: String

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Start of the span to render, in seconds or m:ss (default: the start).", valueName: timeValueName))
    var from: ClockTime?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "End of the span to render, in seconds or m:ss (default: the end).", valueName: timeValueName))
    var to: ClockTime?

    @Flag(name: .customLong("float"), help: "Write 32-bit float samples (default: 16-bit PCM).")
    var float = false

    @Flag(name: .customLong("no-music"), help: "Render the clicks alone.")
    var noMusic = false

    @Flag(help: "Overwrite the output file if it exists.")
    var force = false

    @OptionGroup var mix: MixOptions

    func validate() throws {
        try requireOrdered(from: from, to: to)
        if StandardStreams.isDash(audio) && StandardStreams.isDash(map) {
            throw ValidationError("only one of AUDIO and MAP can be read from standard input")
        }
    }

    func run() throws {
        guard #available(macOS 15, iOS 18, tvOS 18, visionOS 2, *) else {
            Console.error("render needs macOS 15 or later")
            throw Exit.couldNotRun
        }
        do {
            let report = try OfflineRenderer.render(
                audio: StandardStreams.readableURL(audio), map: StandardStreams.readableURL(map), click: mix.clickURL,
                to: URL(fileURLWithPath: output), shownAs: output, from: from.seconds, to: to.seconds,
                settings: mix.settings(musicMuted: noMusic), format: float ? .float32 : .pcm16, overwrite: force)
            Console.out(report.text)
        } catch {
            Console.error(error)
            throw Exit.couldNotRun
        }
    }
}
