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

    @Option(name: .customLong("music-gain"), help: ArgumentHelp("Music level in dB (default -3).", valueName: "dB"))
    var musicGain: Double = -3

    @Option(name: .customLong("click-gain"), help: ArgumentHelp("Click level in dB (default -3).", valueName: "dB"))
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
    }

    /// The map as given.
    var map: String { files.last ?? "" }
    /// The audio as given, if it was.
    var audio: String? { files.count == 2 ? files.first : nil }
    /// The map's URL.
    var mapURL: URL { URL(fileURLWithPath: map) }
    /// The audio's URL, if given.
    var audioURL: URL? { audio.map { URL(fileURLWithPath: $0) } }
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
            length. The format follows the output's extension (.wav, .flac, .ogg); -o - writes WAV to \
            standard output. A file is written atomically. The audio must be the one the map was made for \
            (its SHA-256, or its duration); --force renders other audio anyway.
            """
    )

    @OptionGroup var files: AudioAndMap

    @Option(
        name: .shortAndLong,
        help: ArgumentHelp("The file to write (.wav, .flac or .ogg), or - for standard output.", valueName: "out"))
    var output: String

    @Option(help: ArgumentHelp("Start of the span to render, in seconds (default: the start).", valueName: "seconds"))
    var from: Double?

    @Option(help: ArgumentHelp("End of the span to render, in seconds (default: the end).", valueName: "seconds"))
    var to: Double?

    @Option(help: ArgumentHelp("Sample rate of the output (default: the audio's).", valueName: "Hz"))
    var rate: Int?

    @Flag(name: .customLong("float"), help: "Write 32-bit float samples (WAV only; default: 16-bit PCM).")
    var float = false

    @Flag(name: .customLong("no-music"), help: "Render the clicks alone.")
    var noMusic = false

    @Flag(help: "Overwrite the output file if it exists; render audio that is not the map's.")
    var force = false

    @OptionGroup var mix: MixOptions

    func run() throws {
        guard #available(macOS 15, iOS 18, tvOS 18, visionOS 2, *) else {
            Console.error("render needs macOS 15 or later")
            throw Exit.couldNotRun
        }
        let toStandardOutput = output == "-"
        do {
            let report = try OfflineRenderer.render(
                RenderRequest(
                    audio: files.audioURL, map: files.mapURL, click: mix.clickURL,
                    destination: toStandardOutput ? .stream(.standardOutput) : .file(URL(fileURLWithPath: output)),
                    shownAs: toStandardOutput ? "standard output" : output, from: from, to: to, sampleRate: rate,
                    settings: mix.settings(musicMuted: noMusic), format: float ? .float32 : .pcm16, overwrite: force,
                    acceptMismatch: force))
            if !toStandardOutput { Console.out(report.text) }
        } catch {
            Console.error(error)
            switch error {
            case .exists, .span, .unsupportedOutput, .encode(.unsupportedEncoding(_, _)), .noAudio, .audioMismatch:
                throw Exit.couldNotRun
            default: throw Exit.failure
            }
        }
    }
}
