// SPDX-License-Identifier: GPL-3.0-or-later

import Foundation

/// Bounded parallel work for batches of files.
public enum Concurrently {
    /// The cores this process may run on: on Linux the CPUs in its affinity mask (so `taskset` and
    /// container CPU sets count, which `ProcessInfo.activeProcessorCount` ignores there), elsewhere
    /// the active processors. At least 1, at most the active processors (a mask may name CPUs that
    /// are offline).
    public static var availableCores: Int {
        let active = max(1, ProcessInfo.processInfo.activeProcessorCount)
        #if os(Linux)
            // Glibc's sched_getaffinity needs _GNU_SOURCE, which Swift's Glibc module does not set; the
            // kernel prints the same mask in /proc/self/status ("Cpus_allowed:\tff,ffffffff").
            if let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
                let line = status.split(separator: "\n").first(where: { $0.hasPrefix("Cpus_allowed:") })
            {
                let allowed = line.dropFirst("Cpus_allowed:".count).reduce(0) { count, character in
                    count + (character.hexDigitValue?.nonzeroBitCount ?? 0)
                }
                if allowed > 0 { return min(allowed, active) }
            }
        #endif
        return active
    }

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
