// SPDX-License-Identifier: GPL-3.0-or-later

import Foundation

/// A second-order low-pass filter at 150 Hz (a Butterworth biquad by the bilinear transform) that
/// measures, hop by hop, the energy of the kick drum and the bass. Broadband onset strength cannot tell
/// a kick from a hi-hat; the low band can, and the kick's place in the bar tells the beat's level and
/// phase (see ``GridFitter/levelChange(_:novelty:lowBand:)``).
struct LowBand: Sendable {
    /// The cut-off frequency in Hz.
    static let cutoff = 150.0

    private let b0: Float
    private let b1: Float
    private let b2: Float
    private let a1: Float
    private let a2: Float
    private var x1: Float = 0
    private var x2: Float = 0
    private var y1: Float = 0
    private var y2: Float = 0

    /// A filter for audio at `sampleRate` Hz.
    init(sampleRate: Double) {
        let omega = 2 * Double.pi * min(Self.cutoff, sampleRate / 4) / sampleRate
        let alpha = sin(omega) / (2 * 0.5.squareRoot())
        let cosine = cos(omega)
        let a0 = 1 + alpha
        b0 = Float((1 - cosine) / 2 / a0)
        b1 = Float((1 - cosine) / a0)
        b2 = b0
        a1 = Float(-2 * cosine / a0)
        a2 = Float((1 - alpha) / a0)
    }

    /// Filters `count` samples and returns the mean square of the filtered signal.
    mutating func meanSquare(_ samples: UnsafePointer<Float>, count: Int) -> Float {
        var energy: Float = 0
        for index in 0..<count {
            let x = samples[index]
            let y = b0 * x + b1 * x1 + b2 * x2 - a1 * y1 - a2 * y2
            x2 = x1
            x1 = x
            y2 = y1
            y1 = y
            energy += y * y
        }
        // Denormals would slow the filter to a crawl in silence.
        if abs(y1) < 1e-20 { y1 = 0 }
        if abs(y2) < 1e-20 { y2 = 0 }
        return count > 0 ? energy / Float(count) : 0
    }

    /// The low band's onset strength: the rise of the log energy from hop to hop (positive part),
    /// on the time axis of `envelope` (hop `i` of `levels` is value `i` of the envelope), as a
    /// ``Novelty``.
    static func novelty(levels: [Float], like envelope: OnsetEnvelope) -> Novelty? {
        guard levels.count >= 3 else { return nil }
        // Energies relative to the loud level (the 95th percentile of the sounding hops), floored 60 dB
        // below it.
        guard let loud = Self.percentile95(ofPositive: levels).map(Double.init), loud > 0 else { return nil }
        let floor = loud * 1e-6
        var previous = log(max(Double(levels[0]), floor) / loud)
        var values = [Float](repeating: 0, count: levels.count)
        for index in 1..<levels.count {
            let current = log(max(Double(levels[index]), floor) / loud)
            values[index] = Float(max(0, current - previous))
            previous = current
        }
        // The energy of hop i rises when an onset falls inside it: centre the rise on the hop.
        return Novelty(
            envelope: OnsetEnvelope(
                values: values, hopDuration: envelope.hopDuration, startTime: envelope.hopDuration * 0.5))
    }

    /// The value at index ⌊0.95·n⌋ of the `n` positive values of `levels` sorted ascending (the last
    /// when that is past the end), or `nil` when none is positive, without a sorted copy of an hour's
    /// levels (``RankSelection``).
    static func percentile95(ofPositive levels: [Float]) -> Float? {
        RankSelection.value(atFraction: 0.95, of: levels.lazy.filter { $0 > 0 })
    }
}
