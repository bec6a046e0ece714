// SPDX-License-Identifier: GPL-3.0-or-later

import Foundation

/// What the audio says at each beat about where a bar starts, read from curves the streaming pass
/// already made (no extra pass over the audio): the kick drum (the low band's onset strength at the
/// beat), the bass (the low band's mean level over the first half of the beat: a bar's root note is
/// held and played harder), and where the harmony changes (the pitch-class profile after the beat
/// against the one before it, over one beat and over two). The snare's place (the broadband onsets
/// that are not kicks) was tried too and left out: on the corpus's train split it cost more bar
/// phases than it gained. The learned detector's snare and kick are carried beside the features
/// (``snares``, ``kicks``): they say where a bar does not start (``BackBeat``), and where a one-drop's
/// does (``OneDrop``).
///
/// Each feature is standardised over the song (zero mean, unit variance above its noise floor), so the meter estimate does
/// not depend on the mix's level.
struct BarFeatures: Sendable, Equatable {
    /// One feature: its values per beat, and the sign of its difference at downbeats (+1: larger at
    /// downbeats, −1: smaller).
    struct Feature: Sendable, Equatable {
        /// A short name, for diagnostics.
        var name: String
        /// The standardised value at each beat.
        var values: [Double]
        /// +1 when downbeats have the larger values, −1 when the smaller.
        var sign: Double
    }

    /// The features, each with one value per beat.
    var features: [Feature]

    /// The learned detector's snare at each beat (``DrumDetector/snare(_:at:frameDuration:)``), `nil`
    /// where it did not read (past its first five minutes); empty where there is no detector. Not a
    /// feature of the likelihoods: it says where a bar does not start (``BackBeat``).
    var snares: [Float?] = []

    /// The learned detector's kick at each beat (``DrumDetector/kick(_:at:frameDuration:)``), as
    /// ``snares``.
    var kicks: [Float?] = []

    /// Features of `beats` (seconds, increasing) from the broadband onset strength `novelty`, the low
    /// band's `lowNovelty` (``LowBand/novelty(levels:like:)``) and mean square per hop `lowLevels`, and
    /// the pitch-class profile `chroma` (``ChromaProfile``: 12 values per frame of
    /// ``ChromaProfile/hopsPerFrame`` hops), hops being `hopDuration` seconds apart from 0.
    init(
        beats: [Double], novelty: Novelty, lowNovelty: Novelty?, lowLevels: [Float], chroma: CompactFloats,
        hopDuration: Double
    ) {
        let count = beats.count
        var intervals = zip(beats.dropFirst(), beats).map { $0 - $1 }
        intervals.sort()
        let period = intervals.isEmpty ? 0.5 : intervals[intervals.count / 2]
        // Where beat `index`'s span ends: the next beat, or a median beat after the last one.
        func spanEnd(_ index: Int) -> Double { index + 1 < count ? beats[index + 1] : beats[index] + period }
        let window = min(0.035, 0.2 * period)

        // The onset strength summed over the hops within `window` of the beat: the whole rise, however
        // the onset falls across the hops (the strongest single hop would depend on that).
        func strength(_ curve: Novelty, at t: Double) -> Double {
            var sum = 0.0
            for index in curve.indices(in: (t - window)...(t + window)) { sum += Double(curve.envelope.values[index]) }
            return sum
        }
        // The pitch-class profile over each beat's span (to the next beat).
        let frameDuration = hopDuration * Double(ChromaProfile.hopsPerFrame)
        let frames = chroma.count / 12
        var spans = [[Double]](repeating: [Double](repeating: 0, count: 12), count: count)
        if frames > 0, frameDuration > 0 {
            for index in beats.indices {
                let start = beats[index]
                let end = spanEnd(index)
                let low = max(0, min(frames - 1, Int((start / frameDuration).rounded(.down))))
                let high = max(low + 1, min(frames, Int((end / frameDuration).rounded(.down))))
                for frame in low..<high {
                    for pc in 0..<12 { spans[index][pc] += Double(chroma[frame * 12 + pc]) }
                }
            }
        }
        // 1 − the correlation of the profiles summed over `width` beats after the beat and before it.
        func harmonicChange(width: Int) -> [Double] {
            beats.indices.map { index in
                guard index >= 1, index + 1 <= count else { return 0 }
                var after = [Double](repeating: 0, count: 12)
                var before = [Double](repeating: 0, count: 12)
                for offset in 0..<width {
                    if index + offset < count { for pc in 0..<12 { after[pc] += spans[index + offset][pc] } }
                    if index - 1 - offset >= 0 { for pc in 0..<12 { before[pc] += spans[index - 1 - offset][pc] } }
                }
                return ChromaProfile.change(from: before, to: after)
            }
        }

        // The low band's mean log level over the first half of each beat (to halfway to the next
        // beat): the note struck on the beat. Over the whole beat, a swung or pushed bass note that
        // anticipates the next downbeat (a shuffle's walking bass on the "and" of 4) counted for the
        // beat before it, and put the bars of a train blues song a beat early (docs/bars.md,
        // session 33).
        func spanLevels(_ values: [Float]) -> [Double] {
            let loud = Double(values.max() ?? 0)
            let floor = max(loud * 1e-7, 1e-20)
            return beats.indices.map { index in
                let start = beats[index]
                let end = start + Self.bassSpan * (spanEnd(index) - start)
                let low = max(0, min(values.count - 1, Int((start / hopDuration).rounded(.down))))
                let high = max(low + 1, min(values.count, Int((end / hopDuration).rounded(.down))))
                var sum = 0.0
                for hop in low..<high { sum += Double(values[hop]) }
                return log(max(sum / Double(high - low), floor))
            }
        }

        var features: [Feature] = []
        // Noise floors: 10 % of a strength, 0.1 in log energy (10 %), 0.02 in harmonic change.
        if let lowNovelty {
            let kick = Self.interior(beats.map { strength(lowNovelty, at: $0) })
            features.append(
                Feature(name: "kick", values: Self.standardised(kick, floor: Self.tenthOfMean(kick)), sign: 1))
        } else {
            let onset = Self.interior(beats.map { strength(novelty, at: $0) })
            features.append(
                Feature(name: "onset", values: Self.standardised(onset, floor: Self.tenthOfMean(onset)), sign: 1))
        }
        if !lowLevels.isEmpty, hopDuration > 0 {
            features.append(
                Feature(
                    name: "bass", values: Self.standardised(Self.interior(spanLevels(lowLevels)), floor: 0.1), sign: 1))
        }
        if frames > 0 {
            features.append(
                Feature(
                    name: "harmony1", values: Self.standardised(Self.interior(harmonicChange(width: 1)), floor: 0.02),
                    sign: 1))
            features.append(
                Feature(
                    name: "harmony2",
                    values: Self.standardised(Self.interior(harmonicChange(width: 2)), floor: 0.02),
                    sign: 1))
        }
        self.features = features.filter { $0.values.count == count }
    }

    /// Features of `beats` (seconds, increasing) from the curves of the streaming pass `analysis`.
    init(beats: [Double], analysis: AudioAnalysis) {
        self = Self.reader(analysis)(beats)
    }

    /// The features of any beats (seconds, increasing) of `analysis`, its onset and low-band curves
    /// made once for all the runs of beats read (a song's, then each of its tempo segments').
    /// `drums` holds the detector's frames as read so far, where the caller shares them (the
    /// analyzer's drum check has read them); without it, `analysis`'s own.
    static func reader(_ analysis: AudioAnalysis, drums: SharedDrumFrames? = nil) -> ([Double]) -> BarFeatures {
        let envelope = analysis.envelope
        let novelty = Novelty(envelope: envelope)
        let lowNovelty = LowBand.novelty(levels: analysis.lowLevels, like: envelope)
        // The detector's frames, computed where read and kept for the next run of beats.
        let drums = drums ?? SharedDrumFrames(analysis.drums)
        return { beats in
            var features = BarFeatures(
                beats: beats, novelty: novelty, lowNovelty: lowNovelty, lowLevels: analysis.lowLevels,
                chroma: analysis.chroma, hopDuration: envelope.hopDuration)
            drums.reading { frames in
                if frames.count > 0 {
                    features.snares = beats.map {
                        DrumDetector.snare(&frames, at: $0, frameDuration: envelope.hopDuration)
                    }
                    features.kicks = beats.map {
                        DrumDetector.kick(&frames, at: $0, frameDuration: envelope.hopDuration)
                    }
                }
            }
            return features
        }
    }

    /// The part of a beat, from its start, over which the bass feature reads the low band's level.
    static let bassSpan = 0.5

    /// An instance with the given features (tests).
    init(features: [Feature]) {
        self.features = features
    }

    /// `values` less their mean, over their standard deviation, clipped to ±4 (so one crash cannot
    /// outweigh a song). `floor` is a deviation that counts as measurement noise (the hop grid's
    /// rounding, a resampler's ripple): it is added to the standard deviation in quadrature, so values
    /// that vary only by about that much come out near 0 instead of being blown up to unit variance.
    static func standardised(_ values: [Double], floor: Double = 0) -> [Double] {
        guard values.count >= 2 else { return values.map { _ in 0 } }
        let mean = values.reduce(0, +) / Double(values.count)
        let variance = values.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(values.count)
        let deviation = (variance + floor * floor).squareRoot()
        guard deviation > 1e-9 else { return values.map { _ in 0 } }
        return values.map { min(4, max(-4, ($0 - mean) / deviation)) }
    }

    /// `values` with the first and the last replaced by the mean of the others: those two beats lack
    /// a neighbour on one side (no audio before the first beat's span, the song's tail after the
    /// last), which would otherwise make them stand out and pull the bar phase towards or away from them.
    static func interior(_ values: [Double]) -> [Double] {
        guard values.count >= 3 else { return values }
        let inner = values[1..<(values.count - 1)]
        let mean = inner.reduce(0, +) / Double(inner.count)
        var result = values
        result[0] = mean
        result[values.count - 1] = mean
        return result
    }

    /// A tenth of the mean of `values`: the noise floor of a strength that varies by less than 10 %.
    static func tenthOfMean(_ values: [Double]) -> Double {
        values.isEmpty ? 0 : 0.1 * abs(values.reduce(0, +) / Double(values.count))
    }
}
