// SPDX-License-Identifier: GPL-3.0-or-later

import ArgumentParser
import BeatAnalysis
import BeatMapKit
import Foundation

/// `beatmap plot [AUDIO] MAP -o plot.svg`.
struct Plot: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Draw a map's beats over its audio as SVG: waveform, onset strength, beats, bars, tempo, m:ss axis.",
        usage: "beatmap plot [<audio>] <map> -o <plot.svg> [<options>]",
        discussion: """
            The audio is read in one streaming pass: a long track is never held in memory. Bar downbeats \
            are drawn red and numbered: bars follow the map's beats per bar from each tempo segment's \
            start, or bars of four from the first beat when the map does not say. --from and --to zoom in \
            (seconds or m:ss). The audio may be left out when the map names it (audio.path).
            """
    )

    @OptionGroup var files: AudioAndMap

    @Option(name: .shortAndLong, help: "The SVG file to write.")
    var output: String

    @Option(help: "Start of the plotted range (seconds or m:ss; default 0).")
    var from: String?

    @Option(help: "End of the plotted range (seconds or m:ss; default: the end of the audio).")
    var to: String?

    @Option(help: "Picture width in pixels (400–20000).")
    var width = 1600

    @Flag(help: "Replace an existing output.")
    var force = false

    func validate() throws {
        guard (400...20_000).contains(width) else { throw ValidationError("--width must be from 400 to 20000 pixels") }
        for (name, value) in [("--from", from), ("--to", to)] {
            if let value, BeatMapSummary.parseClock(value) == nil {
                throw ValidationError("\(name) '\(value)' is not a time: give seconds (90.5) or m:ss (1:30.5)")
            }
        }
        if let start = from.flatMap(BeatMapSummary.parseClock), let end = to.flatMap(BeatMapSummary.parseClock),
            end <= start
        {
            throw ValidationError("--to must be after --from")
        }
    }

    func run() throws {
        var layout = BeatPlot.Layout(width: width)
        layout.zoomControl = "--from/--to"
        try exitOnError(Exit.failure) {
            try BeatPlot.write(
                audio: files.audioURL, map: files.mapURL, to: URL(fileURLWithPath: output),
                shownAs: output, from: from.flatMap(BeatMapSummary.parseClock) ?? 0,
                to: to.flatMap(BeatMapSummary.parseClock), layout: layout, overwrite: force)
        }
        Console.out("wrote \(output)\n")
    }
}
