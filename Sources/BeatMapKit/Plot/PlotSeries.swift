// SPDX-License-Identifier: GPL-3.0-or-later

import Foundation

/// What a plot draws from the audio, precomputed: the waveform's extremes and the onset strength per
/// column over a time range. The audio analysis fills it in (`PlotSeriesReader` in BeatAnalysis); the
/// SVG writer (``BeatPlot``) only draws it.
public struct PlotSeries: Sendable, Equatable {
    /// Start of the plotted range in seconds.
    public var from: Double
    /// End of the plotted range in seconds.
    public var to: Double
    /// The whole audio's duration in seconds.
    public var duration: Double
    /// The audio's sample rate in Hz.
    public var sampleRate: Int
    /// Lowest sample (−1…1, channels mixed) in each column.
    public var minima: [Float]
    /// Highest sample in each column (same count as ``minima``).
    public var maxima: [Float]
    /// Onset strength in each column (the detection function's largest value there; ≥ 0, unscaled).
    public var onsetStrength: [Float]
    /// The onset detection method that gave ``onsetStrength``.
    public var onsetMethod: String

    /// A series over `from`…`to`.
    public init(
        from: Double, to: Double, duration: Double, sampleRate: Int, minima: [Float], maxima: [Float],
        onsetStrength: [Float], onsetMethod: String
    ) {
        self.from = from
        self.to = to
        self.duration = duration
        self.sampleRate = sampleRate
        self.minima = minima
        self.maxima = maxima
        self.onsetStrength = onsetStrength
        self.onsetMethod = onsetMethod
    }

    /// Number of columns.
    public var columns: Int { minima.count }
}
