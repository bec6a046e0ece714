// SPDX-License-Identifier: GPL-3.0-or-later

import Foundation

/// Where a kick drum or a snare starts to sound, frame by frame, from a small network that learned the
/// drums' sound from a thousand clips of our own (random General-MIDI songs rendered with soundfonts
/// the corpus does not use: `tools/learned/drums.py`, tools/learned/README.md "Which sound is the
/// kick"), and the check built on it: the beats move by a third, a half or two thirds of a beat when
/// the drums sit clearly more there than on the beats.
///
/// The onset curve and the 150 Hz low band the grid rules read cannot tell a kick from a bass note,
/// or a snare from a hi-hat or a synth stab: dance music's off-beat bass and open hi-hat, a shuffle's
/// swung eighth, can outweigh the drums on the beat for a whole song. The network reads 24 bands and
/// their rises at ten frames around a frame (``DrumBands``); its weights are
/// `DrumDetectorWeights.swift`, made by `drums.py export`.
struct DrumDetector: Sendable {
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

    /// The network's weights, decoded once.
    struct Weights: Sendable {
        let first: [Float]
        let firstBiases: [Float]
        let second: [Float]
        let secondBiases: [Float]
    }

    static let weights: Weights? = {
        func decoded(_ text: String) -> [Float]? {
            guard let data = Data(base64Encoded: text, options: .ignoreUnknownCharacters), data.count % 4 == 0
            else { return nil }
            return data.withUnsafeBytes { raw in
                (0..<(data.count / 4)).map { Float(bitPattern: UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: 4 * $0, as: UInt32.self))) }
            }
        }
        let inputs = offsets.count * featureCount
        guard let first = decoded(firstWeightsBase64), first.count == inputs * hiddenCount,
            let firstBiases = decoded(firstBiasesBase64), firstBiases.count == hiddenCount,
            let second = decoded(secondWeightsBase64), second.count == hiddenCount * 2,
            let secondBiases = decoded(secondBiasesBase64), secondBiases.count == 2
        else { return nil }
        return Weights(first: first, firstBiases: firstBiases, second: second, secondBiases: secondBiases)
    }()

    /// The band levels, ``DrumBands/bandCount`` bytes per frame (``DrumBands``).
    private let bands: [UInt8]
    /// Each byte's level as `drums.py` normalises it: less the song's loud level (the 95th percentile
    /// of the frames' loudest band), floored 12 below it, over 4.
    private let table: [Float]
    private let frameCount: Int
    /// Seconds between frames.
    let frameDuration: Double
    /// Kick plus snare per frame, once computed (NaN until then).
    private var drums: [Float]

    /// A detector over `values` (``DrumBands/values``: ``DrumBands/bandCount`` bytes per frame, frame
    /// `i` centred at `i × frameDuration` seconds); `nil` without frames or weights.
    init?(values: [UInt8], frameDuration: Double) {
        let count = values.count / DrumBands.bandCount
        guard count > 0, frameDuration > 0, Self.weights != nil else { return nil }
        var loudest = (0..<count).map { frame in
            values[(frame * DrumBands.bandCount)..<((frame + 1) * DrumBands.bandCount)].max() ?? 0
        }
        loudest.sort()
        // numpy's percentile: linear between the two nearest ranks.
        let rank = 0.95 * Double(count - 1)
        let below = Int(rank.rounded(.down))
        let above = min(count - 1, below + 1)
        func level(_ byte: UInt8) -> Float { DrumBands.lowest + Float(byte) * DrumBands.step }
        let loud = level(loudest[below]) + Float(rank - Double(below)) * (level(loudest[above]) - level(loudest[below]))
        table = (0...255).map { max(level(UInt8($0)) - loud, -12) / 4 }
        bands = values
        frameCount = count
        self.frameDuration = frameDuration
        drums = [Float](repeating: .nan, count: count)
    }

    /// The network's kick and snare outputs at `frame`.
    func activation(at frame: Int) -> (kick: Float, snare: Float) {
        guard let weights = Self.weights else { return (0, 0) }
        let bands = DrumBands.bandCount
        let hidden = Self.hiddenCount
        var sums = weights.firstBiases
        sums.withUnsafeMutableBufferPointer { sums in
            weights.first.withUnsafeBufferPointer { w in
                self.bands.withUnsafeBufferPointer { levels in
                    for (slot, offset) in Self.offsets.enumerated() {
                        let row = max(0, min(frameCount - 1, frame + offset))
                        for band in 0..<bands {
                            let level = table[Int(levels[row * bands + band])]
                            let previous = row > 0 ? table[Int(levels[(row - 1) * bands + band])] : level
                            let inputs = (level, max(0, level - previous))
                            let base = (slot * Self.featureCount + band) * hidden
                            let riseBase = (slot * Self.featureCount + bands + band) * hidden
                            for unit in 0..<hidden {
                                sums[unit] += inputs.0 * w[base + unit] + inputs.1 * w[riseBase + unit]
                            }
                        }
                    }
                }
            }
        }
        var outputs = weights.secondBiases
        for unit in 0..<hidden where sums[unit] > 0 {
            outputs[0] += sums[unit] * weights.second[2 * unit]
            outputs[1] += sums[unit] * weights.second[2 * unit + 1]
        }
        return (1 / (1 + exp(-outputs[0])), 1 / (1 + exp(-outputs[1])))
    }

    /// Kick plus snare at `frame`, computed once.
    private mutating func drum(at frame: Int) -> Float {
        if !drums[frame].isNaN { return drums[frame] }
        let value = activation(at: frame)
        drums[frame] = value.kick + value.snare
        return value.kick + value.snare
    }

    /// The strongest kick plus snare within ``reach`` frames of `time`; `nil` where those frames are
    /// not all kept.
    private mutating func strength(at time: Double) -> Float? {
        let centre = Int((time / frameDuration).rounded())
        guard centre >= Self.reach, centre < frameCount - Self.reach else { return nil }
        var strongest: Float = 0
        for frame in (centre - Self.reach)...(centre + Self.reach) { strongest = max(strongest, drum(at: frame)) }
        return strongest
    }

    /// The fraction of a beat (⅓, ½ or ⅔) by which `beats` (seconds, increasing) should move: the one
    /// whose points — each beat moved that far towards the next — carry the most kick and snare over
    /// the beats themselves, by a paired t statistic over the beats of the first ``DrumBands/span``
    /// seconds, if it reaches ``minimumT``; `nil` to keep them.
    mutating func betterShift(of beats: [Double]) -> Double? {
        let read = beats.prefix { $0 < DrumBands.span }
        guard read.count >= Self.minimumBeats else { return nil }
        var best: (t: Double, shift: Double)?
        for shift in Self.shifts {
            var differences: [Double] = []
            for index in 0..<(read.count - 1) {
                let at = strength(at: read[index]) ?? 0
                let moved = strength(at: read[index] + shift * (read[index + 1] - read[index])) ?? 0
                differences.append(Double(moved - at))
            }
            let n = Double(differences.count)
            let mean = differences.reduce(0, +) / n
            let variance = differences.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / (n - 1)
            let t = mean / (variance.squareRoot() / n.squareRoot() + 1e-9)
            if best.map({ t > $0.t }) ?? true { best = (t, shift) }
        }
        guard let best, best.t >= Self.minimumT else { return nil }
        return best.shift
    }
}
