// SPDX-License-Identifier: GPL-3.0-or-later

import BeatMapKit
import Foundation
import TestSynth
import Testing

@testable import BeatAnalysis

/// `analyze` checks its map against its own onsets as `validate --audio` checks a map
/// (``BeatMapAnalyzer/audioFindings(_:onsets:path:)``), warns of what the audio rules find, and takes
/// the level and half-beat fixes (``BeatMapAnalyzer/takingFixes(_:onsets:audio:path:)``).
@Suite("analyze: its map checked against its own onsets")
struct AudioFindingTests {
    /// `analyze`'s result for the tests' drum track (125 BPM from 0.4 s, 20 s) and its exact beats.
    static func analyzedDrums() throws -> (AnalyzedBeatMap, [Double]) {
        let folder = try TestTracks.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (track, exact) = TestTracks.drums(bpm: 125, start: 0.4, duration: 20)
        let url = folder.appendingPathComponent("drums.wav")
        try WAVWriter.write(track, to: url)
        let result = try BeatMapAnalyzer().analyze(url, mapURL: folder.appendingPathComponent("drums.beatmap.json"))
        return (result, exact)
    }

    @Test("the analyzer's map of a drum track draws no finding; the same beats at half tempo and half a beat out do")
    func drums() throws {
        let (result, exact) = try Self.analyzedDrums()
        let onsets = BeatMapAnalyzer.onsetFacts(result.analysis)
        #expect(!result.warnings.contains { if case .audioFinding = $0 { true } else { false } }, "\(result.warnings)")
        #expect(BeatMapAnalyzer.audioFindings(result.map, onsets: onsets, path: "drums.wav").isEmpty)

        func warning(_ beats: [Double], bpm: Double) throws -> AnalysisWarning {
            var map = result.map
            map.beats = beats.filter { $0 >= 0 && $0 < 20 }
            map.tempo = [TempoSegment(time: try #require(map.beats.first), bpm: bpm)]
            let found = BeatMapAnalyzer.audioFindings(map, onsets: onsets, path: "drums.wav")
            try #require(found.count == 1, "\(found)")
            return found[0]
        }
        let half = try warning(stride(from: 0, to: exact.count, by: 2).map { exact[$0] }, bpm: 62.5)
        #expect(
            half == .audioFinding(ruleID: "audio-metric-level", message: halfMessage(half), fix: .metricLevel(.double)))
        #expect(
            half.description.hasPrefix("checked against its own onsets: [audio-metric-level] the map looks like half"))
        #expect(half.description.hasSuffix("makes the fix (metric level ×2)"))
        let late = try warning(exact.map { $0 + 0.24 }, bpm: 125)
        guard case .audioFinding("audio-offbeat", _, .shiftBeats(let fraction)) = late else {
            Issue.record("expected audio-offbeat, got \(late)")
            return
        }
        #expect(fraction == -0.5)
    }

    @Test("the analysis handed back keeps the drum detector's frames, and its evidence reads them as a fresh copy does")
    func drumFramesHandedBack() throws {
        let (result, exact) = try Self.analyzedDrums()
        #expect(result.analysis.drums.count > 0)
        // The analyzer's own frames, read during the analysis, against a fresh evidence's: the same
        // answers, for the beats and for the beats half a beat out.
        let shared = try #require(BeatMapAnalyzer.onsetFacts(result.analysis).drumEvidence)
        let fresh = AnalysisDrumEvidence(result.analysis)
        let late = exact.map { $0 + 0.24 }
        #expect(shared.drumShift(of: exact) == fresh.drumShift(of: exact))
        #expect(shared.drumShift(of: late) == fresh.drumShift(of: late))
        #expect(fresh.drumShift(of: late) == 0.5)
        #expect(fresh.drumShift(of: exact) == nil)
    }

    @Test("a fit at half tempo is switched to the ×2 level and one half a beat out is moved back; a right fit is kept")
    func takingFixes() throws {
        let (result, exact) = try Self.analyzedDrums()
        let onsets = BeatMapAnalyzer.onsetFacts(result.analysis)
        let audio = result.map.audio
        let (kept, none) = BeatMapAnalyzer.takingFixes(result.fit, onsets: onsets, audio: audio, path: "d")
        #expect(none.isEmpty)
        #expect(kept == result.fit)

        func fit(_ beats: [Double], bpm: Double) throws -> GridFit {
            var fit = result.fit
            fit.beats = beats.filter { $0 >= 0 && $0 < 20 }
            fit.segments = [FittedSegment(bpm: bpm, firstBeat: try #require(fit.beats.first), beats: fit.beats)]
            fit.alternatives = [MetricAlternative(ratio: .double, bpm: 2 * bpm, score: 7.5)]
            fit.score = 4.25
            return fit
        }
        let half = try fit(stride(from: 0, to: exact.count, by: 2).map { exact[$0] }, bpm: 62.5)
        let (doubled, fixes) = BeatMapAnalyzer.takingFixes(half, onsets: onsets, audio: audio, path: "d")
        #expect(fixes.map(\.edit) == [.metricLevel(.double)])
        #expect(doubled.segments.map(\.bpm) == [125])
        try #require(doubled.beats.count >= 2 * half.beats.count - 1)
        #expect(zip(doubled.beats, exact).allSatisfy { abs($0 - $1) < 1e-6 })
        #expect(doubled.score == 7.5)
        #expect(doubled.alternatives == [MetricAlternative(ratio: .half, bpm: 62.5, score: 4.25)])

        let late = try fit(exact.map { $0 + 0.24 }, bpm: 125)
        let (back, shift) = BeatMapAnalyzer.takingFixes(late, onsets: onsets, audio: audio, path: "d")
        #expect(shift.map(\.edit) == [.shiftBeats(fraction: -0.5)])
        #expect(zip(back.beats, exact).allSatisfy { abs($0 - $1) < 1e-6 }, "\(back.beats.prefix(3))")
        #expect(back.alternatives == late.alternatives)
    }

    /// The message of an `audioFinding` warning.
    func halfMessage(_ warning: AnalysisWarning) -> String {
        if case .audioFinding(_, let message, _) = warning { return message }
        return ""
    }
}
