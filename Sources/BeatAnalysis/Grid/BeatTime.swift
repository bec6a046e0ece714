// SPDX-License-Identifier: GPL-3.0-or-later

import Foundation

// The song read in beat time: its onsets laid out along tracked beats as if the music had been played
// to a click, so that the whole-song tempo estimate sees a song whose tempo moves as it would see the
// same music played steadily.
extension GridFitter {
    /// The tempo ratios between metric levels that a level read in beat time may move the beats by:
    /// ×2 and ½, 3⁄2 and ⅔, and 4⁄3 and ¾ (a tracker held by a dotted pulse, three beats against four).
    static let beatTimeRatios: [Double] = [2, 0.5, 1.5, 2.0 / 3.0, 4.0 / 3.0, 0.75]

    /// Intervals either side of a tracked interval whose median stands for the local tempo: two bars
    /// of 4/4 each way.
    static let smoothingRadius = 8

    /// The largest ratio between the tracked beats' median interval and the whole-song estimate's
    /// period at which the two are one metric level: √(4⁄3), halfway (in log tempo) between the same
    /// tempo and 4⁄3, the nearest ratio between two metric levels (three beats against four).
    static let sameLevelRatio = (4.0 / 3.0).squareRoot()

    /// For each of `values`, the median (the upper one of an even count) of the values within `radius`
    /// places of it, itself included: the local tempo of beat intervals, which a tracker's doubled or
    /// dropped beat does not move.
    static func localMedians(_ values: [Double], radius: Int) -> [Double] {
        values.indices.map { index in
            var window = Array(values[max(0, index - radius)..<min(values.count, index + radius + 1)])
            window.sort()
            return window[window.count / 2]
        }
    }

    /// How far (as a fraction of their median) the intervals around a beat may lie from it and still
    /// count for the local tempo in ``localIntervals(_:radius:)``: wider than a hop's rounding (3 % at
    /// 170 BPM) and a drift, narrower than a doubled or dropped beat (half or twice the interval).
    static let localIntervalBand = 0.1

    /// For each of `values` (beat intervals), the mean of the values within `radius` places of it,
    /// itself included, that lie within ``localIntervalBand`` of their median: the local tempo, to a
    /// fraction of a hop.
    ///
    /// The tracker's beats scatter around the beat by a fraction of a hop, and at 180 BPM a hop
    /// (11.6 ms) is 3.5 % of a beat, so a median of 17 intervals moves from one stretch to the next:
    /// on a steady 180 BPM LMMS song (train split) by 0.09 hop (standard deviation), up to 0.08 of a
    /// beat over 12 beats, laid out as a tempo that wobbles; the mean of the intervals near it, by
    /// 0.04 hop and 0.01 of a beat. The wobble blurred the estimate's multi-beat lags: read along the
    /// beats tracked from their whole-song reading, 6 of the corpus's 89 steady songs (both splits,
    /// the same code run with no truth) came out at another level in beat time; 2 with the mean.
    /// The median still chooses which intervals count, so a doubled or dropped beat does not move the
    /// tempo.
    static func localIntervals(_ values: [Double], radius: Int) -> [Double] {
        values.indices.map { index in
            var window = Array(values[max(0, index - radius)..<min(values.count, index + radius + 1)])
            window.sort()
            let median = window[window.count / 2]
            let near = window.filter { abs($0 / median - 1) < Self.localIntervalBand }
            // The median itself is always near, so `near` is never empty.
            return near.reduce(0, +) / Double(near.count)
        }
    }

    /// The tempo factor from the level of `tracked` to the level the whole-song estimate
    /// (``fitSegment(novelty:matcher:span:lowBand:)``) picks in beat time, or `nil` when it picks the
    /// same level (or none of ``beatTimeRatios``, within 5 %).
    ///
    /// The onset curve `envelope` and the low band's `lowLevels` (mean square per hop) are resampled
    /// so that each tracked beat interval lasts the beats' median interval: a drift, a ramp or a step
    /// is undone, and the estimate's autocorrelation is no longer smeared by it. A ramp of 8 % blurs
    /// the autocorrelation at a two-beat lag twice as much as at a one-beat lag, which tips the estimate
    /// towards the faster level; a step leaves two tempi whose peaks compete.
    ///
    /// Each beat is laid out `heardPeriod` seconds long (the whole-song estimate's period: the tempo
    /// the song was heard at) when the beats are at that estimate's level (their median interval
    /// within ``sameLevelRatio`` of it), otherwise as long as their median interval. The estimate
    /// prefers tempi near the middle of the hinted range, so the tempo the beat-time song is played at
    /// can tip its level: a stepped song's median interval is one half's or lies between them, and at
    /// that tempo the level could come out other than the steady original's.
    func beatTimeLevel(
        _ tracked: [Double], envelope: OnsetEnvelope, lowLevels: [Float]?, heardPeriod: Double? = nil
    ) -> Double? {
        guard tracked.count >= 16 else { return nil }
        let interval = BeatSequence(beats: tracked).medianInterval
        let hop = envelope.hopDuration
        guard interval > 0, hop > 0, envelope.count >= 3 else { return nil }
        let layoutInterval =
            heardPeriod.flatMap { $0 > 0 && abs(log(interval / $0)) < log(Self.sameLevelRatio) ? $0 : nil }
            ?? interval
        // The tempo's movement, not the tracker's beat-to-beat errors: each interval is replaced by the
        // mean of the intervals within `smoothingRadius` of it that lie near their median
        // (``localIntervals(_:radius:)``), so a doubled or dropped beat does not stretch the song, and a
        // steady song comes out as it went in.
        let intervals = zip(tracked.dropFirst(), tracked).map { $0 - $1 }
        let smoothed = Self.localIntervals(intervals, radius: Self.smoothingRadius)
        // Beat time advances one hop per hop; audio time by the local interval over the median one.
        let end = envelope.time(ofIndex: envelope.count - 1)
        var values: [Float] = []
        var levels: [Float] = []
        values.reserveCapacity(envelope.count)
        var t = envelope.startTime
        var beat = 0
        while t <= end {
            while beat + 1 < tracked.count - 1, tracked[beat + 1] <= t { beat += 1 }
            // A median of positive intervals is positive; the floor only bounds the loop.
            let step = hop * max(smoothed[beat], 0.25 * interval) / layoutInterval
            // The strongest of the hops this step covers (the nearest one where the song is stretched):
            // not a value interpolated between two, which would lower an onset's peak (one or two hops
            // wide) by where the hop falls, and not only the nearest hop, which drops a peak wherever
            // the song is compressed and a step passes over a hop.
            let first = Int(envelope.position(of: t).rounded())
            let past = max(first + 1, Int(envelope.position(of: t + step).rounded()))
            var value: Float = 0
            for index in max(0, first)..<min(envelope.count, max(0, past)) {
                value = max(value, envelope.values[index])
            }
            values.append(value)
            if let lowLevels {
                // Hop k of the levels covers k·hop…(k + 1)·hop (``LowBand/novelty(levels:like:)``).
                let level = Int(((t - envelope.startTime + 0.5 * hop) / hop).rounded(.down))
                levels.append(level >= 0 && level < lowLevels.count ? lowLevels[level] : 0)
            }
            t += step
        }
        guard values.count >= 3 else { return nil }
        let warped = OnsetEnvelope(values: values, hopDuration: hop, startTime: envelope.startTime)
        let novelty = Novelty(envelope: warped)
        let lowBand = levels.isEmpty ? nil : LowBand.novelty(levels: levels, like: warped)
        let peaks = novelty.envelope.peaks()
        guard peaks.count >= 4 else { return nil }
        let span = musicalSpan(peaks, duration: warped.time(ofIndex: values.count - 1))
        guard
            let estimate = fitSegment(
                novelty: novelty, matcher: PeakMatcher(peaks: peaks), span: span, lowBand: lowBand)
        else { return nil }
        let factor = layoutInterval / estimate.grid.period
        return Self.beatTimeRatios.first { abs(log($0 / factor)) < 0.05 }
    }
}
