// SPDX-License-Identifier: GPL-3.0-or-later

/// Bounded parallel work for batches of files.
public enum Concurrently {
    /// `body(i)` for every `i` in `0..<count`, with at most `width` running at once; the results come
    /// back in index order, whatever order the work finished in.
    public static func map<Result: Sendable>(
        count: Int, width: Int, _ body: @escaping @Sendable (Int) async -> Result
    ) async -> [Result] {
        await withTaskGroup(of: (Int, Result).self) { group in
            var results = [Result?](repeating: nil, count: count)
            var next = 0
            while next < min(max(1, width), count) {
                let index = next
                group.addTask { (index, await body(index)) }
                next += 1
            }
            for await (index, result) in group {
                results[index] = result
                if next < count {
                    let index = next
                    group.addTask { (index, await body(index)) }
                    next += 1
                }
            }
            // Every index was started and every task returned, so no result is missing.
            return results.compactMap { $0 }
        }
    }
}
