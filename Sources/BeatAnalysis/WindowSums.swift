// SPDX-License-Identifier: GPL-3.0-or-later

/// Sums of `values[low..<high]` for windows that move forward through a curve as long as the song, from
/// running sums kept in a ring rather than a whole prefix array (2.5 MB on an hour of hops): the same
/// additions in the same order, so the same sums to the last bit.
struct WindowSums {
    private var ring: [Double]
    private var computed = 0
    private var running = 0.0

    /// Sums for windows of at most `width` values.
    init(width: Int) {
        ring = [Double](repeating: 0, count: max(1, width) + 1)
    }

    /// The sum of `values[low..<high]` (the running sum up to `high` less that up to `low`). `high`
    /// never decreases from call to call, and `high − low` is at most the width.
    mutating func sum(of values: [Float], from low: Int, to high: Int) -> Double {
        let size = ring.count
        while computed < high {
            running += Double(values[computed])
            computed += 1
            ring[computed % size] = running
        }
        return ring[high % size] - ring[low % size]
    }
}
