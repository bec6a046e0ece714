// SPDX-License-Identifier: GPL-3.0-or-later

import Foundation

/// The arithmetic conventions the reference implementation (mir_eval) inherits from NumPy, reproduced so
/// scores agree to the last bit where a threshold could flip.
enum NumPyArithmetic {
    /// The sum NumPy's `add.reduce` computes for a contiguous float64 array: pairwise summation with
    /// eight accumulators in blocks of up to 128 values.
    static func pairwiseSum(_ values: [Double]) -> Double {
        values.withUnsafeBufferPointer { buffer in pairwiseSum(buffer[...]) }
    }

    private static func pairwiseSum(_ values: Slice<UnsafeBufferPointer<Double>>) -> Double {
        let count = values.count
        let start = values.startIndex
        if count < 8 {
            var sum = -0.0
            for value in values { sum += value }
            return sum
        }
        if count <= 128 {
            var r = [Double](values[start..<start + 8])
            var i = 8
            let whole = count - count % 8
            while i < whole {
                for lane in 0..<8 { r[lane] += values[start + i + lane] }
                i += 8
            }
            var sum = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]))
            while i < count {
                sum += values[start + i]
                i += 1
            }
            return sum
        }
        var half = count / 2
        half -= half % 8
        return pairwiseSum(values[start..<start + half]) + pairwiseSum(values[(start + half)...])
    }

    /// The mean as NumPy computes it.
    static func mean(_ values: [Double]) -> Double {
        pairwiseSum(values) / Double(values.count)
    }

    /// The standard deviation with `ddof` delta degrees of freedom, as NumPy computes it.
    static func standardDeviation(_ values: [Double], ddof: Int) -> Double {
        let average = mean(values)
        let squares = values.map { ($0 - average) * ($0 - average) }
        return (pairwiseSum(squares) / Double(max(values.count - ddof, 0))).squareRoot()
    }

    /// The remainder with the sign of the divisor (Python's and NumPy's `%`), built on `fmod` the way
    /// NumPy builds it so the boundary cases round the same.
    static func floorModulo(_ a: Double, _ b: Double) -> Double {
        var remainder = a.truncatingRemainder(dividingBy: b)
        if remainder != 0 {
            if (b < 0) != (remainder < 0) { remainder += b }
        } else {
            remainder = b < 0 ? -0.0 : 0.0
        }
        return remainder
    }

    /// `count + 1` evenly spaced values from `start` to `stop` inclusive, as NumPy's `linspace`
    /// computes them (each is `i · step + start`; the last is exactly `stop`).
    static func linearSpace(from start: Double, to stop: Double, intervals count: Int) -> [Double] {
        let step = (stop - start) / Double(count)
        var values = (0...count).map { Double($0) * step + start }
        values[count] = stop
        return values
    }

    /// The median of `values` (the mean of the two middle values for an even count); NaN when empty.
    static func median(_ values: [Double]) -> Double {
        guard !values.isEmpty else { return .nan }
        let sorted = values.sorted()
        let middle = sorted.count / 2
        if sorted.count % 2 == 1 { return sorted[middle] }
        return (sorted[middle - 1] + sorted[middle]) / 2
    }
}
