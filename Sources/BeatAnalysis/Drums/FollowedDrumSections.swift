// SPDX-License-Identifier: GPL-3.0-or-later

import Foundation

// Followed beats against the drums, section by section (docs/analyze.md, step 8). A tracker that
// follows the beats one by one can sit on the beat in one section and on the off-beat in the next,
// having slid across between them; one move for the whole map then puts one of them right and the
// other wrong. Where it slides, its intervals leave the tempo around them, so the runs between such
// intervals each keep one phase, and each run's own drums can say which.
extension GridFitter {
    /// Fewest beats of a run the drums are read over on its own: eight bars of 4/4, as many as a tempo
    /// piece needs (``GridModelSelector/minimumPieceBeats``).
    static let drumSectionBeats = 32

    /// The runs of `beats` between the intervals that lie off the tempo around them
    /// (``offTempoIntervals(_:)``, where a tracker that changed phase must have moved), as ranges of
    /// beat indices, those of at least ``drumSectionBeats`` beats.
    static func phaseRuns(_ beats: [Double]) -> [ClosedRange<Int>] {
        var runs: [ClosedRange<Int>] = []
        var start = 0
        for (index, off) in offTempoIntervals(beats).enumerated() where off {
            if index + 1 - start >= drumSectionBeats { runs.append(start...index) }
            start = index + 1
        }
        if beats.count - start >= drumSectionBeats { runs.append(start...(beats.count - 1)) }
        return runs
    }

    /// `beats`, followed one by one, with the half beat the drums ask for taken run by run
    /// (``phaseRuns(_:)``); `nil` where that changes nothing the whole-map check (`wholeShift`,
    /// ``DrumDetector/betterShift(of:frames:frameDuration:phaseUnchosen:)`` over all the beats) would
    /// not do alike.
    ///
    /// Where the whole map moves by half a beat, the drums over all the beats clearly sit between them
    /// (paired t of at least ``DrumDetector/minimumT``): the tracker spent most of the song on the
    /// off-beats. A run whose own drums lean the other way (its half-beat t below 0) is one it
    /// followed on the beat, and stays; the others, and the beats outside the runs, move. Where the
    /// whole map stays, a run moves only where its own drums clearly sit between its beats (t of at
    /// least ``DrumDetector/minimumT``). Where the whole map moves by a third or two, or every run goes
    /// the way the whole map does, `nil`. Only the beats of the first ``DrumBands/span`` seconds are
    /// read, as by the whole-map check.
    ///
    /// Where moved and unmoved beats meet, two beats closer than ``seamFraction`` of the median
    /// interval are one beat claimed twice, and the one with more kick and snare is kept (the moved
    /// one on a tie); a gap of over a beat and a half gets a beat in its middle.
    static func halfBeatBySection(
        _ beats: [Double], wholeShift: Double?, frames: inout DrumFrames, frameDuration: Double
    ) -> [Double]? {
        let movesAll = wholeShift == 0.5
        guard wholeShift == nil || movesAll, beats.count >= 2 * drumSectionBeats else { return nil }
        var moves = Array(repeating: movesAll, count: beats.count)
        for run in phaseRuns(beats) {
            guard
                let t = DrumDetector.halfBeatT(
                    of: Array(beats[run]), frames: &frames, frameDuration: frameDuration, fewest: drumSectionBeats)
            else { continue }
            if movesAll, t < 0 { moves.replaceSubrange(run, with: repeatElement(false, count: run.count)) }
            if !movesAll, t >= DrumDetector.minimumT {
                moves.replaceSubrange(run, with: repeatElement(true, count: run.count))
            }
        }
        guard moves.contains(true), moves.contains(false) else { return nil }
        let sequence = BeatSequence(beats: beats)
        let interval = sequence.medianInterval
        var joined: [(time: Double, moved: Bool)] = []
        for (index, beat) in beats.enumerated() {
            let time = moves[index] ? sequence.time(at: Double(index) + 0.5) : beat
            if let last = joined.last {
                if time - last.time < seamFraction * interval {
                    if moves[index] != last.moved {
                        let here = DrumDetector.strength(&frames, at: time, frameDuration: frameDuration) ?? 0
                        let there = DrumDetector.strength(&frames, at: last.time, frameDuration: frameDuration) ?? 0
                        if here > there || (here == there && moves[index]) {
                            joined[joined.count - 1] = (time, moves[index])
                        }
                    }
                    continue
                }
                if time - last.time > 1.5 * interval { joined.append(((last.time + time) / 2, false)) }
            }
            joined.append((time, moves[index]))
        }
        return joined.map(\.time)
    }
}

extension DrumDetector {
    /// The paired t statistic of the learned detector's kick and snare at the points halfway between
    /// `beats` (seconds, increasing) against the same at the beats, over the beats of the first
    /// ``DrumBands/span`` seconds: positive where the drums sit between them. `nil` where fewer than
    /// `fewest` beats are read.
    static func halfBeatT(of beats: [Double], frames: inout DrumFrames, frameDuration: Double, fewest: Int) -> Double? {
        let read = beats.prefix { $0 < DrumBands.span }
        guard read.count >= max(2, fewest), frameDuration > 0, frames.count > 0 else { return nil }
        let differences = zip(read, read.dropFirst()).map { beat, next in
            let at = strength(&frames, at: beat, frameDuration: frameDuration) ?? 0
            let between = strength(&frames, at: (beat + next) / 2, frameDuration: frameDuration) ?? 0
            return Double(between - at)
        }
        return PairedT.of(differences)
    }
}
