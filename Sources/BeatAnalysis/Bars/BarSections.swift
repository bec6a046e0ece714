// SPDX-License-Identifier: GPL-3.0-or-later

import Foundation

extension MeterEstimator {
    /// Times the bar sections are read again with the accents of the sections found (the first read
    /// takes them from the one phase of the whole song).
    static let sectionPasses = 2

    /// Where the bar phase of followed beats changes: the most likely bar position of every beat, the
    /// positions advancing one per beat except where a new section starts (the Viterbi path of a
    /// hidden Markov model over the positions in the bar).
    ///
    /// Why: a tracker that follows the beats one by one can lose a beat or add one (at a break, or
    /// where it slipped onto the off-beats and was put back), and every bar line after that point is
    /// then a beat out — one phase for the whole song, however well chosen, is right only up to there.
    ///
    /// How: each beat's evidence for being a downbeat is the log-likelihood ratio of its features
    /// under the two Gaussians of `estimate`'s split (downbeats and the rest: their means and shared
    /// variance, per feature that leans the expected way). A new section costs what it takes to say
    /// where it starts and which of the other positions it starts at — `log n + log(meter − 1)` nats,
    /// a description-length penalty, not a threshold fitted to songs — so it appears only where its
    /// bars' accents pay for it. The evidence is not tempered as the estimate's confidences are: so
    /// tempered, a section would need some 70 bars of a real mix's accents to pay for itself, longer
    /// than the sections of a song (on the train split no followed song got one); untempered, about
    /// 18. A single odd bar, with accents as uneven as a mix's, does not pay (`BarSectionTests`). The
    /// accents are then read again from the sections found, ``sectionPasses`` times in all (a song
    /// whose phase changed halfway has its accents blurred in the one-phase estimate). In 4/4 the
    /// template then reads each section for the half bar the evidence cannot tell
    /// (``halvesByTemplate(_:features:minimumBeats:)``). Returns `[]` when one phase holds throughout.
    func sections(_ features: BarFeatures, estimate: BarEstimate) -> [BarSection] {
        let meter = estimate.beatsPerBar
        guard meter >= 2, let count = features.features.first?.values.count, count >= 2 * meter else { return [] }
        // Bar position of each beat under one phase.
        var positions = (0..<count).map { (($0 - estimate.firstDownbeat) % meter + meter) % meter }
        let onePhase = [BarSection(start: 0, position: positions[0])]
        var sections = onePhase
        let penalty = log(Double(count)) + log(Double(meter - 1))
        for _ in 0..<Self.sectionPasses {
            let evidence = Self.downbeatEvidence(features, positions: positions)
            let path = Self.viterbi(evidence: evidence, meter: meter, penalty: penalty)
            var found: [BarSection] = []
            for index in path.indices where index == 0 || path[index] != (path[index - 1] + 1) % meter {
                found.append(BarSection(start: index, position: path[index]))
            }
            positions = path
            sections = found
        }
        if meter == 4 { sections = Self.halvesByTemplate(sections, features: features, minimumBeats: minimumBeats) }
        return sections == onePhase ? [] : sections
    }

    /// `sections` (in 4/4) with each one of at least `minimumBeats` beats moved by half a bar where
    /// ``BarTemplate`` over its own beats scores that phase above the section's by
    /// ``BarTemplate/noiseMargin``; neighbours left at one phase merged.
    ///
    /// Why: the sections' evidence is the downbeats against the rest, which tells a downbeat from
    /// the beats beside it (the kick and the bass against the back-beat) but not beat 1 from beat 3
    /// where the kick or the bass marks both alike. The estimate asks the template for that after its
    /// likelihoods; a section is read the same way, on its own beats, and only for the half bar
    /// (docs/bars-log.md, session 79). Sections shorter than the estimate itself needs are left. After
    /// the template, a one-drop read over the section's beats (``OneDrop``) decides the half, as the
    /// estimate reads the song: the template takes a one-drop's beat 3 for beat 1 (docs/bars-log.md,
    /// session 85). A one-drop a beat from the section's phase is left to the template: the sections'
    /// path decides the beat, the template and the one-drop only the half.
    static func halvesByTemplate(_ sections: [BarSection], features: BarFeatures, minimumBeats: Int)
        -> [BarSection]
    {
        guard let count = features.features.first?.values.count else { return sections }
        var moved: [BarSection] = []
        for (index, section) in sections.enumerated() {
            let end = index + 1 < sections.count ? sections[index + 1].start : count
            var position = section.position
            if end - section.start >= minimumBeats {
                let scores = BarTemplate.scores(features, in: section.start..<end)
                // The section's phase within its own beats, and the other half of its bar.
                let phase = (4 - position) % 4
                let other = (phase + 2) % 4
                if scores[other] - scores[phase] >= BarTemplate.noiseMargin { position = (position + 2) % 4 }
                // A one-drop over the section's beats decides the half, as it does the song's.
                if let dropPhase = Self.oneDropPhase(features, in: section.start..<end) {
                    if dropPhase == phase { position = section.position }
                    if dropPhase == other { position = (section.position + 2) % 4 }
                }
            }
            if let last = moved.last, (last.position + section.start - last.start) % 4 == position { continue }
            moved.append(BarSection(start: section.start, position: position))
        }
        return moved
    }

    /// The phase (the section's first downbeat, 0…3 beats from `range`'s start) of a one-drop over
    /// the beats in `range` (``OneDrop``); `nil` where the drums there do not show one.
    static func oneDropPhase(_ features: BarFeatures, in range: Range<Int>) -> Int? {
        guard range.lowerBound >= 0, features.kicks.count >= range.upperBound,
            features.snares.count >= range.upperBound,
            let drop = OneDrop.drop(kicks: Array(features.kicks[range]), snares: Array(features.snares[range]))
        else { return nil }
        return OneDrop.phase(drop: drop)
    }

    /// Per beat, the log-likelihood ratio of "downbeat" over "not" (untempered), from the features' means at
    /// the beats at position 0 of `positions` and at the rest (``logLikelihood(_:meter:phase:)``'s
    /// Gaussians); a feature leaning the unexpected way there counts for nothing.
    static func downbeatEvidence(_ features: BarFeatures, positions: [Int]) -> [Double] {
        var evidence = [Double](repeating: 0, count: positions.count)
        for feature in features.features where feature.values.count == positions.count {
            var sumA = 0.0
            var sumB = 0.0
            var countA = 0.0
            var countB = 0.0
            for (value, position) in zip(feature.values, positions) {
                if position == 0 {
                    sumA += value
                    countA += 1
                } else {
                    sumB += value
                    countB += 1
                }
            }
            guard countA > 0, countB > 0 else { continue }
            let meanA = sumA / countA
            let meanB = sumB / countB
            guard feature.sign * (meanA - meanB) > 0 else { continue }
            var within = 0.0
            for (value, position) in zip(feature.values, positions) {
                let mean = position == 0 ? meanA : meanB
                within += (value - mean) * (value - mean)
            }
            let variance = within / (countA + countB) + noiseVariance
            let weight = (meanA - meanB) / variance
            let middle = (meanA + meanB) / 2
            for index in evidence.indices {
                evidence[index] += weight * (feature.values[index] - middle)
            }
        }
        return evidence
    }

    /// The most likely bar position per beat: `evidence[i]` is gained where beat `i` is at position 0,
    /// positions advance by one per beat, and moving to any other position costs `penalty`. Ties keep
    /// the plain advance, then the lower position.
    static func viterbi(evidence: [Double], meter: Int, penalty: Double) -> [Int] {
        let count = evidence.count
        guard count > 0 else { return [] }
        var score = (0..<meter).map { $0 == 0 ? evidence[0] : 0 }
        // Per beat after the first and position (`index * meter + position`): the position the best
        // path came from.
        var from = [Int](repeating: 0, count: count * meter)
        var next = score
        for index in 1..<count {
            var best = 0
            for position in 1..<meter where score[position] > score[best] { best = position }
            for position in 0..<meter {
                let previous = (position - 1 + meter) % meter
                var value = score[previous]
                from[index * meter + position] = previous
                if score[best] - penalty > value, best != previous {
                    value = score[best] - penalty
                    from[index * meter + position] = best
                }
                next[position] = value + (position == 0 ? evidence[index] : 0)
            }
            swap(&score, &next)
        }
        var position = 0
        for candidate in 1..<meter where score[candidate] > score[position] { position = candidate }
        var path = [Int](repeating: 0, count: count)
        for index in stride(from: count - 1, through: 0, by: -1) {
            path[index] = position
            if index > 0 { position = from[index * meter + position] }
        }
        return path
    }
}
