// SPDX-License-Identifier: GPL-3.0-or-later

import Foundation
import Testing

@testable import BeatAnalysis

/// Followed beats that left the tempo for 4⁄3 of it and came back are carried through at the tempo on
/// either side (``GridFitter/repairingDetours(_:novelty:peaks:span:)``).
@Suite("Detours")
struct DetourTests {
    /// Beats of a song that speeds up evenly by 3 % over 150 beats (0.5 s to 0.485 s), from 1 s.
    static let drifting: [Double] = {
        var beats = [1.0]
        for index in 0..<150 { beats.append(beats[index] + 0.5 - 0.015 * Double(index) / 150) }
        return beats
    }()

    /// The onsets of `truth`, loud outside `section` and soft inside it (a hi-hat), and inside it a
    /// loud dotted figure: one onset every three quarters of a beat from the section's first beat.
    static func onsets(_ truth: [Double], dotted section: ClosedRange<Double>) -> (Novelty, [OnsetPeak]) {
        var onsets = truth.map { (time: $0, height: Float(section.contains($0) ? 0.3 : 1)) }
        if let start = truth.first(where: { section.contains($0) }) {
            var time = start
            while time < section.upperBound {
                onsets.append((time: time, height: 1))
                time += 0.75 * 0.495
            }
        }
        let novelty = OnsetCurves.peaks(onsets.sorted { $0.time < $1.time }, seconds: 80)
        return (novelty, novelty.envelope.peaks())
    }

    /// The tracker's beats: `truth`, except inside `section`, where they follow the dotted figure.
    static func detoured(_ truth: [Double], _ section: ClosedRange<Double>) -> [Double] {
        let inside = truth.filter { section.contains($0) }
        guard let first = inside.first, let last = inside.last else { return truth }
        var dotted: [Double] = []
        var time = first
        while time < last + 0.2 {
            dotted.append(time)
            time += 0.75 * 0.495
        }
        return (truth.filter { $0 < first } + dotted + truth.filter { $0 > last + 0.2 }).sorted()
    }

    /// `beats` repaired, with an onset at each of them and nowhere else.
    static func repairedOnItsOwnOnsets(_ beats: [Double]) -> [Double] {
        let novelty = OnsetCurves.peaks(beats.map { (time: $0, height: Float(1)) }, seconds: 80)
        return GridFitter().repairingDetours(beats, novelty: novelty, peaks: novelty.envelope.peaks(), span: 1...75)
    }

    @Test("a detour to 4⁄3 on a dotted figure, in a drifting song, is carried through on its beats")
    func detourCarriedThrough() throws {
        let section = 30.0...45.0
        let (novelty, peaks) = Self.onsets(Self.drifting, dotted: section)
        let tracked = Self.detoured(Self.drifting, section)
        #expect(tracked.count > Self.drifting.count)
        let repaired = GridFitter().repairingDetours(tracked, novelty: novelty, peaks: peaks, span: 1...75)
        try #require(repaired.count == Self.drifting.count)
        for (beat, truth) in zip(repaired, Self.drifting) {
            #expect(abs(beat - truth) < 0.02)
        }
    }

    @Test("a song that really changes tempo by 4⁄3 and does not come back keeps its beats")
    func realChangeKept() {
        var truth = (0..<80).map { 1 + Double($0) * 0.5 }
        while let last = truth.last, last < 75 { truth.append(last + 0.375) }
        #expect(Self.repairedOnItsOwnOnsets(truth) == truth)
    }

    @Test("a section at 4⁄3 that comes back to another tempo is a change, not a detour")
    func otherTempoAfterKept() {
        // 120 BPM to 30 s, 160 BPM to 45 s, then 100 BPM.
        var truth = (0..<59).map { 1 + Double($0) * 0.5 }
        while let last = truth.last, last < 45 { truth.append(last + 0.375) }
        while let last = truth.last, last < 75 { truth.append(last + 0.6) }
        #expect(Self.repairedOnItsOwnOnsets(truth) == truth)
    }

    @Test("beats that keep their tempo are returned as they are")
    func steadyUntouched() {
        let (novelty, peaks) = Self.onsets(Self.drifting, dotted: 100...101)
        #expect(
            GridFitter().repairingDetours(Self.drifting, novelty: novelty, peaks: peaks, span: 1...75)
                == Self.drifting)
    }
}
