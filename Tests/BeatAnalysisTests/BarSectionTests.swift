// SPDX-License-Identifier: GPL-3.0-or-later

import BeatMapKit
import Foundation
import Testing

@testable import BeatAnalysis

/// Bar sections of followed beats: where a tracker lost or gained a beat, the bar phase after it
/// changes, and the estimate says so; one phase throughout, or one odd bar, gives no sections.
@Suite("Bar sections")
struct BarSectionTests {
    /// Kick and bass features of `count` followed beats in 4/4 whose downbeats are the beats in
    /// `downbeats`, with a deterministic ripple (±0.6, about the accent itself) so no two bars are alike and one bar alone
    /// says little, as in a real mix.
    static func features(count: Int, downbeats: Set<Int>) -> BarFeatures {
        func ripple(_ index: Int, _ salt: Int) -> Double {
            Double((index * 7_919 + salt * 104_729) % 61) / 61 * 1.2 - 0.6
        }
        let kick = (0..<count).map { (downbeats.contains($0) ? 1.0 : 0.35) + ripple($0, 1) }
        let bass = (0..<count).map { (downbeats.contains($0) ? 1.0 : 0.5) + ripple($0, 2) }
        return BarFeatures(features: [
            .init(name: "kick", values: BarFeatures.standardised(kick), sign: 1),
            .init(name: "bass", values: BarFeatures.standardised(bass), sign: 1),
        ])
    }

    @Test("a beat lost after 20 bars moves every later bar line: a second section starts there")
    func lostBeat() throws {
        // Bars from beat 0 to beat 79; the tracker then lost a beat, so the next downbeat is beat 83.
        let downbeats = Set(Array(stride(from: 0, to: 80, by: 4)) + Array(stride(from: 83, to: 160, by: 4)))
        let features = Self.features(count: 160, downbeats: downbeats)
        let estimator = MeterEstimator(meters: [4])
        var estimate = try #require(estimator.estimate(features))
        estimate.sections = estimator.sections(features, estimate: estimate)
        let sections = estimate.sections
        try #require(sections.count == 2)
        #expect(sections[0] == BarSection(start: 0, position: 0))
        // The new phase may begin anywhere in the bar that straddles the lost beat.
        #expect((77...83).contains(sections[1].start))
        for index in 0..<160 {
            #expect(estimate.isDownbeat(index) == downbeats.contains(index), "beat \(index)")
        }
    }

    @Test("one bar phase throughout, even after a pickup, gives no sections")
    func onePhase() throws {
        let downbeats = Set(stride(from: 1, to: 160, by: 4))
        let features = Self.features(count: 160, downbeats: downbeats)
        let estimator = MeterEstimator(meters: [4])
        let estimate = try #require(estimator.estimate(features))
        #expect(estimate.firstDownbeat == 1)
        #expect(estimator.sections(features, estimate: estimate) == [])
    }

    @Test("one bar with its accent a beat late is not worth a section: it costs log n + log 3 nats")
    func oddBar() throws {
        var downbeats = Set(stride(from: 0, to: 160, by: 4))
        downbeats.remove(80)
        downbeats.insert(81)
        let features = Self.features(count: 160, downbeats: downbeats)
        let estimator = MeterEstimator(meters: [4])
        let estimate = try #require(estimator.estimate(features))
        #expect(estimate.firstDownbeat == 0)
        #expect(estimator.sections(features, estimate: estimate) == [])
    }

    @Test("followed beats carry the meter on the downbeats of each section")
    func layout() throws {
        let beats = (0..<12).map { 1 + Double($0) * 0.5 }
        var estimate = BarEstimate(beatsPerBar: 4, firstDownbeat: 0, phaseConfidence: 0.9, meterConfidence: 0.9)
        estimate.sections = [BarSection(start: 0, position: 0), BarSection(start: 6, position: 1)]
        let followed = beats.map { FittedSegment(bpm: 120, firstBeat: $0, beats: [$0]) }
        let tempo = BarLayout.tempo(followed, bars: estimate)
        #expect(tempo.map(\.beatsPerBar) == [4, nil, nil, nil, 4, nil, nil, nil, nil, 4, nil, nil])
        let map = BeatMap(
            audio: AudioReference(path: nil, duration: 10, sampleRate: nil, sha256: nil), tempo: tempo, beats: beats)
        // The beat the tracker gained is a bar of its own (a bar starts on every 4th beat of the last
        // one), then bars of four again from the new downbeat.
        #expect(BarPositions.positions(of: map) == [1, 2, 3, 4, 1, 2, 3, 4, 1, 1, 2, 3])
    }

    /// Kick on beats 1 and 3 (`thirdKick` on 3, 1.0 on 1, 0.2 elsewhere) and a harmony change on beat 1
    /// (`change` against 0.2) of `count` beats whose downbeats are `downbeats`, with a smaller ripple
    /// (±0.2): the downbeats against the rest cannot tell beat 1 from beat 3 where the kick leans on
    /// 3; the template can.
    static func halfBarFeatures(count: Int, downbeats: Set<Int>, thirdKick: Double, change: Double = 0.5) -> BarFeatures
    {
        func ripple(_ index: Int, _ salt: Int) -> Double {
            Double((index * 7_919 + salt * 104_729) % 61) / 61 * 0.4 - 0.2
        }
        let thirds = Set(downbeats.map { $0 + 2 })
        let kick = (0..<count).map {
            (downbeats.contains($0) ? 1.0 : thirds.contains($0) ? thirdKick : 0.2) + ripple($0, 1)
        }
        let harmony = (0..<count).map { (downbeats.contains($0) ? change : 0.2) + ripple($0, 3) }
        return BarFeatures(features: [
            .init(name: "kick", values: BarFeatures.standardised(kick), sign: 1),
            .init(name: "harmony1", values: BarFeatures.standardised(harmony), sign: 1),
        ])
    }

    @Test("a section two beats out moves to the half of the bar the template reads over its own beats")
    func halfBarByTemplate() throws {
        let features = Self.halfBarFeatures(count: 40, downbeats: Set(stride(from: 0, to: 40, by: 4)), thirdKick: 1.3)
        // One section of all 40 beats whose first beat is beat 3 of its bar (downbeats on 2, 6, …).
        let moved = MeterEstimator.halvesByTemplate(
            [BarSection(start: 0, position: 2)], features: features, minimumBeats: 12)
        #expect(moved == [BarSection(start: 0, position: 0)])
        // A section at the template's half stays.
        let kept = MeterEstimator.halvesByTemplate(
            [BarSection(start: 0, position: 0)], features: features, minimumBeats: 12)
        #expect(kept == [BarSection(start: 0, position: 0)])
    }

    @Test("a one-drop over a section's beats decides its half bar after the template, as for the song")
    func halfBarByOneDrop() throws {
        // The bar features lean on beat 2 of each four (where a one-drop's kick falls): the template
        // reads the downbeats there.
        var features = Self.halfBarFeatures(count: 64, downbeats: Set(stride(from: 2, to: 64, by: 4)), thirdKick: 1.3)
        let atTheKick = [BarSection(start: 0, position: 2)]
        try #require(MeterEstimator.halvesByTemplate(atTheKick, features: features, minimumBeats: 12) == atTheKick)
        // The learned kick and snare together alone on beat 2: a one-drop, whose bars start on beat 0.
        features.kicks = OneDropTests.drum([0.05, 0.1, 0.9, 0.1])
        features.snares = OneDropTests.drum([0.2, 0.3, 0.8, 0.3], wobble: 3)
        #expect(
            MeterEstimator.halvesByTemplate(atTheKick, features: features, minimumBeats: 12)
                == [BarSection(start: 0, position: 0)])
        #expect(
            MeterEstimator.halvesByTemplate([BarSection(start: 0, position: 0)], features: features, minimumBeats: 12)
                == [BarSection(start: 0, position: 0)])
        // A one-drop a beat from the section's phase leaves the half to the template.
        features.kicks = OneDropTests.drum([0.1, 0.9, 0.1, 0.05])
        features.snares = OneDropTests.drum([0.3, 0.8, 0.3, 0.2], wobble: 3)
        #expect(MeterEstimator.oneDropPhase(features, in: 0..<64) == 3)
        #expect(MeterEstimator.halvesByTemplate(atTheKick, features: features, minimumBeats: 12) == atTheKick)
        // No drums read: the template's half.
        features.kicks = []
        #expect(MeterEstimator.oneDropPhase(features, in: 0..<64) == nil)
    }

    @Test("a section shorter than an estimate needs keeps its phase; one moved onto its neighbour's merges")
    func halfBarShortAndMerged() throws {
        let features = Self.halfBarFeatures(count: 40, downbeats: Set(stride(from: 0, to: 40, by: 4)), thirdKick: 1.3)
        // Beats 0–7 at the right phase, then 8–39 two beats out: the long one moves and joins the first.
        let merged = MeterEstimator.halvesByTemplate(
            [BarSection(start: 0, position: 0), BarSection(start: 8, position: 2)], features: features,
            minimumBeats: 12)
        #expect(merged == [BarSection(start: 0, position: 0)])
        // Beats 0–7 two beats out are fewer than 12: they stay as the path put them.
        let short = MeterEstimator.halvesByTemplate(
            [BarSection(start: 0, position: 2), BarSection(start: 8, position: 0)], features: features,
            minimumBeats: 12)
        #expect(short == [BarSection(start: 0, position: 2), BarSection(start: 8, position: 0)])
    }

    @Test("followed beats whose kick leans on beat 3 keep the estimate's bars: no section a half bar out")
    func kickOnThree() throws {
        let downbeats = Set(stride(from: 0, to: 160, by: 4))
        // The kick leans on beat 3 and the harmony changes only a little on beat 1: the likelihoods
        // prefer beat 3, the template beat 1 (by 0.13), and the sections' path alone took beat 3.
        let features = Self.halfBarFeatures(count: 160, downbeats: downbeats, thirdKick: 1.3, change: 0.25)
        let estimator = MeterEstimator(meters: [4])
        var estimate = try #require(estimator.estimate(features))
        #expect(estimate.firstDownbeat == 0)
        estimate.sections = estimator.sections(features, estimate: estimate)
        #expect(estimate.sections == [])
        for index in 0..<160 {
            #expect(estimate.isDownbeat(index) == downbeats.contains(index), "beat \(index)")
        }
    }

    /// Two grid segments of beats half a second apart: 42 beats (ten bars of 4/4 and one of 2/4), then
    /// 64 from beat 42, whose features `later` gives (over its own beats, counted from its first).
    /// Over the first, the kick and bass of `features(count:downbeats:)` on every fourth beat from 0.
    static func twoSegments(later: @escaping @Sendable (Int) -> BarFeatures) -> (
        segments: [FittedSegment], read: ([Double]) -> BarFeatures
    ) {
        let beats = (0..<106).map { Double($0) * 0.5 }
        let segments = [
            FittedSegment(bpm: 120, firstBeat: 0, beats: Array(beats[0..<42])),
            FittedSegment(bpm: 120, firstBeat: 21, beats: Array(beats[42...])),
        ]
        let read: ([Double]) -> BarFeatures = { run in
            if let first = run.first, first >= 21 { return later(run.count) }
            return Self.features(count: run.count, downbeats: Set(stride(from: 0, to: run.count, by: 4)))
        }
        return (segments, read)
    }

    @Test("a later grid segment whose own kick marks its first beat as a downbeat starts its own bars")
    func segmentRestarts() throws {
        let (segments, read) = Self.twoSegments { count in
            Self.features(count: count, downbeats: Set(stride(from: 0, to: count, by: 4)))
        }
        let estimate = BarEstimate(beatsPerBar: 4, firstDownbeat: 0, phaseConfidence: 0.9, meterConfidence: 0.9)
        let sections = MeterEstimator(meters: [4]).segmentSections(segments, features: read, estimate: estimate)
        // The running count puts beat 42 at position 2 (after the 2/4 bar); the segment's accents pay
        // for a downbeat there.
        #expect(sections == [BarSection(start: 0, position: 0), BarSection(start: 42, position: 0)])
    }

    @Test("a later grid segment restarts its bars only where its likelihoods prefer that to the running count")
    func segmentKeepsTheCount() throws {
        // The later segment's kick leans on the beats two after its first (the running count's
        // downbeats: 44, 48, …) and its harmony changes a little on its first: the template alone
        // would put a downbeat on its first beat, the likelihoods prefer the running count's phase.
        let (segments, read) = Self.twoSegments { count in
            Self.halfBarFeatures(
                count: count, downbeats: Set(stride(from: 0, to: count, by: 4)), thirdKick: 1.3, change: 0.25)
        }
        let later = read(Array(segments[1].beats))
        let own = try #require(MeterEstimator(meters: [4]).estimate(later))
        #expect(own.firstDownbeat == 0)
        #expect(MeterEstimator.restartGain(later, meter: 4, runningPhase: 2) < log(3))
        let estimate = BarEstimate(beatsPerBar: 4, firstDownbeat: 0, phaseConfidence: 0.9, meterConfidence: 0.9)
        #expect(MeterEstimator(meters: [4]).segmentSections(segments, features: read, estimate: estimate) == [])
    }
}
