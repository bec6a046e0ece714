// SPDX-License-Identifier: GPL-3.0-or-later

import ArgumentParser
import BeatAudio
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

/// `[AUDIO] MAP`: the beat map, after its audio file when one is given (otherwise the map's
/// `audio.path`, relative to the map). Shared by `render` and `preview`.
struct AudioAndMap: ParsableArguments {
    @Argument(
        help: ArgumentHelp(
            "The audio file, which may be left out when the map names it (audio.path), then the beat map.",
            valueName: "audio-and-map"))
    var files: [String] = []

    func validate() throws {
        guard (1...2).contains(files.count) else {
            throw ValidationError("give the beat map, after its audio file unless the map names it (audio.path)")
        }
        if files.count == 2 && files.allSatisfy(StandardStreams.isDash) {
            throw ValidationError("only one of AUDIO and MAP can be read from standard input")
        }
    }

    /// The map as given.
    var map: String { files.last ?? "" }
    /// The audio as given, if it was.
    var audio: String? { files.count == 2 ? files.first : nil }
    /// The map's URL (a copy of standard input for `-`).
    func mapURL() throws -> URL { try StandardStreams.readableURL(map) }
    /// The audio's URL, if given (a copy of standard input for `-`).
    func audioURL() throws -> URL? { try audio.map { try StandardStreams.readableURL($0) } }
}

/// `beatmap render [AUDIO] MAP -o OUT`.
struct Render: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Mix the audio with a click on every beat of the map into a WAV, FLAC or Ogg file.",
        usage: "beatmap render [<audio>] <map> -o <out.wav|out.flac|out.ogg|-> [<options>]",
        discussion: """
            Each click starts exactly at its beat's frame, round(time × sample rate), at the output's \
            sample rate (the audio's own unless --rate gives another; the music is then resampled with \
            libsoxr). Bars' first beats are accented when the map's tempo gives beatsPerBar. The mix goes \
            through a soft limiter, so it never clips. The render streams: memory stays the same for any \
            length.

            The format follows the output's extension (.wav, .flac, .ogg); -o - writes WAV to standard \
            output. A file is written atomically. AUDIO or MAP may be - (standard input). The audio must be \
            the one the map was made for (its SHA-256, or its duration); --force renders other audio anyway.

            \(Exit.summary)
            """
    )

    @OptionGroup var files: AudioAndMap

    @Option(
        name: .shortAndLong,
        help: ArgumentHelp("The file to write (.wav, .flac or .ogg), or - for standard output.", valueName: "out"))
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

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp("Sample rate of the output (default: the audio's).", valueName: "Hz"))
    var rate: Int?

    @Flag(name: .customLong("float"), help: "Write 32-bit float samples (WAV only; default: 16-bit PCM).")
    var float = false

    @Flag(name: .customLong("no-music"), help: "Render the clicks alone.")
    var noMusic = false

    @Flag(help: "Overwrite the output file if it exists; render audio that is not the map's.")
    var force = false

    @OptionGroup var mix: MixOptions

    func validate() throws {
        try requireOrdered(from: from, to: to)
        try OutputName.require(
            output, option: "-o", suffixes: [".wav", ".flac", ".ogg"], writes: "audio (WAV, FLAC or Ogg)")
        if float && !(StandardStreams.isDash(output) || output.lowercased().hasSuffix(".wav")) {
            throw ValidationError("--float writes 32-bit float WAV: give an -o name ending in .wav (or -)")
        }
        if let rate, !(1...768_000).contains(rate) { throw ValidationError("--rate must be between 1 and 768000 Hz") }
    }

    func run() throws {
        guard #available(macOS 15, iOS 18, tvOS 18, visionOS 2, *) else {
            Console.error("render needs macOS 15 or later")
            throw Exit.couldNotRun
        }
        let toStandardOutput = StandardStreams.isDash(output)
        do {
            let report = try OfflineRenderer.render(
                RenderRequest(
                    audio: try files.audioURL(), map: try files.mapURL(), click: mix.clickURL,
                    destination: toStandardOutput ? .stream(.standardOutput) : .file(URL(fileURLWithPath: output)),
                    shownAs: toStandardOutput ? "standard output" : output, from: from?.seconds, to: to?.seconds,
                    sampleRate: rate, settings: mix.settings(musicMuted: noMusic), format: float ? .float32 : .pcm16,
                    overwrite: force, acceptMismatch: force))
            if !toStandardOutput { Console.out(report.text) }
        } catch {
            Console.error(error)
            throw Exit.couldNotRun
        }
    }
}
