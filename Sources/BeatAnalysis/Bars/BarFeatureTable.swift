// SPDX-License-Identifier: GPL-3.0-or-later

public import BeatMapKit
import Foundation

/// The per-beat features the meter estimate reads (``MeterEstimator``), at the beats of an analysed
/// map: what `tools/learned/bars.py` fits the 4/4 bar template to (``BarTemplate``) and checks it
/// with. Not part of a map; `beatmap bar-features` prints it.
public struct BarFeatureTable: Sendable, Equatable {
    /// One feature: its name and its standardised value at each beat.
    public struct Column: Sendable, Equatable {
        /// The feature's name (`kick`, `bass`, `harmony1`, `harmony2`; `onset` where there is no low band).
        public var name: String
        /// The standardised value at each beat of ``BarFeatureTable/beats``.
        public var values: [Double]
    }

    /// The map's beats, in seconds.
    public var beats: [Double]
    /// How the map's beats were fitted (``FitMethod``).
    public var method: FitMethod
    /// The features, in the estimate's order.
    public var columns: [Column]

    /// The features of `analyzed`'s beats.
    public init(_ analyzed: AnalyzedBeatMap) {
        beats = analyzed.fit.beats
        method = analyzed.fit.method
        columns = BarFeatures(beats: beats, analysis: analyzed.analysis).features.map {
            Column(name: $0.name, values: $0.values)
        }
    }

    /// The table as JSON: `beats`, `method` and `features` (name → values), values rounded to microseconds.
    public var json: JSONValue {
        .object(
            JSONObject([
                ("beats", .array(beats.map { .double($0) })),
                ("method", .string(method.rawValue)),
                (
                    "features",
                    .object(JSONObject(columns.map { ($0.name, .array($0.values.map { .double($0) })) }))
                ),
            ]))
    }
}
