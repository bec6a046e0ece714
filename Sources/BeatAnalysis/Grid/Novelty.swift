// SPDX-License-Identifier: GPL-3.0-or-later

import Foundation

/// The onset envelope prepared for scoring grids: the local mean (±0.1 s) subtracted and negative
/// values dropped, so only what stands out as an onset counts.
struct Novelty {
    let envelope: OnsetEnvelope

    init(envelope source: OnsetEnvelope) {
        let values = source.values
        let count = values.count
        let radius = max(1, Int((0.1 / source.hopDuration).rounded()))
        // The window sums from running sums in a ring: no prefix array as long as the song alive at once.
        var sums = WindowSums(width: 2 * radius + 1)
        var result = [Float](repeating: 0, count: count)
        for index in 0..<count {
            let low = max(0, index - radius)
            let high = min(count, index + radius + 1)
            let mean = sums.sum(of: values, from: low, to: high) / Double(high - low)
            result[index] = Float(max(0, Double(values[index]) - mean))
        }
        envelope = OnsetEnvelope(values: result, hopDuration: source.hopDuration, startTime: source.startTime)
    }

    var hop: Double { envelope.hopDuration }

    func value(at t: Double) -> Double { Double(envelope.value(at: t)) }

    /// Index range of the envelope inside `range`.
    func indices(in range: ClosedRange<Double>) -> Range<Int> {
        let low = max(0, Int(envelope.position(of: range.lowerBound).rounded(.up)))
        let high = min(envelope.count, Int(envelope.position(of: range.upperBound).rounded(.down)) + 1)
        return low..<max(low, high)
    }

    /// Mean value inside `range`.
    func mean(in range: ClosedRange<Double>) -> Double {
        let indices = indices(in: range)
        guard !indices.isEmpty else { return 0 }
        var sum = 0.0
        for index in indices { sum += Double(envelope.values[index]) }
        return sum / Double(indices.count)
    }

    /// How much the novelty in `range` repeats one `period` later: its autocorrelation (mean removed,
    /// over the autocorrelation at lag 0) at the lag within 3 % of `period` where it is highest. 0 for
    /// onsets at random times, near 1 for a pattern that repeats every beat. The 3 % lets a tempo that
    /// drifts a little, and a period between two hops, find its lag.
    func periodicity(period: Double, in range: ClosedRange<Double>) -> Double {
        let indices = indices(in: range)
        guard period > 0, hop > 0 else { return 0 }
        let lowest = max(1, Int((0.97 * period / hop).rounded(.down)))
        let highest = Int((1.03 * period / hop).rounded(.up))
        guard highest < indices.count else { return 0 }
        let values = envelope.values
        let mean = self.mean(in: range)
        var energy = 0.0
        for index in indices {
            let centred = Double(values[index]) - mean
            energy += centred * centred
        }
        guard energy > 0 else { return 0 }
        var best = 0.0
        for lag in lowest...highest {
            var sum = 0.0
            for index in indices.lowerBound..<(indices.upperBound - lag) {
                sum += (Double(values[index]) - mean) * (Double(values[index + lag]) - mean)
            }
            best = max(best, sum / energy)
        }
        return best
    }

    /// How much the onsets between `beats` repeat one beat later, beat by beat: the correlation of
    /// the novelty at each frame with the novelty one tracked interval later (the interval between
    /// the two beats around the frame), over the frames of `range` that lie more than an eighth of
    /// that interval from either beat. A tempo that drifts has no one lag that holds through the
    /// song (``periodicity(period:in:)``), but each tracked interval is its own. The beats' own frames
    /// are left out because a tracker puts its beats on onsets: there, even noise would repeat.
    func periodicity(along beats: [Double], in range: ClosedRange<Double>) -> Double {
        let indices = indices(in: range)
        guard hop > 0, beats.count >= 3, !indices.isEmpty else { return 0 }
        let values = envelope.values
        let mean = self.mean(in: range)
        func index(_ time: Double) -> Int { Int(((time - envelope.startTime) / hop).rounded()) }
        var sum = 0.0
        var energy = 0.0
        for beat in 0..<(beats.count - 2) {
            let (start, end) = (index(beats[beat]), index(beats[beat + 1]))
            let lag = end - start
            let guardHops = max(1, lag / 8)
            guard lag > 2 * guardHops else { continue }
            for frame in (start + guardHops + 1)..<(end - guardHops) {
                let later = frame + lag
                guard indices.contains(frame), indices.contains(later) else { continue }
                let centred = Double(values[frame]) - mean
                sum += centred * (Double(values[later]) - mean)
                energy += centred * centred
            }
        }
        return energy > 0 ? sum / energy : 0
    }

    /// The autocorrelation of `count` values of `buffer` from `start`, at lags 0 through `maxLag` (at
    /// most `count - 1`): at each lag, the mean product of the values that far apart.
    ///
    /// Each lag's products are summed in `Float`, in the order of the values, one product at a time:
    /// the sums are the plain loop's to the bit. Four lags run at once, one to a lane of a `SIMD4`
    /// (each lane's multiplication and addition are the scalar ones), over the values all four
    /// reach, and each lag then finishes its own last values alone. The plain loop over every lag was
    /// one of the largest steps after the streaming pass (session 91, `perf`: 29–42 ms of the
    /// 0.14–0.18 s after decoding a 4-minute song; 7–8 ms now).
    static func autocorrelation(
        _ buffer: UnsafeBufferPointer<Float>, from start: Int, count: Int, maxLag: Int
    ) -> [Double] {
        var acf = [Double](repeating: 0, count: maxLag + 1)
        guard maxLag >= 0, count > maxLag, start >= 0, start + count <= buffer.count, let values = buffer.baseAddress
        else { return acf }
        let end = start + count
        var lag = 0
        while lag <= maxLag {
            let lanes = min(4, maxLag - lag + 1)
            var sums = SIMD4<Float>(repeating: 0)
            // Where four lags remain, every lane reaches the values before `shared` (the last lag's
            // end) and sums them at once; each lag then adds its own remaining values alone (all of
            // them where fewer than four lags remain). A lane's sum starts at 0 either way, as the
            // plain loop's does.
            var shared = start
            if lanes == 4 {
                shared = end - (lag + 3)
                var index = start
                while index < shared {
                    let later = UnsafeRawPointer(values + index + lag).loadUnaligned(as: SIMD4<Float>.self)
                    sums += values[index] * later
                    index += 1
                }
            }
            for lane in 0..<lanes {
                var sum = sums[lane]
                var rest = shared
                while rest < end - (lag + lane) {
                    sum += values[rest] * values[rest + lag + lane]
                    rest += 1
                }
                acf[lag + lane] = Double(sum) / Double(count - lag - lane)
            }
            lag += lanes
        }
        return acf
    }

    /// The beat period in `range` from the autocorrelation: the lag (between the tempo limits, widened
    /// by an octave each way) whose multiples correlate best under a prior one octave wide centred on the
    /// limits' geometric mean, refined between hops and over up to eight beats.
    ///
    /// `octave` is the factor (1, 2 or ½, on the tempo) that takes the pick to the octave the same comb
    /// likes best under a prior centred on `preferredBPM` instead, among those within the limits (1
    /// without one). The pick itself keeps the limits' centre: centred on the preferred tempo, the
    /// comb also picks levels that are not octaves of the beat (4⁄3 of a tracker module's tempo,
    /// docs/analyze-log.md, sessions 46 and 56).
    func period(in range: ClosedRange<Double>, minimumBPM: Double, maximumBPM: Double, preferredBPM: Double? = nil)
        -> (seconds: Double, strength: Double, octave: Double)?
    {
        let indices = indices(in: range)
        let values = envelope.values
        let slowest = 60 / max(20, minimumBPM / 2)
        let fastest = 60 / min(400, maximumBPM * 2)
        let minLag = max(2, Int((fastest / hop).rounded(.down)))
        let maxPeriodLag = Int((slowest / hop).rounded(.up))
        let maxLag = min(indices.count / 2, 4 * maxPeriodLag + 2)
        guard maxLag > minLag + 2 else { return nil }
        let acf = values.withUnsafeBufferPointer {
            Self.autocorrelation($0, from: indices.lowerBound, count: indices.count, maxLag: maxLag)
        }
        guard acf[0] > 0 else { return nil }
        func acfAt(_ lag: Double) -> Double {
            let index = Int(lag)
            guard index + 1 <= maxLag else { return index <= maxLag ? acf[index] : 0 }
            let fraction = lag - Double(index)
            return acf[index] * (1 - fraction) + acf[index + 1] * fraction
        }
        // Comb over multiples: a beat period correlates at 1, 2, 3 and 4 periods.
        func comb(_ lag: Double) -> Double {
            var score = 0.0
            var weight = 0.0
            for multiple in 1...4 where lag * Double(multiple) <= Double(maxLag) {
                score += acfAt(lag * Double(multiple))
                weight += 1
            }
            return score / weight
        }
        // A prior one octave wide, in log tempo, centred on `centre`.
        func prior(_ bpm: Double, centredOn centre: Double) -> Double { exp(-0.5 * pow(log2(bpm / centre), 2)) }
        // A mild preference for the middle of the hinted range keeps the octave sensible.
        let centre = (minimumBPM * maximumBPM).squareRoot()
        var bestLag = 0.0
        var bestScore = -Double.infinity
        let lowBPM = max(20, minimumBPM / 2)
        let highBPM = min(400, maximumBPM * 2)
        var bpm = lowBPM
        while bpm <= highBPM {
            let lag = 60 / bpm / hop
            if lag * 4 <= Double(maxLag) || lag * 2 <= Double(maxLag) {
                let score = comb(lag) * prior(bpm, centredOn: centre)
                if score > bestScore {
                    bestScore = score
                    bestLag = lag
                }
            }
            bpm *= 1.002
        }
        guard bestLag > 0 else { return nil }
        // The octave of the pick the preferred tempo likes best: the comb's score at the pick, twice and
        // half its tempo (within the limits), each under a prior of the same width centred on
        // `preferredBPM`.
        var octave = 1.0
        if let preferredBPM {
            var best = -Double.infinity
            for factor in [1.0, 2.0, 0.5] {
                let lag = bestLag / factor
                let bpm = 60 / lag / hop
                guard factor == 1 || (minimumBPM...maximumBPM).contains(bpm), lag * 2 <= Double(maxLag) else {
                    continue
                }
                let value = comb(lag) * prior(bpm, centredOn: preferredBPM)
                if value > best {
                    best = value
                    octave = factor
                }
            }
        }
        // Refine the lag on the highest multiple's autocorrelation peak that fits.
        var lag = bestLag
        for multiple in [2, 4, 8] {
            let target = lag * Double(multiple)
            guard target + 3 < Double(maxLag) else { break }
            var peakIndex = Int(target.rounded())
            for candidate in max(1, Int(target) - 2)...min(maxLag - 1, Int(target) + 3)
            where acf[candidate] > acf[peakIndex] {
                peakIndex = candidate
            }
            guard peakIndex > 0, peakIndex < maxLag else { break }
            let left = acf[peakIndex - 1]
            let centreValue = acf[peakIndex]
            let right = acf[peakIndex + 1]
            let curvature = left - 2 * centreValue + right
            guard curvature < 0 else { break }
            let shift = 0.5 * (left - right) / curvature
            lag = (Double(peakIndex) + max(-0.5, min(0.5, shift))) / Double(multiple)
        }
        return (lag * hop, bestScore / acf[0], octave)
    }

    /// The phase of `period` with the highest mean value at its grid points over `range`.
    func bestPhase(period: Double, in range: ClosedRange<Double>) -> (anchor: Double, score: Double) {
        let steps = max(8, Int((period / (hop / 4)).rounded()))
        var best = (anchor: range.lowerBound, score: -Double.infinity)
        for step in 0..<steps {
            let anchor = range.lowerBound + Double(step) * period / Double(steps)
            var sum = 0.0
            var count = 0
            var t = anchor
            while t <= range.upperBound {
                sum += value(at: t)
                count += 1
                t += period
            }
            let score = count > 0 ? sum / Double(count) : 0
            if score > best.score { best = (anchor, score) }
        }
        return best
    }

    /// The mean value at `grid`'s points shifted by `fraction` of a beat, over `range`.
    func mean(of grid: GridFitter.Grid, at fraction: Double, in range: ClosedRange<Double>) -> Double {
        let shifted = GridFitter.Grid(anchor: grid.anchor + fraction * grid.period, period: grid.period)
        let first = shifted.firstIndex(atOrAfter: range.lowerBound)
        let last = shifted.lastIndex(atOrBefore: range.upperBound)
        guard last >= first else { return 0 }
        var sum = 0.0
        for k in first...last { sum += value(at: shifted.time(k)) }
        return sum / Double(last - first + 1)
    }

    /// The 10-second stretch of `range` where the grid of `period` stands out most.
    func clearestWindow(period: Double, in range: ClosedRange<Double>) -> ClosedRange<Double> {
        let width = min(10, range.upperBound - range.lowerBound)
        var best = range.lowerBound...(range.lowerBound + width)
        var bestScore = -Double.infinity
        var start = range.lowerBound
        while start + width <= range.upperBound + 1e-9 {
            let window = start...(start + width)
            let base = mean(in: window)
            if base > 0 {
                let score = bestPhase(period: period, in: window).score / base
                if score > bestScore {
                    bestScore = score
                    best = window
                }
            }
            start += 2.5
        }
        return best
    }

    /// The grid at `tempoFactor` times the tempo of `grid`, at the phase (on sixths of a beat of
    /// `grid`) whose points have the highest mean value over `range`; returns that grid and mean.
    func levelGrid(_ grid: GridFitter.Grid, tempoFactor: Double, in range: ClosedRange<Double>) -> (
        grid: GridFitter.Grid, score: Double
    ) {
        let period = grid.period / tempoFactor
        let phaseStep = grid.period / 6
        let phases = max(1, Int((period / phaseStep).rounded()))
        var best = (grid: GridFitter.Grid(anchor: grid.anchor, period: period), score: -Double.infinity)
        for phase in 0..<phases {
            let anchor = grid.anchor + Double(phase) * phaseStep
            let candidate = GridFitter.Grid(anchor: anchor, period: period)
            let first = candidate.firstIndex(atOrAfter: range.lowerBound)
            let last = candidate.lastIndex(atOrBefore: range.upperBound)
            guard last >= first else { continue }
            var sum = 0.0
            for k in first...last { sum += value(at: candidate.time(k)) }
            let score = sum / Double(last - first + 1)
            if score > best.score { best = (candidate, score) }
        }
        return best
    }
}
