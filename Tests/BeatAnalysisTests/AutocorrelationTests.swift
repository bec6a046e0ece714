// SPDX-License-Identifier: GPL-3.0-or-later

import Foundation
import TestSynth
import Testing

@testable import BeatAnalysis

/// The tempo estimate's autocorrelation (``Novelty/autocorrelation(_:from:count:maxLag:)``) sums four
/// lags at once; each lag's sum must be the plain loop's to the bit, so that no map moves.
@Suite("Autocorrelation")
struct AutocorrelationTests {
    /// The plain loop: each lag's products summed one at a time, in `Float`, in the values' order.
    static func plain(_ values: [Float], from start: Int, count: Int, maxLag: Int) -> [Double] {
        (0...maxLag).map { lag in
            var sum: Float = 0
            for index in start..<(start + count - lag) { sum += values[index] * values[index + lag] }
            return Double(sum) / Double(count - lag)
        }
    }

    /// Values like an onset envelope's: mostly small, a peak now and then, from a fixed generator.
    static func envelope(_ count: Int) -> [Float] {
        var generator = SeededRandom(seed: 91)
        return (0..<count).map { _ in
            let u = Float(generator.next() % 10_000) / 10_000
            return u > 0.93 ? u * 40 : u * u
        }
    }

    @Test(
        "equals the plain loop bit for bit, at every lag, for lag counts that are and are not a multiple of four",
        arguments: [(0, 3000, 0), (0, 3000, 1), (7, 2000, 690), (5, 1500, 749), (0, 9, 4), (3, 40, 19)])
    func bitForBit(start: Int, count: Int, maxLag: Int) throws {
        let values = Self.envelope(start + count + 5)
        let expected = Self.plain(values, from: start, count: count, maxLag: maxLag)
        let computed = values.withUnsafeBufferPointer {
            Novelty.autocorrelation($0, from: start, count: count, maxLag: maxLag)
        }
        try #require(computed.count == expected.count)
        for lag in 0...maxLag {
            #expect(computed[lag].bitPattern == expected[lag].bitPattern, "lag \(lag)")
        }
    }

    @Test("a range outside the values gives zeros, not a read past them")
    func outside() {
        let values = Self.envelope(100)
        let computed = values.withUnsafeBufferPointer { Novelty.autocorrelation($0, from: 90, count: 20, maxLag: 5) }
        #expect(computed == [Double](repeating: 0, count: 6))
    }
}
