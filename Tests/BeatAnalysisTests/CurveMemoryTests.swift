// SPDX-License-Identifier: GPL-3.0-or-later

import Foundation
import Testing

@testable import BeatAnalysis

/// The curves built over a whole song keep to their window: the novelty's local mean from a ring of
/// running sums, the low band's loud level from a heap of the largest levels. Each gives exactly what
/// the whole-song arrays they replace gave.
@Suite("Curves without whole-song copies")
struct CurveMemoryTests {
    /// Deterministic pseudo-random values in 0..<1, some of them 0.
    static func values(_ count: Int, seed: UInt64) -> [Float] {
        var state = seed
        return (0..<count).map { _ in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let value = Float(state >> 40) / Float(1 << 24)
            return value < 0.1 ? 0 : value
        }
    }

    @Test("the novelty is each value less the mean within 0.1 s, floored at 0, as with a whole prefix array")
    func noveltyMatchesPrefixSums() {
        let values = Self.values(5_000, seed: 7)
        let hop = 0.01
        let novelty = Novelty(envelope: OnsetEnvelope(values: values, hopDuration: hop, startTime: 0))
        let radius = 10
        var prefix = [Double](repeating: 0, count: values.count + 1)
        for index in values.indices { prefix[index + 1] = prefix[index] + Double(values[index]) }
        for index in values.indices {
            let low = max(0, index - radius)
            let high = min(values.count, index + radius + 1)
            let mean = (prefix[high] - prefix[low]) / Double(high - low)
            #expect(novelty.envelope.values[index] == Float(max(0, Double(values[index]) - mean)), "hop \(index)")
        }
    }

    @Test(
        "the loud level is the positive levels' value at ⌊0.95·n⌋ sorted", arguments: [1, 2, 19, 20, 21, 1_000, 4_321])
    func percentileMatchesSort(count: Int) throws {
        let levels = Self.values(count, seed: UInt64(count))
        let positive = levels.filter { $0 > 0 }.sorted()
        let found = LowBand.percentile95(ofPositive: levels)
        if positive.isEmpty {
            #expect(found == nil)
        } else {
            #expect(found == positive[min(positive.count - 1, Int(Double(positive.count) * 0.95))])
        }
    }

    @Test("no positive level, no loud level")
    func silence() {
        #expect(LowBand.percentile95(ofPositive: [0, 0, 0]) == nil)
        #expect(LowBand.percentile95(ofPositive: []) == nil)
    }
}

/// Window sums and percentiles without whole-song copies give what the copies gave.
@Suite("Window sums and ranks without whole-song copies")
struct WindowAndRankTests {
    @Test("window sums from a ring equal a whole prefix array's differences, bit for bit", arguments: [1, 5, 21])
    func windowSumsMatchPrefix(radius: Int) {
        let values = CurveMemoryTests.values(3_000, seed: UInt64(radius))
        var prefix = [Double](repeating: 0, count: values.count + 1)
        for index in values.indices { prefix[index + 1] = prefix[index] + Double(values[index]) }
        var sums = WindowSums(width: 2 * radius + 1)
        for index in values.indices {
            let low = max(0, index - radius)
            let high = min(values.count, index + radius + 1)
            #expect(sums.sum(of: values, from: low, to: high) == prefix[high] - prefix[low], "index \(index)")
        }
    }

    @Test(
        "the value of rank ⌊f·n⌋ equals the sorted copy's, ties and zeros included",
        arguments: [1, 2, 19, 20, 21, 1_000, 4_321])
    func rankMatchesSort(count: Int) throws {
        let values = CurveMemoryTests.values(count, seed: UInt64(count) + 11)
        let sorted = values.sorted()
        for fraction in [0, 0.5, 0.9, 0.95, 1] {
            let expected = sorted[min(count - 1, Int(Double(count) * fraction))]
            #expect(RankSelection.value(atFraction: fraction, of: values) == expected, "fraction \(fraction)")
        }
    }

    @Test("no values, no rank")
    func empty() {
        #expect(RankSelection.value(atFraction: 0.9, of: [Float]()) == nil)
    }
}
