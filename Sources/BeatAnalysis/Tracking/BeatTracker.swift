// SPDX-License-Identifier: GPL-3.0-or-later

import Foundation

/// A global beat tracker: the most likely sequence of beats through the whole song, found offline by
/// the Viterbi algorithm over a hidden Markov model of tempo and beat phase (a "beat pointer" model in
/// the manner of Whiteley, Cemgil and Godsill's bar pointer and of Krebs, Böck and Widmer's efficient
/// state space; the implementation is ours).
///
/// The hidden state is (tempo `j`, phase `p`): the beat interval `τⱼ` in envelope frames and how many
/// frames have passed since the last beat. Each frame the phase advances by one; after `τⱼ` frames a
/// beat falls and the next interval `τₖ` is chosen with probability ∝ `exp(−λ·|τₖ/τⱼ − 1|)`, so the
/// tempo may drift or step but strongly prefers to stay. The first few frames of each interval are
/// "beat" states, which are likely where the onset strength is high; the others where it is low.
///
/// Only the tempo range around the song's tempo is tracked (the metric level is chosen before), and the
/// model is evaluated without materialising the state space: within an interval the state is only
/// shifted, so each tempo's phases live in a ring buffer and only the beat states are touched per
/// frame. Memory is one byte per tempo and frame for the back-pointers at beat entries.
struct BeatTracker {
    /// Tempo-change stiffness `λ`: a change of the interval by a fraction `x` costs `λ·x` in log
    /// probability per beat. 100 is the value Krebs et al. found best for pop music at 100 fps.
    var transitionLambda = 100.0
    /// The share of each interval that counts as "beat" states (1/16, as in Krebs et al.).
    var beatShare = 1.0 / 16.0
    /// The odds of an onset in a beat state against one in a non-beat state.
    var observationLambda = 16.0

    /// Tracks beats through `activation` (one value per frame in 0…1, frame `i` at time
    /// `startTime + i × frameDuration`), with beat intervals between `shortest` and `longest` seconds.
    /// `preferred` (seconds) weights the initial tempo gently towards it. `allowed`, when given, says for
    /// each frame which beat intervals (seconds) a beat falling there may start; the others are closed
    /// there, so the range can move through the song (``GridFitter/allowedIntervals(at:period:range:regions:)``).
    /// Returns the beat frames
    /// (fractional: the centre of the beat states, refined to the activation's peak nearby).
    func track(
        activation: [Float], frameDuration: Double, shortest: Double, longest: Double, preferred: Double?,
        allowed: ((Int) -> ClosedRange<Double>)? = nil
    )
        -> [Double]
    {
        let frames = activation.count
        let minInterval = max(2, Int((shortest / frameDuration).rounded(.down)))
        let maxInterval = max(minInterval, Int((longest / frameDuration).rounded(.up)))
        guard frames > 2 * maxInterval else { return [] }
        let intervals = Array(minInterval...maxInterval)
        let tempi = intervals.count
        guard tempi <= 255 else { return [] }

        // Log transition probabilities between intervals at a beat, each row normalised.
        var transition = [Double](repeating: -Double.infinity, count: tempi * tempi)
        for from in 0..<tempi {
            var row = [Double](repeating: 0, count: tempi)
            var total = 0.0
            for to in 0..<tempi {
                let ratio = Double(intervals[to]) / Double(intervals[from])
                row[to] = -transitionLambda * abs(ratio - 1)
                total += exp(row[to])
            }
            let norm = log(total)
            for to in 0..<tempi where row[to] - norm > -30 {
                transition[from * tempi + to] = row[to] - norm
            }
        }

        // Per-frame bonus of a beat state over a non-beat state: log(o) − log((1 − o)/(λ − 1)).
        let lambda = observationLambda
        func bonus(_ frame: Int) -> Double {
            let o = min(0.999, max(0.001, Double(activation[frame])))
            return log(o) - log((1 - o) / (lambda - 1))
        }
        let widths = intervals.map { max(1, Int((Double($0) * beatShare).rounded())) }

        // Rings: tempo j's phase p at frame t is stored at offset[j] + (t − p) mod τⱼ.
        var offsets = [Int](repeating: 0, count: tempi)
        var total = 0
        for j in 0..<tempi {
            offsets[j] = total
            total += intervals[j]
        }
        var rings = [Double](repeating: 0, count: total)
        // Initial distribution: uniform over phases, gently towards the preferred tempo.
        for j in 0..<tempi {
            var prior = 0.0
            if let preferred {
                let deviation = log(Double(intervals[j]) * frameDuration / preferred)
                prior = -0.5 * pow(deviation / 0.1, 2)
            }
            for p in 0..<intervals[j] {
                rings[offsets[j] + p] = prior - log(Double(total)) + (p < widths[j] ? bonus(0) : 0)
            }
        }
        // Frame 0: phase p sits at (0 − p) mod τ. Re-store so that indices follow the rule.
        for j in 0..<tempi {
            let tau = intervals[j]
            var ring = [Double](repeating: 0, count: tau)
            for p in 0..<tau { ring[(tau - p) % tau] = rings[offsets[j] + p] }
            for index in 0..<tau { rings[offsets[j] + index] = ring[index] }
        }

        // Per frame, the intervals (in frames) a beat falling there may start.
        let allowedFrames: [ClosedRange<Int>]? = allowed.map { window in
            (0..<frames).map { frame in
                let range = window(frame)
                let low = Int((range.lowerBound / frameDuration).rounded(.down))
                let high = max(low, Int((range.upperBound / frameDuration).rounded(.up)))
                return low...high
            }
        }
        // For each interval entered, the intervals it can be entered from (a finite log transition),
        // in order: the others can never win the maximum below, so only these are read (session 91:
        // the maximum over every pair was most of the global tracker's cost). The order is kept, so
        // ties go to the same interval as before. One flat list: interval `to`'s sources are at
        // `sourceStarts[to]..<sourceStarts[to + 1]`.
        var sources: [Int] = []
        var sourceStarts = [0]
        for to in 0..<tempi {
            sources += (0..<tempi).filter { transition[$0 * tempi + to] > -Double.infinity }
            sourceStarts.append(sources.count)
        }
        var pointers = [UInt8](repeating: 0, count: frames * tempi)
        var last = [Double](repeating: 0, count: tempi)
        var entering = [Double](repeating: 0, count: tempi)
        rings.withUnsafeMutableBufferPointer { ring in
            pointers.withUnsafeMutableBufferPointer { pointer in
                transition.withUnsafeBufferPointer { trans in
                    for t in 1..<frames {
                        // The last phase of each tempo at t − 1 sits where phase 0 will sit at t.
                        for j in 0..<tempi { last[j] = ring[offsets[j] + t % intervals[j]] }
                        for to in 0..<tempi {
                            var best = -Double.infinity
                            var arg = 0
                            for source in sourceStarts[to]..<sourceStarts[to + 1] {
                                let from = sources[source]
                                let value = last[from] + trans[from * tempi + to]
                                if value > best {
                                    best = value
                                    arg = from
                                }
                            }
                            entering[to] = best
                            pointer[t * tempi + to] = UInt8(arg)
                        }
                        if let window = allowedFrames?[t] {
                            for to in 0..<tempi where !window.contains(intervals[to]) {
                                entering[to] = -Double.infinity
                            }
                        }
                        let b = bonus(t)
                        for j in 0..<tempi {
                            let tau = intervals[j]
                            let base = offsets[j]
                            ring[base + t % tau] = entering[j] + b
                            // Phases 1 ..< width are beat states too.
                            for p in 1..<max(1, widths[j]) {
                                ring[base + (t - p + tau * 4) % tau] += b
                            }
                        }
                    }
                }
            }
        }

        // The best final state.
        let end = frames - 1
        var bestValue = -Double.infinity
        var bestTempo = 0
        var bestPhase = 0
        for j in 0..<tempi {
            let tau = intervals[j]
            for p in 0..<tau {
                let value = rings[offsets[j] + ((end - p) % tau + tau) % tau]
                if value > bestValue {
                    bestValue = value
                    bestTempo = j
                    bestPhase = p
                }
            }
        }
        // Back-track through the beat entries.
        var beatFrames: [(frame: Int, width: Int)] = []
        var tempo = bestTempo
        var beat = end - bestPhase
        while beat >= 0 {
            beatFrames.append((beat, widths[tempo]))
            if beat == 0 { break }
            let previous = Int(pointers[beat * tempi + tempo])
            beat -= intervals[previous]
            tempo = previous
        }
        beatFrames.reverse()
        // The beat's place: the strongest activation within the beat states, between frames.
        return beatFrames.map { frame, width in
            var peak = frame
            for candidate in frame..<min(frames, frame + width) where activation[candidate] > activation[peak] {
                peak = candidate
            }
            guard peak > 0, peak + 1 < frames else { return Double(peak) }
            let left = Double(activation[peak - 1])
            let centre = Double(activation[peak])
            let right = Double(activation[peak + 1])
            let curvature = left - 2 * centre + right
            guard curvature < 0 else { return Double(peak) }
            return Double(peak) + min(0.5, max(-0.5, 0.5 * (left - right) / curvature))
        }
    }
}
