// SPDX-License-Identifier: GPL-3.0-or-later

import Foundation

// A song's beat sounds alike all through it. A tracker that follows the beats one by one can take the
// off-beats after a break and keep them for minutes (a house song's bass and open hi-hat between the
// beats, where the kick's low band cannot tell the two apart). Such a section's beats then sound like
// the rest of the song's off-beats, and its off-beats like the rest's beats.
extension GridFitter {
    /// Fewest beats of a followed section ``onTheSongsBeat(tracked:bands:lowBand:)`` reads: four bars
    /// of 4/4.
    static let beatSoundSectionBeats = 16

    /// `tracked` (followed beats) with each section whose beats sound like the rest of the song's
    /// off-beats, and whose off-beats like the rest's beats, moved half a beat onto them.
    ///
    /// Sections run between the intervals that lie more than ``slipDeviation`` from the tempo around
    /// them (the median of ``slipContextBeats`` intervals either side), as the slip repair reads them:
    /// where a tracker changes phase, some interval does. A section is read when it has at least
    /// ``beatSoundSectionBeats`` beats and fewer than the rest of the song, so that what it is judged
    /// against is most of the song (a section that held nearly all of it was once judged against the
    /// few beats outside it, and moved off the beat: docs/analyze.md, session 26). The sound of a beat
    /// is the rise of each of ``BandLevels``' eight bands there, each band standardised over the
    /// song's beats and midpoints. Over the beats outside the section, each band gets a Gaussian with
    /// one mean at the beats, one at the points halfway to the next, and one variance. The section
    /// moves when swapping its beats and its midpoints raises their log-likelihood under those
    /// Gaussians by more than `ln n` nats (`n` the beats of the song): the description length of
    /// saying which section moves, a price and not a threshold fitted to songs. Beats past the bands'
    /// ten minutes are read as they are.
    func onTheSongsBeat(tracked: [Double], bands: BandRises, lowBand: Novelty?) -> [Double] {
        let count = tracked.count
        guard let lowBand, count >= 3 * Self.beatSoundSectionBeats else { return tracked }
        let sequence = BeatSequence(beats: tracked)
        // The sound at each beat and at the midpoint after it, while the bands last.
        var onBeats: [[Double]] = []
        var midpoints: [[Double]] = []
        for index in tracked.indices {
            guard let on = bands.strongest(near: tracked[index]),
                let mid = bands.strongest(near: sequence.time(at: Double(index) + 0.5))
            else { break }
            onBeats.append(on)
            midpoints.append(mid)
        }
        let read = onBeats.count
        guard read >= 3 * Self.beatSoundSectionBeats else { return tracked }
        // Each band standardised over the beats and midpoints read.
        for band in 0..<BandLevels.bandCount {
            let values = onBeats.map { $0[band] } + midpoints.map { $0[band] }
            let mean = values.reduce(0, +) / Double(values.count)
            let variance = values.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(values.count)
            let deviation = variance.squareRoot()
            for index in 0..<read {
                onBeats[index][band] = deviation > 0 ? (onBeats[index][band] - mean) / deviation : 0
                midpoints[index][band] = deviation > 0 ? (midpoints[index][band] - mean) / deviation : 0
            }
        }
        var edges = [0]
        for (index, off) in Self.offTempoIntervals(tracked).enumerated() where off && index + 1 < read {
            edges.append(index + 1)
        }
        edges.append(read)
        let penalty = log(Double(count))
        var marked = [Bool](repeating: false, count: count)
        for (lower, upper) in zip(edges, edges.dropFirst()) {
            let size = upper - lower
            guard size >= Self.beatSoundSectionBeats, size < read - size else { continue }
            let gain = Self.swapGain(onBeats: onBeats, midpoints: midpoints, section: lower..<upper)
            if gain > penalty {
                for index in lower..<upper { marked[index] = true }
            }
        }
        guard marked.contains(true) else { return tracked }
        return movedHalfABeat(tracked, marked: marked, lowBand: lowBand)
    }

    /// How much swapping the beats and midpoints of `section` raises their log-likelihood (nats) under
    /// Gaussians fitted, band by band, to the beats and midpoints outside it (one mean each, one
    /// variance).
    static func swapGain(onBeats: [[Double]], midpoints: [[Double]], section: Range<Int>) -> Double {
        let rest = onBeats.indices.filter { !section.contains($0) }
        guard !rest.isEmpty, let bands = onBeats.first?.count else { return 0 }
        var gain = 0.0
        for band in 0..<bands {
            let onMean = rest.reduce(0) { $0 + onBeats[$1][band] } / Double(rest.count)
            let midMean = rest.reduce(0) { $0 + midpoints[$1][band] } / Double(rest.count)
            let squares = rest.reduce(0) { sum, index in
                let on = onBeats[index][band] - onMean
                let mid = midpoints[index][band] - midMean
                return sum + on * on + mid * mid
            }
            let variance = squares / Double(2 * rest.count)
            guard variance > 1e-12 else { continue }
            for index in section {
                let (on, mid) = (onBeats[index][band], midpoints[index][band])
                let kept = (on - onMean) * (on - onMean) + (mid - midMean) * (mid - midMean)
                let swapped = (mid - onMean) * (mid - onMean) + (on - midMean) * (on - midMean)
                gain += (kept - swapped) / (2 * variance)
            }
        }
        return gain
    }
}
