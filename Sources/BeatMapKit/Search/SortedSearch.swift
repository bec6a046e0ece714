// SPDX-License-Identifier: GPL-3.0-or-later

import Foundation

/// Binary search over sorted collections: the package's one lower-bound search.
public enum SortedSearch {
    /// The first index of `elements` whose element is not `belongs` (`elements.endIndex` when every
    /// one is), where `elements` holds first all the elements that `belongs`, then none: for a sorted
    /// collection and `belongs = { $0 < x }`, the lower bound of `x`. O(log n) calls of `belongs`.
    public static func partitioningIndex<Elements: RandomAccessCollection>(
        in elements: Elements, where belongs: (Elements.Element) -> Bool
    ) -> Elements.Index {
        var low = elements.startIndex
        var count = elements.count
        while count > 0 {
            let half = count / 2
            let middle = elements.index(low, offsetBy: half)
            if belongs(elements[middle]) {
                low = elements.index(after: middle)
                count -= half + 1
            } else {
                count = half
            }
        }
        return low
    }

    /// The first index whose value is `>= x` (`values.count` when there is none); `values` sorted
    /// (non-decreasing) and NaN-free.
    public static func lowerBound(_ values: [Double], _ x: Double) -> Int {
        partitioningIndex(in: values) { $0 < x }
    }

    /// The first index whose value is `> x` (`values.count` when there is none); `values` sorted
    /// (non-decreasing) and NaN-free.
    public static func upperBound(_ values: [Double], _ x: Double) -> Int {
        partitioningIndex(in: values) { $0 <= x }
    }

    /// The index of the last element of `elements` whose key is `<= x`, or the first index when there
    /// is none (a time before the first breakpoint belongs to the first); `elements` sorted by `key`.
    /// `elements` must not be empty.
    public static func lastIndex<Elements: RandomAccessCollection>(
        in elements: Elements, atOrBefore x: Double, key: (Elements.Element) -> Double
    ) -> Elements.Index where Elements.Index == Int {
        max(elements.startIndex, partitioningIndex(in: elements) { key($0) <= x } - 1)
    }

    /// The index of the value nearest to `x` and `|x − value|`, ties going to the lowest index (as an
    /// arg-min over `|x − values|` does). `values` must not be empty.
    public static func nearest(_ values: [Double], _ x: Double) -> (index: Int, distance: Double) {
        let above = lowerBound(values, x)
        var best = -1
        var bestDistance = Double.infinity
        if above < values.count {
            best = above
            bestDistance = abs(x - values[above])
        }
        if above > 0 {
            var index = above - 1
            let distance = abs(x - values[index])
            if best < 0 || distance <= bestDistance {
                // Equal values (or values too close to tell apart at x's magnitude) before it tie.
                while index > 0 && abs(x - values[index - 1]) == distance { index -= 1 }
                best = index
                bestDistance = distance
            }
        }
        return (max(best, 0), bestDistance)
    }
}
