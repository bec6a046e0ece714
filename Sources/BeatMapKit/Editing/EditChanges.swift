// SPDX-License-Identifier: GPL-3.0-or-later

import Foundation

/// Sentences saying what an edit changed: beats, tempo, meter and the first downbeat, before → after.
enum EditChanges {
    /// A short name of `edit`, in the library's words.
    static func name(of edit: BeatMapEdit) -> String {
        switch edit {
        case .nudge(let seconds): return "nudge " + milliseconds(seconds)
        case .metricLevel(let level): return "metric level \(level.label)"
        case .shiftBeats(let fraction):
            return "every beat \(BeatFraction.words(fraction)) \(fraction > 0 ? "later" : "earlier")"
        case .beatsPerBar(let perBar, let choice): return "\(perBar) beats per bar" + segment(choice)
        case .shiftBars(let beats, let choice):
            return "bar lines \(abs(beats)) beat\(abs(beats) == 1 ? "" : "s") \(beats >= 0 ? "later" : "earlier")"
                + segment(choice)
        case .trim(let from, let to): return "trim to \(seconds(from))–\(seconds(to))"
        case .tempo(let bpm, let anchor): return "tempo \(bpmText(bpm)) through \(seconds(anchor))"
        }
    }

    static func segment(_ choice: SegmentChoice) -> String {
        switch choice {
        case .all: return ""
        case .index(let index): return " in \(Describe.segment(index))"
        case .at(let time): return " in the tempo at \(seconds(time))"
        }
    }

    static func seconds(_ value: Double) -> String { String(format: "%.3f s", value) }
    static func milliseconds(_ value: Double) -> String { String(format: "%+.1f ms", value * 1000) }
    static func bpmText(_ value: Double) -> String { FormatSupport.decimal(value, digits: 3) + " BPM" }

    /// What changed from `before` to `after`, headed by the edit's name; empty when nothing did.
    static func describe(_ edit: BeatMapEdit, from before: BeatMap, to after: BeatMap) -> [String] {
        guard before != after else { return [] }
        var lines = [name(of: edit)]
        if before.beats != after.beats {
            if case .nudge(let offset) = edit, before.beats.count == after.beats.count {
                lines.append("beats: all \(before.beats.count) moved by \(milliseconds(offset))")
            } else if case .nudge(let offset) = edit {
                let dropped = before.beats.count - after.beats.count
                lines.append(
                    "beats: \(before.beats.count) moved by \(milliseconds(offset)), \(dropped) of them out of the track and dropped: \(beatSummary(after.beats))"
                )
            } else {
                lines.append("beats: \(beatSummary(before.beats)) → \(beatSummary(after.beats))")
            }
        }
        let tempoBefore = tempoSummary(before.tempo)
        let tempoAfter = tempoSummary(after.tempo)
        if tempoBefore != tempoAfter { lines.append("tempo: \(tempoBefore) → \(tempoAfter)") }
        let meterBefore = meterSummary(before.tempo)
        let meterAfter = meterSummary(after.tempo)
        if meterBefore != meterAfter { lines.append("meter: \(meterBefore) → \(meterAfter)") }
        let downbeatBefore = firstDownbeat(before)
        let downbeatAfter = firstDownbeat(after)
        if downbeatBefore != downbeatAfter {
            lines.append(
                "first downbeat: \(downbeatBefore.map(seconds) ?? "none") → \(downbeatAfter.map(seconds) ?? "none")")
        }
        if before.analysis != after.analysis {
            lines.append("analysis: tempo, score and alternatives now describe the new level")
        }
        return lines
    }

    static func beatSummary(_ beats: [Double]) -> String {
        guard let first = beats.first, let last = beats.last else { return "none" }
        return "\(beats.count) (\(seconds(first))–\(seconds(last)))"
    }

    static func tempoSummary(_ tempo: [TempoSegment]?) -> String {
        guard let tempo, let first = tempo.first else { return "none" }
        if tempo.count == 1 { return "\(bpmText(first.bpm)) from \(seconds(first.time))" }
        let bpms = tempo.map(\.bpm)
        let low = bpms.min() ?? first.bpm
        let high = bpms.max() ?? first.bpm
        return
            "\(tempo.count) segments, \(FormatSupport.decimal(low, digits: 3))–\(bpmText(high)), first from \(seconds(first.time))"
    }

    static func meterSummary(_ tempo: [TempoSegment]?) -> String {
        let meters = (tempo ?? []).enumerated().compactMap { index, segment in
            segment.beatsPerBar.map { (index, $0) }
        }
        guard !meters.isEmpty else { return "none" }
        let distinct = Set(meters.map(\.1))
        if distinct.count == 1, let only = distinct.first {
            return "\(only) beats per bar" + (meters.count > 1 ? " (\(meters.count) segments give it)" : "")
        }
        return meters.map { "\(Describe.segment($0.0)): \($0.1)" }.joined(separator: ", ")
    }

    static func firstDownbeat(_ map: BeatMap) -> Double? {
        BarPositions.positions(of: map).firstIndex { $0 == 1 }.map { map.beats[$0] }
    }
}
