// SPDX-License-Identifier: GPL-3.0-or-later

import BeatMapKit
import Foundation
import TestSynth
import Testing

@testable import BeatAnalysis

/// Meter and bar phase: the estimator on synthesised songs with known bars, its likelihood on made-up
/// features, and how the bars are written into the tempo segments.
@Suite("Bars")
struct BarTests {
    /// A synthesised song: `beats` beats at `bpm` from 0.5 s, the first `pickup` of them a pickup (a
    /// snare on each), then bars of `meter` beats: a kick on the downbeat, a softer kick on beat 3 of a
    /// 4/4 bar, snares on the other beats (softer in 3/4, as a waltz's "pah-pah"), hi-hats on the
    /// eighths and a sine triad held for each bar, the chord changing every bar.
    static func song(bpm: Double, meter: Int, pickup: Int, bars: Int) -> (track: SynthTrack, downbeats: [Double]) {
        var track = SynthTrack(duration: 0.5 + Double(pickup + bars * meter) * 60 / bpm + 2, sampleRate: 44_100)
        let downbeats = add(to: &track, start: 0.5, bpm: bpm, meter: meter, pickup: pickup, bars: bars)
        return (track, downbeats)
    }

    /// Mixes ``song(bpm:meter:pickup:bars:)``'s song into `track` from `start` seconds, and returns its
    /// downbeats.
    static func add(
        to track: inout SynthTrack, start: Double, bpm: Double, meter: Int, pickup: Int, bars: Int
    ) -> [Double] {
        let period = 60 / bpm
        let count = pickup + bars * meter
        let beats = (0..<count).map { start + Double($0) * period }
        var downbeats: [Double] = []
        // C, F, G, A minor, in the octave above middle C (inside the chroma's 300–5000 Hz).
        let chords: [[Double]] = [
            [523.25, 659.26, 783.99], [698.46, 880.00, 1046.50], [783.99, 987.77, 1174.66],
            [880.00, 1046.50, 1318.51],
        ]
        for (index, t) in beats.enumerated() {
            track.add(.hiHat, at: t, gain: 0.2)
            track.add(.hiHat, at: t + period / 2, gain: 0.15)
            guard index >= pickup else {
                track.add(.snare, at: t, gain: 0.4)
                continue
            }
            let position = (index - pickup) % meter
            if position == 0 {
                downbeats.append(t)
                track.add(.kick, at: t, gain: 0.7)
                let chord = chords[((index - pickup) / meter) % chords.count]
                let start = Int((t * 44_100).rounded())
                let length = Int((Double(meter) * period * 44_100).rounded())
                for n in 0..<length where start + n < track.samples.count {
                    let time = Double(n) / 44_100
                    let envelope = min(1, time / 0.01) * exp(-time / 1.5)
                    var value = 0.0
                    for frequency in chord { value += sin(2 * Double.pi * frequency * time) }
                    track.samples[start + n] += Float(0.05 * envelope * value)
                }
            } else if meter == 4, position == 2 {
                track.add(.kick, at: t, gain: 0.45)
            } else {
                track.add(.snare, at: t, gain: meter == 3 ? 0.3 : 0.5)
            }
        }
        return downbeats
    }

    /// The map's beats at bar position 1.
    static func downbeats(of map: BeatMap) -> [Double] {
        zip(map.beats, BarPositions.positions(of: map)).compactMap { $1 == 1 ? $0 : nil }
    }

    /// The share of `truth` with a found downbeat within 50 ms, and of `found` with a true one.
    static func agreement(_ found: [Double], _ truth: [Double]) -> (recall: Double, precision: Double) {
        func share(_ a: [Double], in b: [Double]) -> Double {
            guard !a.isEmpty else { return 0 }
            return Double(a.count { t in b.contains { abs($0 - t) <= 0.05 } }) / Double(a.count)
        }
        return (share(truth, in: found), share(found, in: truth))
    }

    @Test("4/4 at 120 BPM after a one-beat pickup: 4 beats a bar, the tempo anchored on the first downbeat")
    func fourFourWithPickup() throws {
        let (track, truth) = Self.song(bpm: 120, meter: 4, pickup: 1, bars: 20)
        let (result, folder) = try GridFitTests.analyse(track)
        defer { try? FileManager.default.removeItem(at: folder) }
        let tempo = try #require(result.map.tempo?.first)
        #expect(tempo.beatsPerBar == 4)
        let firstDownbeat = try #require(truth.first)
        #expect(abs(tempo.time - firstDownbeat) <= 0.02, "anchor \(tempo.time), first downbeat \(firstDownbeat)")
        let (recall, precision) = Self.agreement(Self.downbeats(of: result.map), truth)
        #expect(recall >= 0.95)
        #expect(precision >= 0.95)
        // The pickup beat is bar position 4.
        let positions = BarPositions.positions(of: result.map)
        let pickupIndex = try #require(result.map.beats.firstIndex { abs($0 - 0.5) <= 0.03 })
        #expect(positions[pickupIndex] == 4)
        guard case .object(let analysis)? = result.map.analysis, case .object(let bars)? = analysis["bars"] else {
            Issue.record("no analysis.bars in the map")
            return
        }
        #expect(bars["beatsPerBar"]?.doubleValue == 4)
        let confidence = try #require(bars["phaseConfidence"]?.doubleValue)
        #expect(confidence > 0.5)
    }

    @Test("a medley: the second song's bars start at the tempo change, not where the first song's count reaches")
    func medleyStartsItsOwnBars() throws {
        // 24 bars of 4/4 at 120 BPM with two beats more (a 2/4 bar at the end), then 16 bars at 150 BPM
        // from the next beat on: counted on from the first song, the second's bar lines would fall on
        // its beats 3. The first song has the more beats, so the song's one phase is its phase.
        let first = 24 * 4 + 2
        let join = 0.5 + Double(first) * 0.5
        var track = SynthTrack(duration: join + 16 * 4 * 0.4 + 2, sampleRate: 44_100)
        var truth = Self.add(to: &track, start: 0.5, bpm: 120, meter: 4, pickup: 0, bars: 24)
        truth += Self.add(to: &track, start: 0.5 + 96 * 0.5, bpm: 120, meter: 2, pickup: 0, bars: 1)
        truth += Self.add(to: &track, start: join, bpm: 150, meter: 4, pickup: 0, bars: 16)
        let (result, folder) = try GridFitTests.analyse(track)
        defer { try? FileManager.default.removeItem(at: folder) }
        let tempo = try #require(result.map.tempo)
        try #require(tempo.count == 2, "tempo \(tempo)")
        let second = try #require(tempo.last)
        #expect(abs(second.time - join) <= 0.02, "second segment at \(second.time), the join at \(join)")
        #expect(second.beatsPerBar == 4)
        let found = Self.downbeats(of: result.map)
        let (recall, precision) = Self.agreement(found, truth)
        #expect(recall >= 0.95, "found \(found)")
        #expect(precision >= 0.95, "found \(found)")
    }

    @Test("a click track has no accent to tell the bars by: bars all the same, starting on a click, unsure")
    func clicks() throws {
        let (track, truth) = TestTracks.clicks(bpm: 128, start: 0.6, duration: 30)
        let (result, folder) = try GridFitTests.analyse(track)
        defer { try? FileManager.default.removeItem(at: folder) }
        let tempo = try #require(result.map.tempo?.first)
        #expect(tempo.beatsPerBar == 4)
        #expect(truth.contains { abs($0 - tempo.time) <= 0.001 })
        guard case .object(let analysis)? = result.map.analysis, case .object(let bars)? = analysis["bars"] else {
            Issue.record("no analysis.bars in the map")
            return
        }
        let confidence = try #require(bars["phaseConfidence"]?.doubleValue)
        #expect(confidence < 0.5)
    }

    @Test("3/4 at 150 BPM (kick on 1, two snares): 3 beats a bar, the downbeats on the kicks")
    func threeFour() throws {
        let (track, truth) = Self.song(bpm: 150, meter: 3, pickup: 0, bars: 30)
        let (result, folder) = try GridFitTests.analyse(track)
        defer { try? FileManager.default.removeItem(at: folder) }
        let tempo = try #require(result.map.tempo?.first)
        #expect(tempo.beatsPerBar == 3)
        let (recall, precision) = Self.agreement(Self.downbeats(of: result.map), truth)
        #expect(recall >= 0.95)
        #expect(precision >= 0.95)
    }

    /// Features of `count` beats whose kick is on every `meter`-th beat from `phase` and whose
    /// non-kick accent is on the beats `accents` after each kick.
    static func features(count: Int, meter: Int, phase: Int, accents: [Int]) -> BarFeatures {
        let kick = (0..<count).map { $0 >= phase && ($0 - phase) % meter == 0 ? 1.0 : 0.0 }
        let accent = (0..<count).map { index in
            let position = ((index - phase) % meter + meter) % meter
            return accents.contains(position) ? 1.0 : 0.0
        }
        return BarFeatures(features: [
            .init(name: "kick", values: BarFeatures.standardised(kick), sign: 1),
            .init(name: "accent", values: BarFeatures.standardised(accent), sign: -1),
        ])
    }

    @Test("the bass is read on the first half of each beat: a note pushed ahead of the downbeat counts for it")
    func bassOnTheBeat() throws {
        // 4/4 at 120 BPM, hops of 10 ms: a root note struck on each downbeat and held half a beat; the
        // other beats a softer note; and a loud note on the swung "and" of 4 (two thirds into beat 4)
        // held into the next downbeat, as a shuffle's walking bass anticipates it.
        let hop = 0.01
        let beats = (0..<32).map { 0.5 + Double($0) * 0.5 }
        var low = [Float](repeating: 0.01, count: 1800)
        for (index, beat) in beats.enumerated() {
            let first = Int((beat / hop).rounded())
            for frame in first..<(first + 25) { low[frame] = index % 4 == 0 ? 1 : 0.5 }
            if index % 4 == 3 {
                for frame in (first + 33)..<(first + 50) { low[frame] = 4 }
            }
        }
        let envelope = OnsetEnvelope(values: [Float](repeating: 0, count: low.count), hopDuration: hop, startTime: 0)
        let features = BarFeatures(
            beats: beats, novelty: Novelty(envelope: envelope), lowNovelty: nil, lowLevels: low,
            chroma: CompactFloats(), hopDuration: hop)
        let bass = try #require(features.features.first { $0.name == "bass" })
        try #require(bass.values.count == beats.count)
        // Inner bars only (the first and last beat stand at the mean).
        for bar in 1..<7 {
            let downbeat = bass.values[bar * 4]
            for offset in 1...3 { #expect(downbeat > bass.values[bar * 4 + offset], "bar \(bar), beat \(offset + 1)") }
        }
    }

    @Test(
        "in 4/4 the bar template chooses beat 1 over beat 3 where the kick lands harder on 3 and the chords change on 1"
    )
    func templateTellsBeatOneFromThree() throws {
        // Kick and bass on beats 1 and 3, harder on 3; the chords change on beat 1, a little.
        let count = 32
        let kickLevels = [0.6, 0, 1, 0]
        let bassLevels = [0.5, 0, 0.8, 0.1]
        let kick = (0..<count).map { index -> Double in kickLevels[index % 4] + 0.05 * Double(index % 3) }
        let bass = (0..<count).map { index -> Double in bassLevels[index % 4] + 0.03 * Double(index % 5) }
        let chordLevels = [0.5, 0.2, 0.25, 0.3]
        let chords = (0..<count).map { index -> Double in
            let wobble = Double((index * 7) % 5) * 0.15 / 4
            return chordLevels[index % 4] + wobble
        }
        let low: [BarFeatures.Feature] = [
            .init(name: "kick", values: BarFeatures.standardised(kick), sign: 1),
            .init(name: "bass", values: BarFeatures.standardised(bass), sign: 1),
        ]
        let byLowBand = try #require(MeterEstimator(meters: [4]).estimate(BarFeatures(features: low)))
        #expect(byLowBand.firstDownbeat == 2)
        // Summed with the low band's, the harmony's likelihood would still lose to beat 3.
        let harmony = BarFeatures.Feature(name: "harmony2", values: BarFeatures.standardised(chords), sign: 1)
        let all = BarFeatures(features: low + [harmony])
        let sums = (0..<4).map { phase in
            all.features.reduce(0) { $0 + MeterEstimator.logLikelihood($1, meter: 4, phase: phase) }
        }
        #expect(sums[2] > sums[0])
        let byHarmony = try #require(MeterEstimator(meters: [4]).estimate(all))
        #expect(byHarmony.firstDownbeat == 0)
    }

    @Test("a near tie in the bar template keeps the likelihoods' phase; a clear lead overrides it")
    func templateMargin() throws {
        // A kick accent on every fourth beat: faint, the template's scores differ by less than its
        // noise margin; clear, by more.
        func features(accent: Double) -> BarFeatures {
            let kick = (0..<32).map { index -> Double in index % 4 == 0 ? accent : 0 }
            return BarFeatures(features: [.init(name: "kick", values: kick, sign: 1)])
        }
        let faint = BarTemplate.scores(features(accent: 0.05))
        try #require(faint.count == 4)
        #expect(faint[0] > faint[1] && faint[0] - faint[1] < BarTemplate.noiseMargin)
        #expect(BarTemplate.phase(features(accent: 0.05), preferred: 1) == 1)
        #expect(BarTemplate.phase(features(accent: 1), preferred: 1) == 0)
    }

    @Test("the generated template weighs each feature's downbeat above its other beats")
    func templateWeights() throws {
        #expect(Set(BarTemplate.weights.keys) == ["kick", "bass", "harmony1", "harmony2"])
        for (name, weights) in BarTemplate.weights {
            try #require(weights.count == 4, "\(name)")
            for position in 1..<4 { #expect(weights[0] > weights[position], "\(name), position \(position + 1)") }
        }
    }

    @Test("a kick every six beats with the snare three beats later is 6/8 counted in eighths, not 3/4")
    func sixEight() throws {
        let estimate = try #require(
            MeterEstimator().estimate(Self.features(count: 60, meter: 6, phase: 2, accents: [3])))
        #expect(estimate.beatsPerBar == 6)
        #expect(estimate.firstDownbeat == 2)
        #expect(estimate.runnerUp?.beatsPerBar == 3)
    }

    @Test("a kick every three beats is 3/4, with 6 as the runner-up and the phase sure")
    func waltzFeatures() throws {
        let estimate = try #require(
            MeterEstimator().estimate(Self.features(count: 48, meter: 3, phase: 1, accents: [1, 2])))
        #expect(estimate.beatsPerBar == 3)
        #expect(estimate.firstDownbeat == 1)
        #expect(estimate.phaseConfidence > 0.9)
    }

    @Test("forced to 4, a waltz's beats still get 4 beats a bar; too few beats give no estimate")
    func forcedAndTooFew() throws {
        let forced = try #require(
            MeterEstimator(meters: [4]).estimate(Self.features(count: 48, meter: 3, phase: 0, accents: [1, 2])))
        #expect(forced.beatsPerBar == 4)
        #expect(forced.runnerUp == nil)
        #expect(MeterEstimator().estimate(Self.features(count: 11, meter: 4, phase: 0, accents: [1, 3])) == nil)
    }

    @Test("bars in the tempo map: a pickup moves the first anchor; followed beats carry the meter on downbeats only")
    func layout() throws {
        let beats = (0..<10).map { 1 + Double($0) * 0.5 }
        let estimate = BarEstimate(
            beatsPerBar: 4, firstDownbeat: 1, phaseConfidence: 0.9, meterConfidence: 0.9, runnerUp: nil)
        let grid = BarLayout.tempo([FittedSegment(bpm: 120, firstBeat: 1, beats: beats)], bars: estimate)
        #expect(grid == [TempoSegment(time: 1.5, bpm: 120, beatsPerBar: 4)])
        let followed = beats.map { FittedSegment(bpm: 120, firstBeat: $0, beats: [$0]) }
        let perBeat = BarLayout.tempo(followed, bars: estimate).map(\.beatsPerBar)
        #expect(perBeat == [nil, 4, nil, nil, nil, 4, nil, nil, nil, 4])
        let map = BeatMap(
            audio: AudioReference(path: nil, duration: 10, sampleRate: nil, sha256: nil),
            tempo: BarLayout.tempo(followed, bars: estimate), beats: beats)
        #expect(BarPositions.positions(of: map) == [nil, 1, 2, 3, 4, 1, 2, 3, 4, 1])
    }
}
