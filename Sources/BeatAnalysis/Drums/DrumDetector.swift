// SPDX-License-Identifier: GPL-3.0-or-later

import Foundation

/// Where a kick drum or a snare starts to sound, frame by frame, from a small network that learned the
/// drums' sound from a thousand clips of our own (random General-MIDI songs rendered with soundfonts
/// the corpus does not use: `tools/learned/drums.py`, tools/learned/README.md "Which sound is the
/// kick"), and the check built on it: the beats move by a third, a half or two thirds of a beat when
/// the drums sit clearly more there than on the beats, or by the sixteenth between them (a quarter
/// played straight, less swung) when they sit on the first of two kicks a sixteenth apart
/// (``pickupShift(of:frames:frameDuration:distance:)``).
///
/// The onset curve and the 150 Hz low band the grid rules read cannot tell a kick from a bass note,
/// or a snare from a hi-hat or a synth stab: dance music's off-beat bass and open hi-hat, a shuffle's
/// swung eighth, can outweigh the drums on the beat for a whole song. The network reads 24 bands and
/// their rises at ten frames around a frame (``DrumBands``); its weights are
/// `DrumDetectorWeights.swift`, made by `drums.py export`.
enum DrumDetector {
    /// Frames around a frame the network reads, in hops.
    static let offsets = [-3, -2, -1, 0, 1, 2, 3, 4, 6, 8]
    /// Features per frame: the bands' levels and their rises.
    static let featureCount = 2 * DrumBands.bandCount
    /// The shifts of a beat the check tries: a triplet, the off-beat, a swung eighth.
    static let shifts = [1.0 / 3.0, 0.5, 2.0 / 3.0]
    /// The paired t statistic a shift needs before the beats move: set on the corpus's train split
    /// in session 25 (tools/learned/README.md), where no right map came near it.
    static let minimumT = 5.0
    /// Hops either side of a point the drums are read at (the strongest counts).
    static let reach = 2
    /// Fewest beats the check reads.
    static let minimumBeats = 8

    /// Whether ``firstWeights`` and the rest (generated) have the shapes ``drums(at:of:table:)`` reads.
    static let weightsFit =
        firstWeights.count == offsets.count * featureCount * hiddenCount && firstBiases.count == hiddenCount
        && secondWeights.count == hiddenCount * 2 && secondBiases.count == 2

    /// Each band byte's level as `drums.py` normalises it for the frames of `values`
    /// (``DrumBands/values``): less the song's loud level (the 95th percentile of the frames' loudest
    /// band), floored 12 below it, over 4. `drums.py` takes the loud level over the whole song; here it
    /// is over the frames kept, which for a song longer than the span is its first five minutes.
    static func normalisation(of values: [UInt8]) -> [Float] {
        let bands = DrumBands.bandCount
        let count = values.count / bands
        guard count > 0 else { return [] }
        var loudest = (0..<count).map { frame in values[(frame * bands)..<((frame + 1) * bands)].max() ?? 0 }
        loudest.sort()
        // numpy's percentile: linear between the two nearest ranks.
        let rank = 0.95 * Double(count - 1)
        let below = Int(rank.rounded(.down))
        let above = min(count - 1, below + 1)
        func level(_ byte: UInt8) -> Float { DrumBands.lowest + Float(byte) * DrumBands.step }
        let loud = level(loudest[below]) + Float(rank - Double(below)) * (level(loudest[above]) - level(loudest[below]))
        return (0...255).map { max(level(UInt8($0)) - loud, -12) / 4 }
    }

    /// The kick's and the snare's probability at `frame` of `values` (``DrumBands/values``), its levels
    /// read through `table` (``normalisation(of:)``); 0 and 0 without weights.
    static func drums(at frame: Int, of values: [UInt8], table: [Float]) -> (kick: Float, snare: Float) {
        let bands = DrumBands.bandCount
        let count = values.count / bands
        guard weightsFit, frame >= 0, frame < count, table.count == 256 else { return (0, 0) }
        let hidden = hiddenCount
        var sums = firstBiases
        sums.withUnsafeMutableBufferPointer { sums in
            firstWeights.withUnsafeBufferPointer { w in
                values.withUnsafeBufferPointer { levels in
                    for (slot, offset) in offsets.enumerated() {
                        let row = max(0, min(count - 1, frame + offset))
                        for band in 0..<bands {
                            let value = table[Int(levels[row * bands + band])]
                            let previous = row > 0 ? table[Int(levels[(row - 1) * bands + band])] : value
                            let rise = max(0, value - previous)
                            let base = (slot * featureCount + band) * hidden
                            let riseBase = base + bands * hidden
                            for unit in 0..<hidden {
                                sums[unit] += value * w[base + unit] + rise * w[riseBase + unit]
                            }
                        }
                    }
                }
            }
        }
        var kick = secondBiases[0]
        var snare = secondBiases[1]
        for unit in 0..<hidden where sums[unit] > 0 {
            kick += sums[unit] * secondWeights[2 * unit]
            snare += sums[unit] * secondWeights[2 * unit + 1]
        }
        return (1 / (1 + exp(-kick)), 1 / (1 + exp(-snare)))
    }

    /// The strongest kick plus snare of `frames` within ``reach`` frames of `time`, frames
    /// `frameDuration` apart from 0 s; `nil` where those frames are not all there.
    static func strength(_ frames: inout DrumFrames, at time: Double, frameDuration: Double) -> Float? {
        strongest(&frames, at: time, frameDuration: frameDuration) { $0.drums(at: $1) }
    }

    /// The strongest snare of `frames` within ``reach`` frames of `time`, as
    /// ``strength(_:at:frameDuration:)`` reads kick plus snare; `nil` where those frames are not all there.
    static func snare(_ frames: inout DrumFrames, at time: Double, frameDuration: Double) -> Float? {
        strongest(&frames, at: time, frameDuration: frameDuration) { $0.snare(at: $1) }
    }

    /// The strongest kick of `frames` within ``reach`` frames of `time`, as
    /// ``strength(_:at:frameDuration:)`` reads kick plus snare; `nil` where those frames are not all there.
    static func kick(_ frames: inout DrumFrames, at time: Double, frameDuration: Double) -> Float? {
        strongest(&frames, at: time, frameDuration: frameDuration) { $0.kick(at: $1) }
    }

    /// The largest `value` of `frames` at the frames within ``reach`` of `time`; `nil` where those
    /// frames are not all there.
    private static func strongest(
        _ frames: inout DrumFrames, at time: Double, frameDuration: Double,
        _ value: (inout DrumFrames, Int) -> Float
    ) -> Float? {
        let centre = Int((time / frameDuration).rounded())
        guard centre >= reach, centre < frames.count - reach else { return nil }
        var strongest: Float = 0
        for frame in (centre - reach)...(centre + reach) { strongest = max(strongest, value(&frames, frame)) }
        return strongest
    }

    /// The fraction of a beat (⅓, ½ or ⅔) by which `beats` (seconds, increasing) should move, read from
    /// `frames` (frame `i` centred at `i × frameDuration` seconds): the one
    /// whose points — each beat moved that far towards the next — carry the most kick and snare over
    /// the beats themselves, by a paired t statistic over the beats of the first ``DrumBands/span``
    /// seconds, if it reaches ``minimumT``; `nil` to keep them. With `phaseUnchosen` (the tracker's
    /// own beats split between the beats and the points half a beat on: ``trackerLeftThePhase(_:written:)``)
    /// the half beat needs no margin: it wins where it is the best shift and its t is above 0.
    static func betterShift(
        of beats: [Double], frames: inout DrumFrames, frameDuration: Double, phaseUnchosen: Bool = false
    ) -> Double? {
        let read = beats.prefix { $0 < DrumBands.span }
        guard read.count >= minimumBeats, frameDuration > 0, frames.count > 0 else { return nil }
        func strength(at time: Double) -> Float? { Self.strength(&frames, at: time, frameDuration: frameDuration) }
        var best: (t: Double, shift: Double)?
        for shift in shifts {
            var differences: [Double] = []
            for index in 0..<(read.count - 1) {
                let at = strength(at: read[index]) ?? 0
                let moved = strength(at: read[index] + shift * (read[index + 1] - read[index])) ?? 0
                differences.append(Double(moved - at))
            }
            let t = PairedT.of(differences)
            if best.map({ t > $0.t }) ?? true { best = (t, shift) }
        }
        guard let best else { return nil }
        if best.t >= minimumT || (phaseUnchosen && best.shift == 0.5 && best.t > 0) { return best.shift }
        return nil
    }

    /// A quarter of a beat: a straight sixteenth, the pickup's distance where none is measured
    /// (``pickupDistance(of:frames:frameDuration:)``).
    static let pickup = 0.25
    /// Where after a beat the pickup's distance is measured, as fractions of the beat: from an eighth
    /// to seven twenty-fourths. A sixteenth before the beat lies a quarter of a beat before it played
    /// straight and up to a sixth (a triplet's) swung; the window holds both and stops short of the
    /// swung sixteenth after a beat (a third of one), so a right swung grid does not read its own next
    /// kick as a pickup's.
    static let pickupWindow = (1.0 / 8.0)...(7.0 / 24.0)
    /// The mean kick probability a pickup needs at the beats and at the points its distance after
    /// them: a kick at more than half of them, more likely than not.
    static let pickupKick: Float = 0.5

    /// How far before the beat a pickup kick sits, as a fraction of a beat, measured on `beats`
    /// (seconds, increasing) were they on the pickups: after each beat whose kick is heard (at
    /// least ``pickupKick``), the frame with the strongest kick within ``pickupWindow``, where that
    /// kick is heard too and peaks inside the window (not at either end); the median of those
    /// frames' places, or a quarter (``pickup``) where that lies within a frame of one at the beats'
    /// mean interval or where no beat gives a place.
    static func pickupDistance(of beats: [Double], frames: inout DrumFrames, frameDuration: Double) -> Double {
        guard beats.count >= 3, frameDuration > 0, frames.count > 0 else { return pickup }
        var places: [Double] = []
        for index in 1..<(beats.count - 1) {
            let beat = beats[index]
            let interval = beats[index + 1] - beat
            guard interval > 0,
                let atBeat = strongest(&frames, at: beat, frameDuration: frameDuration, { $0.kick(at: $1) }),
                atBeat >= pickupKick
            else { continue }
            let first = Int(((beat + pickupWindow.lowerBound * interval) / frameDuration).rounded(.up))
            let last = Int(((beat + pickupWindow.upperBound * interval) / frameDuration).rounded(.down))
            guard first >= 0, last < frames.count, first <= last else { continue }
            var best: (frame: Int, kick: Float)?
            for frame in first...last {
                let kick = frames.kick(at: frame)
                if best.map({ kick > $0.kick }) ?? true { best = (frame, kick) }
            }
            // A kick that peaks inside the window: one still rising at its end is the next one's, one
            // still falling at its start the beat's own.
            if let best, best.kick >= pickupKick, best.frame > first, best.frame < last {
                places.append((Double(best.frame) * frameDuration - beat) / interval)
            }
        }
        guard !places.isEmpty else { return pickup }
        places.sort()
        let middle = places.count / 2
        let median = places.count % 2 == 1 ? places[middle] : (places[middle - 1] + places[middle]) / 2
        // Within a frame of a straight sixteenth the measure cannot tell it from one.
        let meanInterval = (beats[beats.count - 1] - beats[0]) / Double(beats.count - 1)
        return abs(median - pickup) * meanInterval <= frameDuration ? pickup : median
    }

    /// The pickup's distance (``pickupDistance(of:frames:frameDuration:)``, a quarter of a beat played
    /// straight) when `beats` (seconds, increasing) sit on the first of two kicks a sixteenth apart
    /// on every beat, read from `frames` as ``betterShift(of:frames:frameDuration:phaseUnchosen:)``
    /// reads them; `nil` to keep them. A `distance` given is used instead of one measured.
    ///
    /// A kick a sixteenth before the beat leads into it (samba's and bossa nova's bass drum, on the
    /// beat and on the sixteenth before each one): the two kicks sound alike to the check above, which
    /// compares a shift's points with the beats, so a grid on the first of each pair stays there, a
    /// sixteenth early (session 36 found the check at ¼ and ¾ moving right bossas as often as
    /// wrong ones). A pickup is told apart by what comes before it: the beats move by the pickup's
    /// distance when the kick sounds both at the beats and that far after them (its mean
    /// probability at least ``pickupKick`` at each), and clearly more there than as far before
    /// them (paired t at least ``minimumT``, the check's own margin). A right grid has its
    /// pickup before the beat and nothing after it, and does not move; a kick on every sixteenth has
    /// as much before as after. The distance is measured because a swung sixteenth is not a quarter
    /// of a beat from the beat (session 78).
    static func pickupShift(
        of beats: [Double], frames: inout DrumFrames, frameDuration: Double, distance given: Double? = nil
    ) -> Double? {
        let read = Array(beats.prefix { $0 < DrumBands.span })
        guard read.count >= minimumBeats, frameDuration > 0, frames.count > 0 else { return nil }
        let distance = given ?? pickupDistance(of: read, frames: &frames, frameDuration: frameDuration)
        func kick(at time: Double) -> Float {
            strongest(&frames, at: time, frameDuration: frameDuration) { $0.kick(at: $1) } ?? 0
        }
        var atBeats: Float = 0
        var after: Float = 0
        var differences: [Double] = []
        for index in 1..<(read.count - 1) {
            let beat = read[index]
            let early = kick(at: beat - distance * (beat - read[index - 1]))
            let late = kick(at: beat + distance * (read[index + 1] - beat))
            atBeats += kick(at: beat)
            after += late
            differences.append(Double(late - early))
        }
        let count = Float(differences.count)
        guard atBeats / count >= pickupKick, after / count >= pickupKick, PairedT.of(differences) >= minimumT else {
            return nil
        }
        return distance
    }

    /// The runs of beats followed one by one (`beats`, seconds, increasing) that sit on the pickup a
    /// sixteenth before the kick on the beat, as ``pickupShift(of:frames:frameDuration:distance:)``
    /// reads a grid: index ranges of `beats`, each to move a quarter of its own beat later.
    ///
    /// A tracker that follows a bossa's beats can take the pickup for the beat for a stretch and come
    /// back to the beat for the next, so over the whole song the pickup neither holds nor fails.
    /// Each beat is marked where the kick sounds at it and a quarter of a beat after it (each at least
    /// ``pickupKick``) and more after than before; runs of marked beats (a single unmarked beat inside
    /// a run, a fill, is carried) of at least ``minimumBeats`` are each asked the whole grid's question
    /// over their own beats, with its margin, at a quarter: a run can be as short as two bars, and a
    /// distance measured for it is one freedom more than that margin was set for (session 78's trial
    /// SW2 moved a swung metal song's half-tempo runs by a measured sixth).
    static func pickupRuns(of beats: [Double], frames: inout DrumFrames, frameDuration: Double) -> [Range<Int>] {
        let read = Array(beats.prefix { $0 < DrumBands.span })
        guard read.count >= minimumBeats + 2, frameDuration > 0, frames.count > 0 else { return [] }
        func kick(at time: Double) -> Float {
            strongest(&frames, at: time, frameDuration: frameDuration) { $0.kick(at: $1) } ?? 0
        }
        var marked = [Bool](repeating: false, count: read.count)
        for index in 1..<(read.count - 1) {
            let beat = read[index]
            let early = kick(at: beat - pickup * (beat - read[index - 1]))
            let late = kick(at: beat + pickup * (read[index + 1] - beat))
            marked[index] = kick(at: beat) >= pickupKick && late >= pickupKick && late > early
        }
        var runs: [Range<Int>] = []
        var index = 1
        while index < read.count - 1 {
            guard marked[index] else {
                index += 1
                continue
            }
            var end = index + 1
            while end < read.count - 1, marked[end] || (end + 1 < read.count - 1 && marked[end + 1]) {
                end += 1
            }
            // The run's beats and one on either side, whose intervals its first and last beats read.
            if end - index >= minimumBeats,
                pickupShift(
                    of: Array(read[(index - 1)...end]), frames: &frames, frameDuration: frameDuration,
                    distance: pickup) != nil
            {
                runs.append(index..<end)
            }
            index = end
        }
        return runs
    }

    /// Whether the tracker left a grid's phase unchosen: of the `tracked` beats near either the
    /// `written` beats (increasing) or the points halfway between them — within an eighth of a beat of
    /// one or the other — each side holds at least ``unchosenShare``. A tracker that follows the beat
    /// and strays to the off-beats for a break leaves a clear majority on one side, and the drum check
    /// keeps its margin there; one that spends as long on either side has not said where the beat is,
    /// so the drums say it without a margin (session 48: a recorded rock song whose tracker took the
    /// off-beats for 186 of its 444 beats, in four stretches, and whose drums lean to them at t 3.7).
    static func trackerLeftThePhase(_ tracked: [Double], written: [Double]) -> Bool {
        guard written.count >= 2 else { return false }
        var onBeats = 0
        var onMidpoints = 0
        var next = 1
        for beat in tracked {
            while next < written.count - 1, written[next] < beat { next += 1 }
            let (before, after) = (written[next - 1], written[next])
            guard beat >= before, beat <= after, after > before else { continue }
            let fraction = (beat - before) / (after - before)
            if fraction <= 0.125 || fraction >= 0.875 {
                onBeats += 1
            } else if abs(fraction - 0.5) <= 0.125 {
                onMidpoints += 1
            }
        }
        let total = Double(onBeats + onMidpoints)
        return total > 0 && Double(min(onBeats, onMidpoints)) >= unchosenShare * total
    }

    /// The share of the tracked beats near a grid's beats or its midpoints that each side must hold
    /// for ``trackerLeftThePhase(_:written:)``: a third (two to one is still a choice).
    static let unchosenShare = 1.0 / 3.0
}

/// The drum detector's evidence for one file, frame by frame over the first ``DrumBands/span``
/// seconds and a few more (frame `i` centred at `i` hops from 0 s): for a song shorter than that, its
/// band levels, from which the kick and the snare are computed at the frames read, once each; for a
/// longer one, the kick and the snare at every frame, computed when the span was over so the bands'
/// 24 bytes a frame could go.
public struct DrumFrames: Sendable {
    /// Band levels, ``DrumBands/bandCount`` bytes per frame, where kept.
    private var bands: [UInt8] = []
    /// ``DrumDetector/normalisation(of:)`` of ``bands``.
    private var table: [Float] = []
    /// The kick's probability per frame; NaN where not computed yet.
    private var kicks: [Float] = []
    /// The snare's probability per frame; NaN where not computed yet.
    private var snares: [Float] = []

    /// No frames.
    public init() {}

    /// The frames of `bands` (``DrumBands/values``), computed as they are read.
    init(bands: [UInt8]) {
        self.bands = bands
        table = DrumDetector.normalisation(of: bands)
        kicks = [Float](repeating: .nan, count: bands.count / DrumBands.bandCount)
        snares = kicks
    }

    /// Frames whose kick and snare probabilities are `kicks` and `snares` (as many of each).
    init(kicks: [Float], snares: [Float]) {
        self.kicks = kicks
        self.snares = snares
    }

    /// Frames held (with both a kick and a snare).
    public var count: Int { min(kicks.count, snares.count) }

    /// Computes `frame`'s kick and snare if not yet done.
    private mutating func compute(_ frame: Int) {
        guard kicks[frame].isNaN else { return }
        (kicks[frame], snares[frame]) = DrumDetector.drums(at: frame, of: bands, table: table)
    }

    /// Kick plus snare at `frame` (`0..<count`).
    mutating func drums(at frame: Int) -> Float {
        compute(frame)
        return kicks[frame] + snares[frame]
    }

    /// The kick at `frame` (`0..<count`).
    mutating func kick(at frame: Int) -> Float {
        compute(frame)
        return kicks[frame]
    }

    /// The snare at `frame` (`0..<count`).
    mutating func snare(at frame: Int) -> Float {
        compute(frame)
        return snares[frame]
    }

    /// Every frame's kick and snare, computed (so the bands can go).
    mutating func computedAll() -> (kicks: [Float], snares: [Float]) {
        for frame in 0..<count { compute(frame) }
        return (kicks, snares)
    }
}
