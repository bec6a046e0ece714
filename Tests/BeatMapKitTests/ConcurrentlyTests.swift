// SPDX-License-Identifier: GPL-3.0-or-later

import BeatMapKit
import Foundation
import Testing

/// The bounded-parallelism helper behind the validate and analyze batches.
@Suite("Concurrently")
struct ConcurrentlyTests {
    /// Counts tasks running at once and the most seen.
    actor Gauge {
        var running = 0
        var most = 0
        func enter() {
            running += 1
            most = max(most, running)
        }
        func leave() { running -= 1 }
    }

    @Test("results come back in index order, with at most `width` bodies running at once")
    func orderAndWidth() async {
        let gauge = Gauge()
        let results = await Concurrently.map(count: 12, width: 3) { index in
            await gauge.enter()
            // Later indices finish first, so completion order differs from index order.
            try? await Task.sleep(nanoseconds: UInt64(12 - index) * 2_000_000)
            await gauge.leave()
            return index * index
        }
        #expect(results == (0..<12).map { $0 * $0 })
        let most = await gauge.most
        #expect(most <= 3)
        #expect(most >= 2)
    }

    @Test("no work gives no results; a width below 1 still runs everything")
    func edges() async {
        let none = await Concurrently.map(count: 0, width: 4) { $0 }
        #expect(none.isEmpty)
        let all = await Concurrently.map(count: 5, width: 0) { $0 + 1 }
        #expect(all == [1, 2, 3, 4, 5])
    }

    @Test("the available cores are at least 1 and at most the active processors")
    func availableCores() {
        let cores = Concurrently.availableCores
        #expect(cores >= 1)
        #expect(cores <= ProcessInfo.processInfo.activeProcessorCount)
    }
}
