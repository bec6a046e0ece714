// SPDX-License-Identifier: GPL-3.0-or-later

import Foundation

/// A coarse pitch-class profile (chroma) accumulated during the streaming pass from the spectrum the
/// onset detection already computes (no FFT of its own): each bin between ``lowestFrequency`` and
/// ``highestFrequency`` adds its magnitude to the pitch class of its centre frequency, summed over
/// ``hopsPerFrame`` hops. At the analysis frame's 43 Hz bins the profile is blurred by a semitone or
/// so, which is enough to see a chord change; it costs about a hundred additions per hop and
/// 12 floats per 46 ms (4 MB for an hour).
struct ChromaProfile: Sendable {
    /// Hops summed into one frame of the profile.
    static let hopsPerFrame = 4
    /// Lowest bin centre counted, in Hz (below, bins are wider than a semitone several times over).
    static let lowestFrequency = 300.0
    /// Highest bin centre counted, in Hz.
    static let highestFrequency = 5_000.0

    /// 12 values per finished frame.
    private(set) var values: [Float] = []
    private let pitchClass: [Int8]
    private var current = [Float](repeating: 0, count: 12)
    private var hops = 0

    /// A profile for spectra of `frame`'s window.
    init(frame: AnalysisFrame, expectedHops: Int) {
        let bins = frame.bufferSize / 2 + 1
        let binWidth = Double(frame.sampleRate) / Double(frame.bufferSize)
        pitchClass = (0..<bins).map { bin in
            let frequency = Double(bin) * binWidth
            guard frequency >= Self.lowestFrequency, frequency <= Self.highestFrequency else { return -1 }
            let midi = 69 + 12 * log2(frequency / 440)
            let pc = Int(midi.rounded()) % 12
            return Int8((pc + 12) % 12)
        }
        values.reserveCapacity(12 * (expectedHops / Self.hopsPerFrame + 1))
    }

    /// Adds one hop's magnitudes.
    mutating func add(_ spectrum: UnsafeBufferPointer<Float>) {
        let count = min(spectrum.count, pitchClass.count)
        for bin in 0..<count where pitchClass[bin] >= 0 {
            current[Int(pitchClass[bin])] += spectrum[bin]
        }
        hops += 1
        if hops == Self.hopsPerFrame {
            values.append(contentsOf: current)
            for index in 0..<12 { current[index] = 0 }
            hops = 0
        }
    }
}
