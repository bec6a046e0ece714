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
}
