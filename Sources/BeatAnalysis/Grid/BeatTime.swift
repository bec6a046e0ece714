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
        // median of the intervals within `smoothingRadius` of it, so a doubled or dropped beat does
        // not stretch the song, and a steady song comes out as it went in.
        let intervals = zip(tracked.dropFirst(), tracked).map { $0 - $1 }
        let smoothed = Self.localMedians(intervals, radius: Self.smoothingRadius)
        // Beat time advances one hop per hop; audio time by the local interval over the median one.
        let end = envelope.time(ofIndex: envelope.count - 1)
        var values: [Float] = []
        var levels: [Float] = []
        values.reserveCapacity(envelope.count)
        var t = envelope.startTime
        var beat = 0
        while t <= end {
            // The nearest hop's value, not one interpolated between two: an onset's peak is one or
            // two hops wide, and interpolating would lower it by where the hop happens to fall.
            let index = Int(envelope.position(of: t).rounded())
            values.append(index >= 0 && index < envelope.count ? envelope.values[index] : 0)
            if let lowLevels {
                // Hop k of the levels covers k·hop…(k + 1)·hop (``LowBand/novelty(levels:like:)``).
                let level = Int(((t - envelope.startTime + 0.5 * hop) / hop).rounded(.down))
                levels.append(level >= 0 && level < lowLevels.count ? lowLevels[level] : 0)
            }
            while beat + 1 < tracked.count - 1, tracked[beat + 1] <= t { beat += 1 }
            // A median of positive intervals is positive; the floor only bounds the loop.
            t += hop * max(smoothed[beat], 0.25 * interval) / layoutInterval
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
