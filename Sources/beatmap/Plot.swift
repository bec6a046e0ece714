// SPDX-License-Identifier: GPL-3.0-or-later

import ArgumentParser
import BeatAnalysis
import BeatMapKit
import Foundation

/// `beatmap plot [AUDIO] MAP -o plot.svg`.
struct Plot: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Draw a map's beats over its audio as SVG: waveform, onset strength, beats, bars, tempo, m:ss axis.",
        usage: "beatmap plot [<audio>] <map> -o <plot.svg|-> [<options>]",
        discussion: """
            The audio is read in one streaming pass: a long track is never held in memory. Bar downbeats \
            are drawn red and numbered: bars follow the map's beats per bar from each tempo segment's \
            start, or bars of four from the first beat when the map does not say. The tempo lane labels each \
            tempo segment; a run of segments of fewer than four beats each (a map that follows the music \
            has one a beat) is one stretch, drawn as a curve and labelled with its range. --from and --to \
            zoom in. \
            The audio may be left out when the map names it (audio.path).

            The picture is SVG only: an output name must end in .svg (PNG and other formats are refused \
            before any work); -o - writes it to standard output. AUDIO or MAP may be - (standard input).

            \(Exit.summary)
            """
    )

    @OptionGroup var files: AudioAndMap

    @Option(
        name: .shortAndLong, help: ArgumentHelp("The SVG file to write (- for standard output).", valueName: "file.svg")
    )
    var output: String

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp("Start of the plotted range, in seconds or m:ss.", valueName: timeValueName))
    var from = ClockTime.zero

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "End of the plotted range, in seconds or m:ss (default: the end of the audio).", valueName: timeValueName))
    var to: ClockTime?

    @Option(parsing: .unconditional, help: "Picture width in pixels (400–20000).")
    var width = 1600

    @Flag(help: "Replace an existing output.")
    var force = false

    func validate() throws {
        guard (400...20_000).contains(width) else { throw ValidationError("--width must be from 400 to 20000 pixels") }
        try requireOrdered(from: from, to: to)
        try OutputName.require(output, option: "-o", suffixes: [".svg"], writes: "SVG")
    }

    func run() throws {
        var layout = BeatPlot.Layout(width: width)
        layout.zoomControl = "--from/--to"
        try exitOnError(Exit.couldNotRun) {
            let audioURL = try files.audioURL()
            let mapURL = try files.mapURL()
            let title = files.audio.map {
                "\(StandardStreams.displayName(files.map)) over \(StandardStreams.displayName($0))"
            }
            guard !StandardStreams.isDash(output) else {
                Console.out(
                    try BeatPlot.svg(
                        audio: audioURL, map: mapURL, from: from.seconds, to: to.seconds, layout: layout, title: title))
                return
            }
            try BeatPlot.write(
                audio: audioURL, map: mapURL, to: URL(fileURLWithPath: output), shownAs: output, from: from.seconds,
                to: to?.seconds, layout: layout, title: title, overwrite: force)
            Console.out("wrote \(output)\n")
        }
    }
}
