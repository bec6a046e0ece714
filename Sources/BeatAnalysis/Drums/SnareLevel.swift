// SPDX-License-Identifier: GPL-3.0-or-later

import BeatMapKit
import Foundation

// The snare as evidence of the metric level: a back-beat (the snare on beats 2 and 4) marks the beat
// level itself; a snare on one beat in four is a back-beat at half the tempo or a half-time feel at
// this one, and a snare on every point between the beats a back-beat at twice the tempo or a snare on
// the "and" at this one; the tempo estimate's prior chooses (docs/analyze.md, step 8, "The snare on
// one beat in four").
extension DrumDetector {
    /// The learned detector's snare at each of `beats` (seconds, increasing) of the first
    /// ``DrumBands/span`` seconds, as ``snare(_:at:frameDuration:)`` reads it.
    static func snares(of beats: [Double], frames: inout DrumFrames, frameDuration: Double) -> [Float?] {
        guard frameDuration > 0, frames.count > 0 else { return [] }
        return beats.prefix { $0 < DrumBands.span }.map { snare(&frames, at: $0, frameDuration: frameDuration) }
    }

    /// The beat (0…3) of each four of `snares` on which the snare stands out alone: over the fours
    /// from that beat on, its snare less the strongest of the other three, by a paired t of at least
    /// ``minimumT`` (the drum check's margin) over at least ``BackBeat/minimumBars`` fours; the one of
    /// the largest t, or `nil` where none reaches it.
    static func oneInFour(_ snares: [Float?]) -> Int? {
        var best: (t: Double, phase: Int)?
        for phase in 0..<4 {
            let differences = BackBeat.fours(snares, from: phase).map { Double($0[0] - max($0[1], $0[2], $0[3])) }
            guard differences.count >= BackBeat.minimumBars else { continue }
            let t = PairedT.of(differences)
            if best.map({ t > $0.t }) ?? true { best = (t, phase) }
        }
        guard let best, best.t >= minimumT else { return nil }
        return best.phase
    }
}

extension GridFitter {
    /// `segments` at the level the snare asks for, and that level against theirs: half
    /// (``halvedOnTheSnare(_:frames:frameDuration:)``), else twice
    /// (``doubledOnTheSnare(_:frames:frameDuration:)``); `nil` to keep them.
    /// Only a map of one grid is read (a map of tempo segments keeps the levels its pieces were given),
    /// and not a tempo the user gave.
    func snareLevel(_ segments: [FittedSegment], frames: inout DrumFrames, frameDuration: Double)
        -> (segment: FittedSegment, level: MetricLevel)?
    {
        guard options.forcedBPM == nil, segments.count == 1, let segment = segments.first, segment.beats.count >= 8
        else { return nil }
        if let halved = halvedOnTheSnare(segment, frames: &frames, frameDuration: frameDuration) {
            return (halved, .half)
        }
        return doubledOnTheSnare(segment, frames: &frames, frameDuration: frameDuration).map { ($0, .double) }
    }

    /// `segment`, one grid, at half its tempo when its snare falls on one beat in four
    /// (``DrumDetector/oneInFour(_:)``) and half the tempo lies nearer the tempo estimate's prior
    /// within the limits (``prefers(_:to:)``); the beats kept are those of the snare's parity. `nil`
    /// to keep it.
    ///
    /// A snare on one beat in four is a back-beat at half the tempo (hip-hop at 81 BPM read at 162,
    /// its snare on 2 and 4) or a half-time feel at this one (trap at 140, its snare on 3): the drums
    /// alone cannot tell which, but the tempo estimate's own prior can, as it does for the octave of
    /// every song. At either reading the snare is on a beat, so the beats kept are its parity's.
    func halvedOnTheSnare(_ segment: FittedSegment, frames: inout DrumFrames, frameDuration: Double)
        -> FittedSegment?
    {
        guard prefers(segment.bpm / 2, to: segment.bpm),
            let phase = DrumDetector.oneInFour(
                DrumDetector.snares(of: segment.beats, frames: &frames, frameDuration: frameDuration))
        else { return nil }
        let kept = segment.beats.enumerated().filter { $0.offset % 2 == phase % 2 }.map(\.element)
        guard let first = kept.first, kept.count >= 2 else { return nil }
        return FittedSegment(bpm: segment.bpm / 2, firstBeat: first, beats: kept)
    }

    /// `segment`, one grid, at twice its tempo when its snare falls clearly on the points
    /// halfway between its beats as a back-beat (two of each four points of the doubled grid, a half
    /// bar apart: ``BackBeat/onTheDownbeats(_:phase:)`` on the midpoints' parity) and twice the tempo
    /// lies nearer the tempo estimate's prior within the limits (``prefers(_:to:)``). `nil` to keep
    /// it. The mirror of ``halvedOnTheSnare(_:frames:frameDuration:)``: a grid at half a rock song's
    /// tempo has the kick on its beats and the snare on every point between them.
    func doubledOnTheSnare(_ segment: FittedSegment, frames: inout DrumFrames, frameDuration: Double)
        -> FittedSegment?
    {
        let bpm = segment.bpm
        guard prefers(bpm * 2, to: bpm) else { return nil }
        let beats = segment.beats
        let doubled = zip(beats, beats.dropFirst()).flatMap { [$0, ($0 + $1) / 2] } + beats.suffix(1)
        let snares = DrumDetector.snares(of: doubled, frames: &frames, frameDuration: frameDuration)
        // The midpoints are the odd points: a back-beat on them is bars from an even point whose
        // second and fourth points carry it, i.e. "downbeats" (as the rule names them) at odd points.
        guard BackBeat.onTheDownbeats(snares, phase: 1) || BackBeat.onTheDownbeats(snares, phase: 3) else {
            return nil
        }
        return FittedSegment(bpm: bpm * 2, firstBeat: doubled[0], beats: doubled)
    }

    /// Whether the tempo estimate's prior prefers `candidate` to `bpm` (both BPM): `candidate` lies
    /// within the tempo limits (``levelTempoLimits``) and nearer the prior's centre, the limits'
    /// geometric mean (109.5 BPM for 60–200), in octaves.
    func prefers(_ candidate: Double, to bpm: Double) -> Bool {
        let centre = (options.minimumBPM * options.maximumBPM).squareRoot()
        return levelTempoLimits.contains(candidate) && abs(log(candidate / centre)) < abs(log(bpm / centre))
    }
}
