// SPDX-License-Identifier: GPL-3.0-or-later

import Foundation

/// The beat-tracking metrics, one function each, with the conventions of mir_eval's `beat` module
/// (Davies, Degara & Plumbley, "Evaluation Methods for Musical Audio Beat Tracking Algorithms",
/// C4DM-TR-09-06, 2009), including its edge cases and quirks, so the scores agree with it.
///
/// Every function takes sequences that are already trimmed and checked: finite, in non-decreasing
/// order. ``BeatEvaluator`` does that. Each runs in O((n + m) log(n + m)).
enum BeatMetrics {
    // MARK: F-measure

    /// The F-measure of a maximum one-to-one matching of estimated to reference beats within
    /// ±`window` seconds. An estimate `e` may match a reference `r` when `e − window ≤ r ≤ e + window`
    /// (the comparison mir_eval makes). 0 when either sequence is empty.
    static func fMeasure(reference: [Double], estimate: [Double], window: Double) -> Double {
        guard !reference.isEmpty, !estimate.isEmpty else { return 0 }
        // Each estimate's candidates form an index range of `reference` whose ends only move forward
        // as the estimate grows, so matching each estimate to the first free candidate is maximum.
        var matches = 0
        var next = 0
        for time in estimate {
            let first = SortedSearch.lowerBound(reference, time - window)
            let end = SortedSearch.upperBound(reference, time + window)
            next = max(next, first)
            if next < end {
                matches += 1
                next += 1
            }
        }
        let precision = Double(matches) / Double(estimate.count)
        let recall = Double(matches) / Double(reference.count)
        if precision == 0 && recall == 0 { return 0 }
        return 2 * precision * recall / (precision + recall)
    }

    // MARK: Metric variations

    /// The reference at the metric levels the "any metric level" scores allow: as is, off-beat,
    /// double tempo, half tempo on the odd beats, half tempo on the even beats.
    static func metricVariations(of reference: [Double]) -> [[Double]] {
        guard !reference.isEmpty else { return [[], [], [], [], []] }
        var double: [Double] = []
        double.reserveCapacity(2 * reference.count - 1)
        for index in reference.indices {
            double.append(reference[index])
            if index + 1 < reference.count {
                double.append((reference[index + 1] - reference[index]) * 0.5 + reference[index])
            }
        }
        let offBeat = stride(from: 1, to: double.count, by: 2).map { double[$0] }
        let odd = stride(from: 0, to: reference.count, by: 2).map { reference[$0] }
        let even = stride(from: 1, to: reference.count, by: 2).map { reference[$0] }
        return [reference, offBeat, double, odd, even]
    }

    // MARK: Cemgil

    /// Cemgil's accuracy: a Gaussian (σ = `sigma`) of each reference beat's distance to the nearest
    /// estimate, summed and divided by the mean of the two counts; with the best over the metric
    /// variations. Both 0 when either sequence is empty.
    static func cemgil(reference: [Double], estimate: [Double], sigma: Double) -> (score: Double, best: Double) {
        guard !reference.isEmpty, !estimate.isEmpty else { return (0, 0) }
        let denominator = 2 * sigma * sigma
        var accuracies: [Double] = []
        for variation in metricVariations(of: reference) {
            var accuracy = 0.0
            for beat in variation {
                let distance = SortedSearch.nearest(estimate, beat).distance
                accuracy += exp(-(distance * distance) / denominator)
            }
            accuracies.append(accuracy / (0.5 * Double(estimate.count + variation.count)))
        }
        return (accuracies[0], accuracies.max() ?? 0)
    }

    // MARK: Goto

    /// Goto's binary score: 1 when a continuously correct stretch covers more than a quarter of the
    /// reference beats and the errors in it have mean magnitude below `mu` and standard deviation below
    /// `sigma`. mir_eval's handling of the first and last beat and of the stretch's ends is kept.
    static func goto(reference: [Double], estimate: [Double], threshold: Double, mu: Double, sigma: Double) -> Double {
        guard !reference.isEmpty, !estimate.isEmpty else { return 0 }
        let count = reference.count
        var errors = [Double](repeating: 1, count: count)
        if count >= 3 {
            for n in 1..<(count - 1) {
                let previous = 0.5 * (reference[n] - reference[n - 1])
                let next = 0.5 * (reference[n + 1] - reference[n])
                let first = SortedSearch.lowerBound(estimate, reference[n] - previous)
                let end = SortedSearch.lowerBound(estimate, reference[n] + next)
                guard end - first == 1 else { continue }
                let offset = estimate[first] - reference[n]
                errors[n] = offset < 0 ? offset / previous : offset / next
            }
        }
        let incorrect = errors.indices.filter { abs(errors[$0]) > threshold }
        guard let firstIncorrect = incorrect.first, let lastIncorrect = incorrect.last else { return 0 }
        var track: ArraySlice<Double>?
        if incorrect.count < 3 {
            // The slice between the first and last incorrect beat, minus one at the end, with a
            // negative end counting from the back as in Python.
            var end = lastIncorrect - 1
            if end < 0 { end += count }
            let start = firstIncorrect + 1
            track = start < end ? errors[start..<min(end, count)] : []
        } else {
            var longest = 0
            var longestStart = 0
            for index in 1..<incorrect.count where incorrect[index] - incorrect[index - 1] > longest {
                longest = incorrect[index] - incorrect[index - 1]
                longestStart = index - 1
            }
            if Double(longest - 1) > 0.25 * Double(count - 2) {
                track = errors[incorrect[longestStart]...incorrect[longestStart + 1]]
            }
        }
        // A mean of no values or a sample deviation of one value is NaN, which passes no test.
        guard let track, track.count >= 2 else { return 0 }
        let values = Array(track)
        let meanMagnitude = NumPyArithmetic.mean(values.map { abs($0) })
        let deviation = NumPyArithmetic.standardDeviation(values, ddof: 1)
        return meanMagnitude < mu && deviation < sigma ? 1 : 0
    }

    // MARK: P-score

    /// McKinney's P-score: both sequences become impulse trains at 10 ms resolution (shifted so the
    /// earliest beat is at 0, each time rounded up), and the count of impulse pairs closer than
    /// `threshold` × the median reference interval is divided by the larger beat count. 0 when either
    /// sequence has fewer than two beats, or when all reference beats fall in one 10 ms cell (where
    /// mir_eval fails with an error).
    static func pScore(reference: [Double], estimate: [Double], threshold: Double) -> Double {
        guard reference.count > 1, estimate.count > 1 else { return 0 }
        let offset = min(reference[0], estimate[0])
        func cells(_ beats: [Double]) -> [Int] {
            var cells: [Int] = []
            cells.reserveCapacity(beats.count)
            for beat in beats {
                let cell = Int(((beat - offset) * 100).rounded(.up))
                if cells.last != cell { cells.append(cell) }
            }
            return cells
        }
        let referenceCells = cells(reference)
        let estimateCells = cells(estimate)
        guard referenceCells.count > 1 else { return 0 }
        let intervals = (1..<referenceCells.count).map { Double(referenceCells[$0] - referenceCells[$0 - 1]) }
        let window = Int((threshold * NumPyArithmetic.median(intervals)).rounded(.toNearestOrEven))
        // Pairs (r, e) with |r − e| ≤ window: the correlation summed over the lags in the window.
        var pairs = 0
        var low = 0
        var high = 0
        for cell in referenceCells {
            while low < estimateCells.count && estimateCells[low] < cell - window { low += 1 }
            if high < low { high = low }
            while high < estimateCells.count && estimateCells[high] <= cell + window { high += 1 }
            pairs += high - low
        }
        return Double(pairs) / Double(max(reference.count, estimate.count))
    }

    // MARK: Continuity

    /// CMLc, CMLt, AMLc and AMLt.
    struct Continuity: Equatable {
        var cmlc: Double
        var cmlt: Double
        var amlc: Double
        var amlt: Double
    }

    /// The continuity scores: an estimate is correct when its nearest unused reference beat is within
    /// `phaseThreshold` of the reference interval and its own interval within `periodThreshold` of it;
    /// the longest run (c) and the total (t) of correct beats, divided by the larger count, at the
    /// correct metric level (CML) and the best of the variations (AML). 0 when either sequence has fewer
    /// than two beats.
    static func continuity(
        reference: [Double], estimate: [Double], phaseThreshold: Double, periodThreshold: Double
    ) -> Continuity {
        guard reference.count > 1, estimate.count > 1 else { return Continuity(cmlc: 0, cmlt: 0, amlc: 0, amlt: 0) }
        var continuous: [Double] = []
        var total: [Double] = []
        for variation in metricVariations(of: reference) {
            let scores = continuityScores(
                variation, estimate, phaseThreshold: phaseThreshold, periodThreshold: periodThreshold)
            continuous.append(scores.continuous)
            total.append(scores.total)
        }
        return Continuity(
            cmlc: continuous[0], cmlt: total[0], amlc: continuous.max() ?? 0, amlt: total.max() ?? 0)
    }

    private static func continuityScores(
        _ reference: [Double], _ estimate: [Double], phaseThreshold: Double, periodThreshold: Double
    ) -> (continuous: Double, total: Double) {
        let length = max(reference.count, estimate.count)
        guard !reference.isEmpty else { return (0, 0) }
        var used = [Bool](repeating: false, count: reference.count)
        var correct = 0
        var run = 0
        var longestRun = 0
        for m in estimate.indices {
            let (nearest, difference) = SortedSearch.nearest(reference, estimate[m])
            var success = false
            if !used[nearest] {
                let phase: Double
                let period: Double
                if m == 0 || nearest == 0 {
                    // Look forward from the first beat or first annotation; at the last annotation
                    // look back (from a single annotation "back" is itself, as in Python's [-1]).
                    let referenceInterval: Double
                    if nearest + 1 < reference.count {
                        referenceInterval = reference[nearest + 1] - reference[nearest]
                    } else {
                        let previous = nearest > 0 ? nearest - 1 : reference.count - 1
                        referenceInterval = reference[nearest] - reference[previous]
                    }
                    let estimateInterval =
                        m + 1 < estimate.count ? estimate[m + 1] - estimate[m] : estimate[m] - estimate[m - 1]
                    if referenceInterval == 0 {
                        phase = difference == 0 ? 1 : .infinity
                        period = estimateInterval == 0 ? 0 : .infinity
                    } else {
                        phase = abs(difference / referenceInterval)
                        period = abs(1 - estimateInterval / referenceInterval)
                    }
                } else {
                    let referenceInterval = reference[nearest] - reference[nearest - 1]
                    phase = abs(difference / referenceInterval)
                    period = abs(1 - (estimate[m] - estimate[m - 1]) / referenceInterval)
                }
                if phase < phaseThreshold && period < periodThreshold {
                    used[nearest] = true
                    success = true
                }
            }
            if success {
                correct += 1
                run += 1
                longestRun = max(longestRun, run)
            } else {
                run = 0
            }
        }
        return (Double(longestRun) / Double(length), Double(correct) / Double(length))
    }

    // MARK: Information gain

    /// The information gain: each beat's error relative to the local reference interval, wrapped
    /// into a half-open unit range, histogrammed in `bins` bins; the entropy of the flatter of the two
    /// directions (estimate→reference, reference→estimate) as 1 − H / log2(bins). 0 when either
    /// sequence has fewer than two beats.
    static func informationGain(reference: [Double], estimate: [Double], bins: Int) -> Double {
        guard reference.count > 1, estimate.count > 1, bins > 0 else { return 0 }
        let edges = NumPyArithmetic.linearSpace(from: -0.5, to: 0.5, intervals: bins)
        let forward = entropy(reference: reference, estimate: estimate, edges: edges)
        let backward = entropy(reference: estimate, estimate: reference, edges: edges)
        let norm = log2(Double(bins))
        return forward > backward ? (norm - forward) / norm : (norm - backward) / norm
    }

    private static func entropy(reference: [Double], estimate: [Double], edges: [Double]) -> Double {
        let last = reference.count - 1
        let bins = edges.count - 1
        var counts = [Int](repeating: 0, count: bins)
        var total = 0
        for time in estimate {
            let closest = SortedSearch.nearest(reference, time).index
            let error = time - reference[closest]
            let interval: Double
            if closest == last {
                interval = 0.5 * (reference[last] - reference[last - 1])
            } else if error < 0 {
                // Before the first annotation mir_eval's "previous" one is the last (Python's [-1]).
                interval = 0.5 * (reference[closest] - reference[closest == 0 ? last : closest - 1])
            } else {
                interval = 0.5 * (reference[closest + 1] - reference[closest])
            }
            let wrapped = NumPyArithmetic.floorModulo(0.5 * error / interval + 0.5, -1) + 0.5
            // Bins are [edge i, edge i+1), the last one closed; NaN and values outside are not counted.
            guard wrapped >= edges[0], wrapped <= edges[bins] else { continue }
            let bin = min(SortedSearch.upperBound(edges, wrapped) - 1, bins - 1)
            counts[bin] += 1
            total += 1
        }
        let terms = counts.map { count -> Double in
            let probability = Double(count) / Double(total)
            return probability == 0 ? 0 : probability * log2(probability)
        }
        return -NumPyArithmetic.pairwiseSum(terms)
    }
}
