// SPDX-License-Identifier: GPL-3.0-or-later

public import BeatMapKit
import Foundation

/// The learned detector's kick and snare at every frame it reads (the first ``DrumBands/span``
/// seconds of an analysed file), with the onset envelope's values at the same hops: what
/// `tools/learned/tracker_drums.py` calibrates the tracker's drum evidence on. Not part of a map;
/// `beatmap drum-frames` prints it.
public struct DrumActivationTable: Sendable, Equatable {
    /// Seconds between frames; frame `i` is centred at `i × frameDuration`.
    public var frameDuration: Double
    /// The detector's kick probability per frame.
    public var kicks: [Float]
    /// The detector's snare probability per frame.
    public var snares: [Float]
    /// The onset envelope's value per hop (its first hop at ``onsetStart`` seconds).
    public var onsets: [Float]
    /// The time of the onset envelope's first hop, in seconds.
    public var onsetStart: Double

    /// The frames of `analyzed`'s audio.
    public init(_ analyzed: AnalyzedBeatMap) {
        var frames = analyzed.analysis.drums
        let computed = frames.computedAll()
        kicks = computed.kicks
        snares = computed.snares
        frameDuration = analyzed.analysis.envelope.hopDuration
        onsets = analyzed.analysis.envelope.values
        onsetStart = analyzed.analysis.envelope.startTime
    }

    /// The table as JSON: `frameDuration`, `kicks`, `snares`, `onsetStart`, `onsets`.
    public var json: JSONValue {
        .object(
            JSONObject([
                ("frameDuration", .double(frameDuration)),
                ("kicks", .array(kicks.map { .double(Double($0)) })),
                ("snares", .array(snares.map { .double(Double($0)) })),
                ("onsetStart", .double(onsetStart)),
                ("onsets", .array(onsets.map { .double(Double($0)) })),
            ]))
    }
}
