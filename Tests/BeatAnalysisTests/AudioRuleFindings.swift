// SPDX-License-Identifier: GPL-3.0-or-later

import BeatMapKit
import Foundation

/// One audio rule's findings on a map of `beats` at one tempo against audio facts, as
/// `validate --audio` gives them.
enum AudioRuleFindings {
    /// `ruleID`'s findings on a map of `beats` with one tempo segment of `bpm` from its first beat.
    static func of(_ ruleID: String, beats: [Double], bpm: Double, facts: AudioFacts) throws -> [Finding] {
        let map = BeatMap(
            audio: AudioReference(duration: facts.duration, sampleRate: facts.sampleRate),
            tempo: [TempoSegment(time: beats.first ?? 0, bpm: bpm)], beats: beats)
        let text = try BeatMapCodec.encode(map)
        return Validator().validate(bytes: Array(text.utf8), path: "m.beatmap.json", audio: facts).findings.filter {
            $0.ruleID == ruleID
        }
    }
}
