// SPDX-License-Identifier: GPL-3.0-or-later

import ArgumentParser
import BeatAudio
import BeatMapKit
import Foundation

/// `beatmap edit MAP…`.
struct Edit: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract:
            "Change a map's tempo, meter, bar phase, metric level, beat phase, offset or span without analysing again.",
        discussion: """
            The edits given are made in this order: --tempo, --metric, --shift-beats, --beats-per-bar, \
            --shift-bar, --nudge, --trim. --at TIME names the tempo playing then: its segment, or, where the \
            tempo is followed beat by beat (a segment per beat), the whole run of them, as the studio and \
            `info` show it.

            The result is checked with the validator and written only when no rule the map passed finds an \
            error in it; the previous file is kept as MAP.bak (MAP.bak.2, … if that exists) unless \
            --no-backup. Nothing is written when an edit fails. Negative values may follow their flag: \
            --nudge -12. A map read from standard input (-) is printed edited on standard output, what changed on \
            standard error. Several maps are edited alike, each all or nothing: one that cannot take the edits is \
            named and left as it was, and the others are still edited.

            \(Exit.summary) 0 includes nothing to change; 2 includes an edit the map cannot take (1 when other \
            maps were given too).
            """
    )

    @Argument(
        help:
            "The beat maps (*.beatmap.json), each edited alike; - reads one from standard input and prints it edited."
    )
    var maps: [String]

    @Option(
        name: .customLong("beats-per-bar"),
        help:
            "Bars of N beats: from the map's first downbeat over the whole map, or in the tempo --at or --segment names."
    )
    var beatsPerBar: Int?

    @Option(
        help:
            "The tempo segment (numbered from 1, as `info` and `validate` count them) for --beats-per-bar and --shift-bar."
    )
    var segment: Int?

    @Option(
        help: ArgumentHelp(
            "The tempo playing at TIME (seconds or m:ss) for --tempo, --beats-per-bar and --shift-bar; a run of segments each shorter than a bar (a tempo followed beat by beat) is one tempo.",
            valueName: timeValueName))
    var at: ClockTime?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Lay the tempo at --at out again at BPM, with a beat at --at (a tapped tempo and phase).", valueName: "bpm")
    )
    var tempo: Double?

    @Option(
        name: .customLong("shift-bar"), parsing: .unconditional,
        help: "Move the bar lines by N whole beats (later when positive, earlier when negative).")
    var shiftBar: Int?

    @Option(
        help:
            "Switch metric level: ×2 (x2), ½ (1/2), ⅔ (2/3) or 3/2; takes the level's tempo and score from analysis.alternatives when they list it."
    )
    var metric: String?

    @Option(
        name: .customLong("shift-beats"), parsing: .unconditional,
        help: ArgumentHelp(
            "Move every beat by a fraction of its own beat: ½ (1/2, 0.5) puts a map on the off-beats back on the beat; ⅓, ⅔, ¼, ¾ or a decimal; negative: earlier.",
            valueName: "fraction"))
    var shiftBeats: String?

    @Option(parsing: .unconditional, help: "Move every beat and tempo anchor by MS milliseconds (negative: earlier).")
    var nudge: Double?

    @Option(
        parsing: .upToNextOption,
        help: ArgumentHelp("Keep only the beats from FROM to TO (seconds or m:ss).", valueName: "FROM TO"))
    var trim: [ClockTime] = []

    @Flag(name: .customLong("no-backup"), help: "Do not keep the previous file as MAP.bak.")
    var noBackup = false

    func validate() throws {
        if maps.count > 1 && maps.contains(StandardStreams.dash) {
            throw ValidationError("- (standard input) is edited alone: its map is printed, not saved")
        }
        if metric.flatMap(MetricLevel.init(spelling:)) == nil, let metric {
            throw ValidationError("--metric must be ×2, x2, ½, 1/2, ⅔, 2/3 or 3/2, not '\(metric)'")
        }
        if let shiftBeats {
            guard let fraction = BeatFraction.value(spelling: shiftBeats), fraction != 0, abs(fraction) < 1 else {
                throw ValidationError(
                    "--shift-beats must be a fraction of a beat between -1 and 1 and not 0 (½, 1/2, 0.5, ⅓, -1/2, …), not '\(shiftBeats)'"
                )
            }
        }
        if !trim.isEmpty && trim.count != 2 {
            throw ValidationError("--trim takes two times: FROM TO (seconds or m:ss)")
        }
        if segment != nil && beatsPerBar == nil && shiftBar == nil {
            throw ValidationError("--segment applies to --beats-per-bar or --shift-bar")
        }
        if segment != nil && at != nil {
            throw ValidationError("--segment and --at both choose the tempo: give one")
        }
        if at != nil && tempo == nil && beatsPerBar == nil && shiftBar == nil {
            throw ValidationError("--at applies to --tempo, --beats-per-bar or --shift-bar")
        }
        if let tempo {
            guard at != nil else { throw ValidationError("--tempo needs --at TIME: the time of one of its beats") }
            guard tempo.isFinite, tempo > 0 else {
                throw ValidationError("--tempo must be a tempo in BPM above 0, not '\(tempo)'")
            }
        }
        if edits.isEmpty {
            throw ValidationError(
                "no edit given: use --tempo, --beats-per-bar, --shift-bar, --metric, --shift-beats, --nudge or --trim")
        }
    }

    /// The edits the flags ask for, in the order they are made.
    var edits: [BeatMapEdit] {
        let choice = segment.map { SegmentChoice.index($0 - 1) } ?? at.map { SegmentChoice.at($0.seconds) } ?? .all
        var edits: [BeatMapEdit] = []
        if let tempo, let at { edits.append(.tempo(bpm: tempo, anchor: at.seconds)) }
        if let level = metric.flatMap(MetricLevel.init(spelling:)) { edits.append(.metricLevel(level)) }
        if let fraction = shiftBeats.flatMap(BeatFraction.value(spelling:)) {
            edits.append(.shiftBeats(fraction: fraction))
        }
        if let beatsPerBar { edits.append(.beatsPerBar(beatsPerBar, segment: choice)) }
        if let shiftBar { edits.append(.shiftBars(beats: shiftBar, segment: choice)) }
        if let nudge { edits.append(.nudge(seconds: nudge / 1000)) }
        if trim.count == 2 { edits.append(.trim(from: trim[0].seconds, to: trim[1].seconds)) }
        return edits
    }

    /// The flags that make `edit`: the inverse of ``edits``.
    static func arguments(for edit: BeatMapEdit) -> [String] {
        func segment(_ choice: SegmentChoice) -> [String] {
            switch choice {
            case .all: return []
            case .index(let index): return ["--segment", String(index + 1)]
            case .at(let time): return ["--at", NumberFormatting.decimal(time)]
            }
        }
        switch edit {
        case .metricLevel(let level):
            let spelling: String
            switch level {
            case .double: spelling = "x2"
            case .half: spelling = "1/2"
            case .twoThirds: spelling = "2/3"
            case .threeHalves: spelling = "3/2"
            }
            return ["--metric", spelling]
        case .shiftBeats(let fraction):
            return [
                "--shift-beats",
                abs(abs(fraction) - 0.5) < 1e-12 ? (fraction < 0 ? "-1/2" : "1/2") : NumberFormatting.decimal(fraction),
            ]
        case .beatsPerBar(let perBar, let choice):
            return ["--beats-per-bar", String(perBar)] + segment(choice)
        case .shiftBars(let beats, let choice): return ["--shift-bar", String(beats)] + segment(choice)
        case .nudge(let seconds): return ["--nudge", NumberFormatting.decimal(seconds * 1000)]
        case .trim(let from, let to): return ["--trim", NumberFormatting.decimal(from), NumberFormatting.decimal(to)]
        case .tempo(let bpm, let anchor):
            return ["--tempo", NumberFormatting.decimal(bpm), "--at", NumberFormatting.decimal(anchor)]
        }
    }

    func run() throws {
        let validator = Validator(audioInspector: SndfileAudioInspector())
        if maps == [StandardStreams.dash] {
            // A map on standard input has no file to change: the edited map goes to standard output,
            // what changed to standard error.
            let bytes = StandardStreams.readInput()
            let url = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
                .appendingPathComponent(StandardStreams.inputName)
            let (text, report) = try exitOnError(Exit.couldNotRun) {
                try MapEditRun.run(
                    bytes: bytes, mapURL: url, path: StandardStreams.inputName, edits: edits, validator: validator)
            }
            Console.info(report.text.trimmingCharacters(in: .newlines))
            Console.out(text)
            return
        }
        // Each map on its own, all or nothing for that map: one that cannot take the edits is named on
        // standard error and left as it was, and the others are still edited.
        var failed = 0
        for map in maps {
            let request = MapEditRequest(
                mapURL: URL(fileURLWithPath: map), path: map, edits: edits, keepsBackup: !noBackup)
            do {
                Console.out(try MapEditRun.run(request, validator: validator).text)
            } catch {
                Console.error(error)
                failed += 1
            }
        }
        if failed > 0 { throw maps.count == 1 ? Exit.couldNotRun : Exit.failure }
    }
}
