// SPDX-License-Identifier: GPL-3.0-or-later

import Foundation

/// An onset-strength curve: one value of an onset detection function per analysis hop, on a time axis
/// that is already compensated for the detection delay (value `i` belongs to time
/// `startTime + i × hopDuration`, the moment the onsets it responds to happened).
///
/// This is what the grid fitter scores candidate grids against, what `beatmap validate --audio`
/// picks onsets from, and what a plot can draw.
public struct OnsetEnvelope: Sendable, Equatable {
    /// Detection-function values, one per hop (non-negative).
    public var values: [Float]
    /// Seconds between two values.
    public var hopDuration: Double
    /// Time in seconds of `values[0]`, after delay compensation (may be negative).
    public var startTime: Double

    /// An envelope of `values` every `hopDuration` seconds starting at `startTime`.
    public init(values: [Float], hopDuration: Double, startTime: Double) {
        self.values = values
        self.hopDuration = hopDuration
        self.startTime = startTime
    }

    /// Number of values.
    public var count: Int { values.count }

    /// Time in seconds of value `index`.
    public func time(ofIndex index: Int) -> Double { startTime + Double(index) * hopDuration }

    /// The (fractional) index of time `t`.
    public func position(of t: Double) -> Double { (t - startTime) / hopDuration }

    /// The value at time `t`, linearly interpolated between hops; 0 outside the envelope.
    public func value(at t: Double) -> Float {
        let position = (t - startTime) / hopDuration
        guard position >= 0 else { return 0 }
        let index = Int(position)
        guard index + 1 < values.count else { return index < values.count ? values[index] : 0 }
        let fraction = Float(position - Double(index))
        return values[index] + (values[index + 1] - values[index]) * fraction
    }

    /// Onset times: see ``peaks(threshold:minimumInterval:)``.
    public func onsets(threshold: Float = 1.5, minimumInterval: Double = 0.05) -> [Double] {
        peaks(threshold: threshold, minimumInterval: minimumInterval).map(\.time)
    }

    /// Onsets: local maxima that stand out from their surroundings (above `threshold` times the mean
    /// of the surrounding 0.2 s, and above 0.3 × the envelope's overall mean), placed between hops by
    /// fitting a parabola through the peak and its neighbours. Of two peaks closer than
    /// `minimumInterval` seconds only the stronger is kept.
    public func peaks(threshold: Float = 1.5, minimumInterval: Double = 0.05) -> [OnsetPeak] {
        guard values.count >= 3 else { return [] }
        let window = max(2, Int((0.1 / hopDuration).rounded()))
        var total = 0.0
        for value in values { total += Double(value) }
        let floor = Float(total / Double(values.count)) * 0.3
        // The window means from running sums in a ring: a whole prefix array was the analysis's peak
        // memory on an hour of audio.
        var sums = WindowSums(width: 2 * window + 1)
        var result: [OnsetPeak] = []
        var lastIndex = -Int.max / 2
        let gap = max(1, Int((minimumInterval / hopDuration).rounded()))
        for index in 1..<(values.count - 1) {
            let value = values[index]
            guard value > values[index - 1], value >= values[index + 1], value > floor else { continue }
            let low = max(0, index - window)
            let high = min(values.count, index + window + 1)
            let mean = Float(sums.sum(of: values, from: low, to: high) / Double(high - low))
            guard value > threshold * mean else { continue }
            let left = Double(values[index - 1])
            let centre = Double(value)
            let right = Double(values[index + 1])
            let curvature = left - 2 * centre + right
            let shift = curvature < 0 ? min(0.5, max(-0.5, 0.5 * (left - right) / curvature)) : 0
            let peak = OnsetPeak(time: time(ofIndex: index) + shift * hopDuration, strength: Double(value))
            if index - lastIndex < gap, !result.isEmpty {
                // Keep the stronger of two peaks that are too close.
                if value > values[lastIndex] {
                    result[result.count - 1] = peak
                    lastIndex = index
                }
                continue
            }
            result.append(peak)
            lastIndex = index
        }
        return result
    }
}

/// An onset found in an ``OnsetEnvelope``.
public struct OnsetPeak: Sendable, Equatable {
    /// Time in seconds (delay-compensated).
    public var time: Double
    /// The envelope's value at the peak.
    public var strength: Double
}
