// SPDX-License-Identifier: GPL-3.0-or-later

import BeatMapKit
import Foundation

extension MeterEstimator {
    /// The fewest beats a later tempo segment needs for its own bar phase to be read: 32, eight bars
    /// of 4/4, as many as a tempo segment needs to exist (``GridModelSelector/minimumPieceBeats``).
    static let fewestSegmentBeats = 32

    /// Where the bars of a map of grid tempo segments start again: at the first beat of each later
    /// segment that is a downbeat by its own beats' evidence (`features` reads a run of beats,
    /// ``BarFeatures/reader(_:)``). Returns `[]` when no segment starts bars
    /// of its own (`estimate`'s one phase then holds throughout).
    ///
    /// Why: a tempo change of a grid map is a real one (``GridModelSelector``), and where the tempo
    /// changes a new piece of music often starts: a medley's next song, a section in another tempo.
    /// Its bars need not continue the count of the music before it, so each segment's phase is read
    /// from its own beats (the meter stays the song's).
    ///
    /// How: the first segment keeps the phase estimated from all the beats (the most evidence there
    /// is). Each later segment with at least ``fewestSegmentBeats`` beats is estimated alone (its own
    /// features, the song's meter, the likelihoods and, in 4/4, the template, as for a song); where
    /// that puts a downbeat at its first beat and the bars so far do not, its bars start there —
    /// if its own likelihoods prefer that phase to the running count's by more than `log(M − 1)`
    /// nats (``restartGain(_:meter:runningPhase:)``), what naming another position costs in the
    /// sections' description length: the bars run on through a tempo change unless the segment's
    /// evidence pays for a new phase, and the template may pick a restart the likelihoods do not
    /// prefer (docs/bars-log.md, session 79).
    /// Nowhere else: in the map a segment that carries a meter has a downbeat at its `time`
    /// (``BarLayout/tempo(_:bars:)``), and a tempo change inside a bar is rare. A song that speeds up
    /// at a point that is not a bar line keeps its one phase when its later segments say so.
    func segmentSections(
        _ segments: [FittedSegment], features: ([Double]) -> BarFeatures, estimate: BarEstimate
    ) -> [BarSection] {
        let meter = estimate.beatsPerBar
        guard meter >= 2, segments.count > 1 else { return [] }
        let alone = MeterEstimator(meters: [meter])
        // The bar position of the first beat of the segment being read, under the bars so far.
        var position = ((0 - estimate.firstDownbeat) % meter + meter) % meter
        var sections = [BarSection(start: 0, position: position)]
        var first = 0
        for (index, segment) in segments.enumerated() {
            defer {
                first += segment.beats.count
                position = (position + segment.beats.count) % meter
            }
            guard index > 0, position != 0, segment.beats.count >= Self.fewestSegmentBeats else { continue }
            let read = features(segment.beats)
            guard let own = alone.estimate(read), own.firstDownbeat == 0,
                Self.restartGain(read, meter: meter, runningPhase: (meter - position) % meter) > log(Double(meter - 1))
            else { continue }
            position = 0
            sections.append(BarSection(start: first, position: 0))
        }
        return sections.count > 1 ? sections : []
    }

    /// How much better a downbeat on the first of `features`' beats explains them than the running
    /// count's phase (its first downbeat at index `runningPhase`): the difference of the two phases'
    /// log-likelihoods (``logLikelihood(_:meter:phase:)``, summed over the features, untempered as
    /// the sections' evidence is), in nats.
    static func restartGain(_ features: BarFeatures, meter: Int, runningPhase: Int) -> Double {
        var gain = 0.0
        for feature in features.features {
            gain +=
                logLikelihood(feature, meter: meter, phase: 0)
                - logLikelihood(feature, meter: meter, phase: runningPhase)
        }
        return gain
    }
}
