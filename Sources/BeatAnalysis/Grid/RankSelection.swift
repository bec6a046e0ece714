// SPDX-License-Identifier: GPL-3.0-or-later

import HeapModule

/// A value of given rank among many, without a sorted copy of them all: the analysis asks for
/// percentiles of per-hop curves as long as the song (1.2 MB an hour each), and a sorted copy of one
/// was the analysis's peak memory on an hour of audio.
enum RankSelection {
    /// The value at index `min(n − 1, ⌊fraction · n⌋)` of the `n` elements of `values` sorted
    /// ascending — what `values.sorted()[that index]` gives — or `nil` when `values` is empty. It keeps
    /// only the largest `n − index` values, in a min-heap (swift-collections' `Heap`): for the 90th and
    /// 95th percentiles, a tenth and a twentieth of them.
    static func value<C: Collection>(atFraction fraction: Double, of values: C) -> C.Element?
    where C.Element: Comparable {
        let count = values.count
        guard count > 0 else { return nil }
        let index = min(count - 1, Int(Double(count) * fraction))
        let keep = count - index
        var largest = Heap<C.Element>(minimumCapacity: keep)
        for value in values {
            if largest.count < keep {
                largest.insert(value)
            } else if let least = largest.min, value > least {
                _ = largest.replaceMin(with: value)
            }
        }
        return largest.min
    }
}
