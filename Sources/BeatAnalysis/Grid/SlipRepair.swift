// SPDX-License-Identifier: GPL-3.0-or-later

import Foundation

extension GridFitter {
    /// Most beat intervals a slip of the tracker spans: two bars of 4/4.
    static let slipMaximumBeats = 8
    /// Intervals either side of an interval its reference period is the median of, and that must be
    /// steady either side of a slip.
    static let slipContextBeats = 16
    /// How far (a fraction of the reference period) an interval must lie from it to count in a slip,
    /// and the mean deviation either side of a slip under which the tempo there counts as steady:
    /// 3 %, the most a drift as fast as the corpus's ±3 % in 30 s moves an interval from the median
    /// of the 33 around it.
    static let slipDeviation = 0.03
    /// How far (a fraction of the reference period) the intervals after a slip's first must lie from
    /// the tempo around them, on the same side, to carry the slip on: 1 %, above the tracker's own
    /// jitter (the median deviation of the followed train maps' intervals from the tempo around them
    /// is 0.6 %). A tracker that slides onto the off-beats over several beats shortens some of them
    /// by less than ``slipDeviation`` (docs/analyze-log.md, session 54).
    static let slipContinuation = 0.01

    /// For each interval of `tracked` (interval `i` from beat `i` to beat `i + 1`), whether it lies more
    /// than ``slipDeviation`` from the tempo around it (the median of ``slipContextBeats`` intervals
    /// either side): where a tracker that changed phase must have moved.
    static func offTempoIntervals(_ tracked: [Double]) -> [Bool] {
        let intervals = zip(tracked.dropFirst(), tracked).map { $0 - $1 }
        let reference = localMedians(intervals, radius: slipContextBeats)
        return intervals.indices.map { abs(intervals[$0] - reference[$0]) > slipDeviation * reference[$0] }
    }

    /// `tracked` with the tracker's half-beat slips undone: where it left the beat for the off-beats
    /// and came back, or went off for good, the beats on the off-beat side move half a beat.
    ///
    /// A slip is a short run of intervals (at most ``slipMaximumBeats``) that all lie the same way from
    /// the tempo around them (the median of ``slipContextBeats`` intervals either side: the first by
    /// over ``slipDeviation``, the rest by over ``slipContinuation``, so that a tracker sliding over
    /// several beats is one slip) and together add or remove half a beat (0.35–0.65 of one), with the
    /// tempo steady before and after it. Music
    /// does not do that: a tempo change stays changed, a drift moves an interval a percent or two, a
    /// fill keeps its beat. A tracker does, where the off-beats outweigh the beats for a while (an
    /// intro of off-beat plucks without a kick, a section of off-beat hi-hats): its path pays a few
    /// nats for the detour and gains them back on the off-beats. Each slip flips the runs of beats
    /// after it between the beat and the off-beat, so only two answers remain for the whole song, and
    /// the kick chooses between them over all the runs together — an intro without a kick then takes
    /// its phase from the sections that have one, which no neighbourhood of its own could give it.
    /// Where the kick does not lean either way, the side the tracker put most beats on is kept
    /// (``slipBeatSide(kickLogRatios:beatsPerSide:)``).
    /// ``onTheKick(tracked:lowBand:)`` then reads the kick section by section as before. The beats
    /// inside a slip are laid again evenly between the beats either side of it. Without a low band
    /// nothing can choose, and the beats are returned as they are.
    func repairingSlips(_ tracked: [Double], lowBand: Novelty?) -> [Double] {
        let count = tracked.count
        guard let lowBand, count >= 4 * Self.slipContextBeats else { return tracked }
        let intervals = zip(tracked.dropFirst(), tracked).map { $0 - $1 }
        let reference = Self.localMedians(intervals, radius: Self.slipContextBeats)
        guard reference.allSatisfy({ $0 > 0 }) else { return tracked }
        let deviation = intervals.indices.map { (intervals[$0] - reference[$0]) / reference[$0] }

        func steady(_ range: Range<Int>) -> Bool {
            let clamped = max(0, range.lowerBound)..<min(deviation.count, range.upperBound)
            guard clamped.count >= Self.slipMaximumBeats else { return false }
            let mean = clamped.reduce(0.0) { $0 + abs(deviation[$1]) } / Double(clamped.count)
            return mean < Self.slipDeviation
        }

        // Slips, as ranges of interval indices (interval i runs from beat i to beat i + 1).
        var slips: [Range<Int>] = []
        var start = 0
        while start < deviation.count {
            let sign: Double = deviation[start] >= 0 ? 1 : -1
            var sum = 0.0
            var end = start
            while end < deviation.count, end - start < Self.slipMaximumBeats,
                sign * deviation[end] > (end == start ? Self.slipDeviation : Self.slipContinuation)
            {
                sum += deviation[end]
                end += 1
            }
            let slip = start..<end
            if !slip.isEmpty, (0.35...0.65).contains(abs(sum)),
                steady((start - Self.slipMaximumBeats)..<start), steady(end..<(end + Self.slipMaximumBeats))
            {
                slips.append(slip)
                start = end
            } else {
                start += 1
            }
        }
        guard !slips.isEmpty else { return tracked }

        // Runs of beats between slips (beat ranges; a slip's inner beats belong to none). Each slip
        // flips the runs after it between the beat and the off-beat; which of the two sides is the
        // beat is decided over all of them together (``slipBeatSide(kickLogRatios:beatsPerSide:)``),
        // by the kick at every beat of every run and by how many beats the tracker put on each side.
        var runs: [Range<Int>] = []
        var first = 0
        for slip in slips {
            runs.append(first..<(slip.lowerBound + 1))
            first = slip.upperBound
        }
        runs.append(first..<count)
        var readings: [(on: Double, between: Double, side: Int)] = []
        var beatsPerSide = (0, 0)
        for (index, run) in runs.enumerated() {
            if index % 2 == 0 { beatsPerSide.0 += run.count } else { beatsPerSide.1 += run.count }
            guard run.count >= 2 else { continue }
            let beats = BeatSequence(beats: Array(tracked[run]))
            for offset in 0..<(run.count - 1) {
                readings.append(
                    (
                        lowBand.strongest(near: tracked[run.lowerBound + offset]),
                        lowBand.strongest(near: beats.time(at: Double(offset) + 0.5)), index % 2
                    ))
            }
        }
        // A floor of a tenth of the low band's mean strength there, so that a beat and a midpoint
        // both nearly silent read as alike rather than as a ratio of two noises.
        let mean = readings.reduce(0.0) { $0 + $1.on + $1.between } / Double(max(1, 2 * readings.count))
        let noiseFloor = max(0.1 * mean, .leastNormalMagnitude)
        let logRatios = readings.map {
            ($0.side == 0 ? 1.0 : -1.0) * log(($0.on + noiseFloor) / ($0.between + noiseFloor))
        }
        let beatSide = Self.slipBeatSide(kickLogRatios: logRatios, beatsPerSide: beatsPerSide)
        var moved = [Bool](repeating: false, count: count)
        var inside = [Bool](repeating: false, count: count)
        for (index, run) in runs.enumerated() where index % 2 != beatSide {
            for beat in run { moved[beat] = true }
        }
        for slip in slips {
            for beat in (slip.lowerBound + 1)..<slip.upperBound { inside[beat] = true }
        }
        var kept: [(time: Double, index: Int)] = []
        kept.reserveCapacity(count)
        for index in 0..<count where !inside[index] {
            // Half the tempo around the beat: the interval after it may be a slip's.
            let half = reference[min(reference.count - 1, index)] / 2
            kept.append((moved[index] ? tracked[index] + half : tracked[index], index))
        }
        // Lay the beats of each gap a slip left (or a moved beat's neighbour crowded) evenly again.
        var result: [Double] = []
        result.reserveCapacity(count + 8)
        for (time, index) in kept {
            guard let last = result.last else {
                result.append(time)
                continue
            }
            let local = reference[min(reference.count - 1, max(0, index - 1))]
            let gap = time - last
            if gap < 0.5 * local { continue }
            let steps = Int((gap / local).rounded())
            if steps >= 2 {
                for step in 1..<steps { result.append(last + gap * Double(step) / Double(steps)) }
            }
            result.append(time)
        }
        return result
    }
}

extension GridFitter {
    /// What the kick's lean must be worth before it decides which side of a slip-split tracking is
    /// the beat: one nat, the price of the one parameter (its mean) that says it leans at all
    /// (Akaike's criterion). Bayes' criterion's ½ ln n, about 3 nats here, was tried on the train
    /// split too: it put one render of a drifting copy on its off-beats, where the tracker had put
    /// most beats on the wrong side and the kick leaned 1.9 nats the right way (docs/analyze-log.md,
    /// session 29).
    static let kickLeanPrice = 1.0

    /// Which of the two sides of a tracking that slips split is the beat: 0 for the side of its first
    /// run, 1 for the other.
    ///
    /// `kickLogRatios` are, per beat, the log ratio of the low band at the beat to that at the
    /// midpoint after it, signed so that positive means side 0's beats carry more of it. Whether the
    /// kick leans at all is a choice between two models of them, Gaussian with mean 0 or with a mean
    /// of their own: where the mean gains more than ``kickLeanPrice`` nats of likelihood, the kick
    /// decides, by its sign. Where it does not, the side the tracker put most beats on is kept
    /// (`beatsPerSide`): the tracker read the onsets to place each of them. Until session 29 the kick
    /// alone decided, however little it leaned, and a kick that barely leaned moved whole songs the
    /// tracker had placed on the beat.
    static func slipBeatSide(kickLogRatios: [Double], beatsPerSide: (Int, Int)) -> Int {
        let lean = leanGain(kickLogRatios)
        if lean.gain > kickLeanPrice { return lean.mean >= 0 ? 0 : 1 }
        return beatsPerSide.0 >= beatsPerSide.1 ? 0 : 1
    }

    /// The mean of `values` and the nats of Gaussian likelihood that a mean of their own gains over a
    /// mean of 0 (`n/2 · ln(Σx² / Σ(x − mean)²)`): 0 where every value is 0, infinite where they are
    /// all alike and not 0.
    static func leanGain(_ values: [Double]) -> (mean: Double, gain: Double) {
        let n = Double(values.count)
        let mean = n > 0 ? values.reduce(0, +) / n : 0
        let squares = values.reduce(0) { $0 + $1 * $1 }
        let residual = squares - n * mean * mean
        if squares <= 0 { return (mean, 0) }
        if residual <= squares * 1e-12 { return (mean, .infinity) }
        return (mean, n / 2 * log(squares / residual))
    }
}
