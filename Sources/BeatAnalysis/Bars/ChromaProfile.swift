// SPDX-License-Identifier: GPL-3.0-or-later

import Foundation

/// A coarse pitch-class profile (chroma) accumulated during the streaming pass from the spectrum the
/// onset detection already computes (no FFT of its own): each bin between ``lowestFrequency`` and
/// ``highestFrequency`` adds its magnitude to the pitch class of its centre frequency, summed over
/// ``hopsPerFrame`` hops. At the analysis frame's 43 Hz bins the profile is blurred by a semitone or
/// so, which is enough to see a chord change; it costs about a hundred additions per hop and
/// 12 bfloat16 values per 93 ms (0.95 MB for an hour; as floats, 1.9 MB). Frames of 4 hops (46 ms)
/// gave the same meters and bar phases on the whole bar corpus and twice the memory, which put an
/// hour's analysis over its 64 MB.
struct ChromaProfile: Sendable {
    /// Hops summed into one frame of the profile.
    static let hopsPerFrame = 8
    /// Lowest bin centre counted, in Hz (below, bins are wider than a semitone several times over).
    static let lowestFrequency = 300.0
    /// Highest bin centre counted, in Hz.
    static let highestFrequency = 5_000.0

    /// 12 values per finished frame (kept as bfloat16: a chord change is read to a few percent).
    private(set) var values = CompactFloats()
    /// The bins counted: a contiguous range.
    private let bins: Range<Int>
    /// The pitch class of each bin of ``bins``, in order.
    private let pitchClass: [Int]
    private var current = [Float](repeating: 0, count: 12)
    private var hops = 0

    /// A profile for spectra of `frame`'s window.
    init(frame: AnalysisFrame, expectedHops: Int) {
        let binWidth = Double(frame.sampleRate) / Double(frame.bufferSize)
        let last = frame.bufferSize / 2
        let low = min(last, Int((Self.lowestFrequency / binWidth).rounded(.up)))
        let high = min(last, Int((Self.highestFrequency / binWidth).rounded(.down)))
        bins = low..<max(low, high + 1)
        pitchClass = bins.map { bin in
            let midi = 69 + 12 * log2(Double(bin) * binWidth / 440)
            return (Int(midi.rounded()) % 12 + 12) % 12
        }
        values.reserveCapacity(12 * (expectedHops / Self.hopsPerFrame + 1))
    }

    /// How much the harmony changes from the profile `before` to the profile `after` (12 pitch
    /// classes each): 1 − their correlation, 0 where either is flat.
    static func change(from before: [Double], to after: [Double]) -> Double {
        let meanAfter = after.reduce(0, +) / 12
        let meanBefore = before.reduce(0, +) / 12
        var dot = 0.0
        var normAfter = 0.0
        var normBefore = 0.0
        for pc in 0..<12 {
            let x = after[pc] - meanAfter
            let y = before[pc] - meanBefore
            dot += x * y
            normAfter += x * x
            normBefore += y * y
        }
        guard normAfter > 0, normBefore > 0 else { return 0 }
        return 1 - dot / (normAfter * normBefore).squareRoot()
    }

    /// Adds one hop's magnitudes.
    mutating func add(_ spectrum: UnsafeBufferPointer<Float>) {
        guard let base = spectrum.baseAddress, bins.upperBound <= spectrum.count else { return }
        current.withUnsafeMutableBufferPointer { sums in
            pitchClass.withUnsafeBufferPointer { classes in
                var bin = bins.lowerBound
                for pc in classes {
                    sums[pc] += base[bin]
                    bin += 1
                }
            }
        }
        hops += 1
        if hops == Self.hopsPerFrame {
            for value in current { values.append(value) }
            for index in 0..<12 { current[index] = 0 }
            hops = 0
        }
    }
}
