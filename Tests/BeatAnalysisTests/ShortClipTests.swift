// SPDX-License-Identifier: GPL-3.0-or-later

import BeatMapKit
import Foundation
import TestSynth
import Testing

@testable import BeatAnalysis

/// A clip of five to eight beats (a game's jingle or fanfare) is scored with fewer neighbours per beat
/// (``GridFitter/shortestSalienceRadius``) instead of not at all, and mapped with a warning that it
/// holds too few beats to be sure of (``AnalysisWarning/fewBeats(count:seconds:)``).
@Suite("Short clips")
struct ShortClipTests {
    @Test("seven beats on their onsets stand out; four are too few to score")
    func salienceOfFewBeats() {
        let beats = (0..<7).map { 0.5 + Double($0) * 0.75 }
        let novelty = OnsetCurves.peaks(beats.map { (time: $0, height: Float(1)) }, seconds: 6)
        let fitter = GridFitter()
        #expect(fitter.trackedScore(beats, novelty: novelty, span: 0.5...5.0) >= GridFitter.minimumSalience)
        #expect(fitter.trackedScore(Array(beats.prefix(4)), novelty: novelty, span: 0.5...2.75) == 0)
    }

    /// The drum groove at `bpm` from 0.3 s, `seconds` long, analysed: its map, or the analysis error.
    static func analysed(bpm: Double, seconds: Double) throws -> (Result<AnalyzedBeatMap, AnalysisError>, [Double]) {
        let folder = try TestTracks.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("clip.wav")
        let (track, hits) = TestTracks.drums(bpm: bpm, start: 0.3, duration: seconds)
        try WAVWriter.write(track, to: url)
        let mapURL = folder.appendingPathComponent("clip.beatmap.json")
        return (Result { () throws(AnalysisError) in try BeatMapAnalyzer().analyze(url, mapURL: mapURL) }, hits)
    }

    @Test("a six-second groove of seven beats is mapped, with a warning that it has few beats")
    func shortGrooveIsMapped() throws {
        let (outcome, hits) = try Self.analysed(bpm: 76, seconds: 6)
        let result = try outcome.get()
        // Every hit has its beat (the last one's ring may get one more, as any ringing ending does).
        try #require(result.map.beats.count >= hits.count)
        for (beat, hit) in zip(result.map.beats, hits) {
            #expect(abs(beat - hit) < 0.01, "beat at \(beat) s, hit at \(hit) s")
        }
        #expect(result.warnings.contains(.fewBeats(count: result.map.beats.count, seconds: 6)))
    }

    @Test("a map of nine beats or more has no such warning")
    func longerGrooveHasNoWarning() throws {
        let result = try Self.analysed(bpm: 120, seconds: 8).0.get()
        #expect(result.map.beats.count >= GridFit.fewestSureBeats)
        #expect(!result.warnings.contains { if case .fewBeats = $0 { true } else { false } })
    }

    @Test("three seconds of four beats are too few: a clear error that says so, with the --bpm remedy")
    func fourBeatsAreTooFew() throws {
        let (outcome, _) = try Self.analysed(bpm: 80, seconds: 3)
        guard case .failure(let error) = outcome, case .noBeat(let path, .tooFewBeats(let count)) = error else {
            Issue.record("expected .tooFewBeats, got \(outcome)")
            return
        }
        #expect(path.hasSuffix("clip.wav"))
        #expect(count < 5)
        #expect(error.remedy == .forceTempo)
        #expect(error.localizedDescription.contains("too short to tell a beat"))
    }
}
