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

    /// `tracked` (followed beats) with each section whose beats sound like the song's off-beats, and
    /// whose off-beats like its beats, moved half a beat onto them.
    ///
    /// Sections run between the intervals that lie more than ``slipDeviation`` from the tempo around
    /// them (the median of ``slipContextBeats`` intervals either side), as the slip repair reads them:
    /// where a tracker changes phase, some interval does. A section is read when it has at least
    /// ``beatSoundSectionBeats`` beats and fewer than the rest of the song. The sound of a beat is the
    /// rise of each of ``BandLevels``' eight bands there, each band standardised over the song's beats
    /// and midpoints. The sections to move are chosen all at once
    /// (``sectionsOffTheSongsBeat(onBeats:midpoints:sections:penalty:)``), at a price of `ln n` nats
    /// each (`n` the beats of the song): the description length of saying which section moves, not a
    /// threshold fitted to songs. Beats past the bands' ten minutes are read as they are.
    ///
    /// A chosen section stays where it is when the learned drums (`drums`, the detector's kick plus
    /// snare at a time, as ``drumsKeep(_:in:drums:)`` reads them) keep both its beats and every beat
    /// outside the chosen sections: its own drums then mark its beats, not its midpoints, and the rest
    /// of the song is on its beat too, so moving it would leave the map on two phases. Where the drums
    /// say the rest is off its beat, or cannot tell, the sections move together as chosen, and the map
    /// stays on one phase for the whole-map drum check (docs/analyze-log.md, sessions 86 and 89).
    func onTheSongsBeat(
        tracked: [Double], bands: BandRises, lowBand: Novelty?, drums: (Double) -> Float? = { _ in nil }
    ) -> [Double] {
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
        let sections = zip(edges, edges.dropFirst()).map { $0..<$1 }.filter {
            $0.count >= Self.beatSoundSectionBeats && $0.count < read - $0.count
        }
        let moved = Self.sectionsOffTheSongsBeat(
            onBeats: onBeats, midpoints: midpoints, sections: sections, penalty: log(Double(count)))
        var chosen = [Bool](repeating: false, count: count)
        for section in moved {
            for index in section { chosen[index] = true }
        }
        let restKept = Self.drumsKeep(tracked.indices.filter { !chosen[$0] }, in: sequence, drums: drums)
        var marked = [Bool](repeating: false, count: count)
        for section in moved where !(restKept && Self.drumsKeep(Array(section), in: sequence, drums: drums)) {
            for index in section { marked[index] = true }
        }
        guard marked.contains(true) else { return tracked }
        return movedHalfABeat(tracked, marked: marked, lowBand: lowBand)
    }

    /// Most sections ``sectionsOffTheSongsBeat(onBeats:midpoints:sections:penalty:)`` labels jointly
    /// (the longest, when there are more): 4096 labellings.
    static let jointSections = 12

    /// The `sections` that lie on the song's off-beats, labelled all at once: of every choice of
    /// sections to move whose beats are fewer than half of those read, the one under which one model of
    /// the song's sound explains its beats and midpoints best, less `penalty` nats per section moved.
    /// The model is, band by band, a Gaussian with one mean at the beats, one at the midpoints and one
    /// variance, fitted to all the beats read with the chosen sections' beats and midpoints swapped.
    /// Judged one at a time against the beats outside it, a section on the beat was once measured
    /// against a rest that held other sections on the off-beats, and moved off with them
    /// (docs/analyze-log.md, session 28). Swapping every beat of the song would explain its sound as well
    /// (the model is symmetric), so the part moved must be the smaller.
    static func sectionsOffTheSongsBeat(
        onBeats: [[Double]], midpoints: [[Double]], sections: [Range<Int>], penalty: Double
    ) -> [Range<Int>] {
        let read = onBeats.count
        guard read > 0, !sections.isEmpty, let bands = onBeats.first?.count else { return [] }
        let judged = Array(
            sections.sorted { ($0.count, $1.lowerBound) > ($1.count, $0.lowerBound) }.prefix(Self.jointSections))
        // Per band: the sums at the beats and at the midpoints, and the sum of their squares (which
        // swapping leaves as it is), over all the beats read; then each judged section's sum of beats
        // less midpoints, what swapping it moves from one mean to the other.
        var onTotal = [Double](repeating: 0, count: bands)
        var midTotal = [Double](repeating: 0, count: bands)
        var squares = [Double](repeating: 0, count: bands)
        for index in 0..<read {
            for band in 0..<bands {
                let (on, mid) = (onBeats[index][band], midpoints[index][band])
                onTotal[band] += on
                midTotal[band] += mid
                squares[band] += on * on + mid * mid
            }
        }
        let differences = judged.map { section in
            (0..<bands).map { band in section.reduce(0.0) { $0 + onBeats[$1][band] - midpoints[$1][band] } }
        }
        let n = Double(read)
        var best: (score: Double, choice: Int)?
        for choice in 0..<(1 << judged.count) {
            var movedBeats = 0
            var count = 0
            for bit in judged.indices where choice & (1 << bit) != 0 {
                movedBeats += judged[bit].count
                count += 1
            }
            guard 2 * movedBeats < read else { continue }
            var logLikelihood = 0.0
            for band in 0..<bands {
                // Swapping a section moves its beats' sum to the midpoints and theirs to the beats.
                var onSum = onTotal[band]
                var midSum = midTotal[band]
                for bit in judged.indices where choice & (1 << bit) != 0 {
                    onSum -= differences[bit][band]
                    midSum += differences[bit][band]
                }
                let variance = (squares[band] - (onSum * onSum + midSum * midSum) / n) / (2 * n)
                guard variance > 1e-12 else { continue }
                logLikelihood -= n * log(variance)
            }
            let score = logLikelihood - penalty * Double(count)
            if best.map({ score > $0.score }) ?? true { best = (score, choice) }
        }
        guard let choice = best?.choice else { return [] }
        return judged.indices.filter { choice & (1 << $0) != 0 }.map { judged[$0] }
    }
}
