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

    @Test("a six-second groove of seven beats is mapped, with a warning that it has few beats")
    func shortGrooveIsMapped() throws {
        let folder = try TestTracks.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("jingle.wav")
        let (track, truth) = TestTracks.drums(bpm: 76, start: 0.3, duration: 6)
        try WAVWriter.write(track, to: url)
        let result = try BeatMapAnalyzer().analyze(url, mapURL: folder.appendingPathComponent("jingle.beatmap.json"))
        // Every hit has its beat (the last one's ring may get one more, as any ringing ending does).
        try #require(result.map.beats.count >= truth.count)
        for (beat, hit) in zip(result.map.beats, truth) {
            #expect(abs(beat - hit) < 0.01, "beat at \(beat) s, hit at \(hit) s")
        }
        #expect(result.warnings.contains(.fewBeats(count: result.map.beats.count, seconds: 6)))
    }

    @Test("a map of nine beats or more has no such warning")
    func longerGrooveHasNoWarning() throws {
        let folder = try TestTracks.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("groove.wav")
        try WAVWriter.write(TestTracks.drums(bpm: 120, start: 0.3, duration: 8).track, to: url)
        let result = try BeatMapAnalyzer().analyze(url, mapURL: folder.appendingPathComponent("groove.beatmap.json"))
        #expect(result.map.beats.count >= GridFit.fewestSureBeats)
        #expect(!result.warnings.contains { if case .fewBeats = $0 { true } else { false } })
    }

    @Test("three seconds of four beats are too few: a clear error that says so, with the --bpm remedy")
    func fourBeatsAreTooFew() throws {
        let folder = try TestTracks.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("sting.wav")
        try WAVWriter.write(TestTracks.drums(bpm: 80, start: 0.3, duration: 3).track, to: url)
        do {
            let result = try BeatMapAnalyzer().analyze(url, mapURL: folder.appendingPathComponent("sting.beatmap.json"))
            Issue.record("expected an error, got a map of \(result.map.beats.count) beats")
        } catch {
            guard case .noBeat(let path, .tooFewBeats(let count)) = error else {
                Issue.record("expected .tooFewBeats, got \(error)")
                return
            }
            #expect(path.hasSuffix("sting.wav"))
            #expect(count < 5)
            #expect(error.remedy == .forceTempo)
            #expect(error.localizedDescription.contains("too short to tell a beat"))
        }
    }
}
