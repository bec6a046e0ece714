// SPDX-License-Identifier: GPL-3.0-or-later

import BeatAnalysis
import BeatAudio
import BeatMapKit
import Foundation
import TestSynth
import Testing

/// The decision of `audio-offbeat` and `audio-metric-level` on the onsets the detector really finds
/// in synthesised drum tracks: correct maps (exact, jittered, a little late) get no verdict, and a map
/// made wrong gets either no verdict or the right one, never another. Set `BEATMAP_CORPUS` to the
/// development corpus (`corpus/synthetic`, from `tools/corpus/make-synthetic.py`) to run it over
/// those tracks too; docs/analyze.md gives the results.
@Suite("Beat strength calibration")
struct BeatStrengthCalibrationTests {
    /// What a map made wrong in a known way may be told.
    enum Reading: Equatable, Sendable {
        case offbeat
        case level(MetricLevel)
    }

    /// A map made of the exact beats, and the only reading it may get (`nil`: none).
    struct Variant: Sendable {
        var name: String
        var expected: Reading?
        var make: @Sendable ([Double]) -> [Double]
    }

    /// The beat `position` (fractional: interpolated) of `beats`, or nil past the last.
    static func interpolate(_ beats: [Double], at position: Double) -> Double? {
        let index = Int(position.rounded(.down))
        guard index >= 0, index < beats.count else { return nil }
        guard index + 1 < beats.count else { return position == Double(index) ? beats[index] : nil }
        return beats[index] + (position - Double(index)) * (beats[index + 1] - beats[index])
    }

    /// Beats every `step` of `beats` from `offset`, shifted by `shift` seconds.
    static func every(_ step: Double, from offset: Double = 0, shift: Double = 0) -> @Sendable ([Double]) -> [Double] {
        { beats in
            stride(from: offset, to: Double(beats.count), by: step).compactMap { interpolate(beats, at: $0) }
                .map { $0 + shift }
        }
    }

    static let variants: [Variant] = [
        Variant(name: "correct", expected: nil, make: every(1)),
        Variant(name: "jittered ±12 ms", expected: nil) { beats in
            var random = SeededRandom(seed: 11)
            return beats.map { $0 + 0.012 * Double(random.signed()) }
        },
        Variant(name: "40 ms late", expected: nil, make: every(1, shift: 0.040)),
        Variant(name: "half a beat out", expected: .offbeat, make: every(1, from: 0.5)),
        Variant(name: "half tempo", expected: .level(.double), make: every(2)),
        Variant(name: "half tempo, second beat", expected: .level(.double), make: every(2, from: 1)),
        Variant(name: "double tempo", expected: .level(.half), make: every(0.5)),
        Variant(name: "3⁄2 the tempo", expected: .level(.twoThirds), make: every(2.0 / 3.0)),
        Variant(name: "⅔ the tempo", expected: .level(.threeHalves), make: every(1.5)),
    ]

    /// A synthesised track: a drum pattern on a beat grid.
    struct Track: Sendable, CustomTestStringConvertible {
        var name: String
        var bpm: Double
        /// Adds the sounds of beat `index` at `time`, `period` seconds long.
        var beat: @Sendable (inout SynthTrack, _ time: Double, _ period: Double, _ index: Int) -> Void

        var testDescription: String { name }

        func render() -> (track: SynthTrack, beats: [Double]) {
            var track = SynthTrack(duration: 30, sampleRate: 44_100)
            let period = 60 / bpm
            let beats = Array(stride(from: 0.5, to: 29.5, by: period))
            for (index, time) in beats.enumerated() { beat(&track, time, period, index) }
            return (track, beats)
        }
    }

    static let tracks: [Track] = [
        Track(name: "rock 100", bpm: 100) { track, t, p, i in
            track.add(i % 2 == 0 ? .kick : .snare, at: t, gain: 0.6)
            track.add(.hiHat, at: t, gain: 0.25)
            track.add(.hiHat, at: t + p / 2, gain: 0.2)
        },
        Track(name: "rock 176", bpm: 176) { track, t, p, i in
            track.add(i % 2 == 0 ? .kick : .snare, at: t, gain: 0.6)
            track.add(.hiHat, at: t, gain: 0.25)
            track.add(.hiHat, at: t + p / 2, gain: 0.2)
        },
        Track(name: "sixteenth-note hi-hats 110", bpm: 110) { track, t, p, i in
            track.add(i % 2 == 0 ? .kick : .snare, at: t, gain: 0.6)
            for k in 0..<4 { track.add(.hiHat, at: t + Double(k) * p / 4, gain: [0.25, 0.18, 0.22, 0.18][k]) }
        },
        Track(name: "house 124", bpm: 124) { track, t, p, i in
            track.add(.kick, at: t, gain: 0.6)
            if i % 2 == 1 { track.add(.snare, at: t, gain: 0.4) }
            track.add(.hiHat, at: t + p / 2, gain: 0.5)
        },
        Track(name: "kick and snare alike 100", bpm: 100) { track, t, p, _ in
            track.add(.snare, at: t, gain: 0.6)
            for k in 1..<4 { track.add(.hiHat, at: t + Double(k) * p / 4, gain: 0.3) }
        },
        Track(name: "one-drop 75", bpm: 75) { track, t, p, i in
            if i % 4 == 2 {
                track.add(.kick, at: t, gain: 0.6)
                track.add(.snare, at: t, gain: 0.5)
            }
            track.add(.hiHat, at: t, gain: 0.15)
            track.add(.hiHat, at: t + p / 2, gain: 0.5)
            track.add(.snare, at: t + p / 2, gain: 0.25)
        },
        Track(name: "syncopated 96", bpm: 96) { track, t, p, i in
            if i % 4 == 0 { track.add(.kick, at: t, gain: 0.6) }
            if i % 2 == 1 { track.add(.snare, at: t, gain: 0.6) }
            if i % 4 == 1 || i % 4 == 2 { track.add(.kick, at: t + p / 2, gain: 0.6) }
            track.add(.hiHat, at: t, gain: 0.2)
            track.add(.hiHat, at: t + p / 2, gain: 0.2)
        },
        Track(name: "shuffle 90", bpm: 90) { track, t, p, i in
            track.add(i % 2 == 0 ? .kick : .snare, at: t, gain: 0.6)
            track.add(.hiHat, at: t, gain: 0.25)
            track.add(.hiHat, at: t + p * 2 / 3, gain: 0.2)
        },
        Track(name: "quarter notes 120", bpm: 120) { track, t, _, i in
            track.add(i % 2 == 0 ? .kick : .snare, at: t, gain: 0.6)
            track.add(.hiHat, at: t, gain: 0.25)
        },
    ]

    /// The reading `beats` get against `facts`, as a `Reading`.
    static func reading(_ beats: [Double], _ facts: AudioFacts) -> Reading?? {
        guard
            let profile = BeatStrengthProfile(
                beats: beats, onsets: facts.onsets ?? [], strengths: facts.onsetStrengths ?? [])
        else { return .none }
        switch profile.verdict {
        case .none: return .some(nil)
        case .offbeat: return .some(.offbeat)
        case .level(let level, _): return .some(.level(level))
        }
    }

    /// Checks every variant of `beats` against the onsets of the audio file at `url`; returns the
    /// readings found, by variant name.
    static func check(_ url: URL, beats: [Double], name: String) throws -> [String: Reading?] {
        let facts = try OnsetAudioInspector().inspect(url, computeHash: false)
        var found: [String: Reading?] = [:]
        for variant in variants {
            // A map too short to judge has no reading at all.
            guard let reading = reading(variant.make(beats), facts) else { continue }
            found[variant.name] = reading
            if let reading {
                #expect(reading == variant.expected, "\(name), \(variant.name): \(reading)")
            }
        }
        return found
    }

    @Test("correct maps get no reading, wrong maps none or the right one", arguments: tracks)
    func synthesised(track: Track) throws {
        let folder = try TestTracks.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (audio, beats) = track.render()
        let url = folder.appendingPathComponent("track.wav")
        try WAVWriter.write(audio, to: url)
        let found = try Self.check(url, beats: beats, name: track.name)
        #expect(found["correct"] == .some(nil), "\(track.name)")
    }

    @Test("the tests' drum track: each wrong map gets the right reading")
    func drums() throws {
        let folder = try TestTracks.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (audio, beats) = TestTracks.drums(bpm: 125, start: 0.4, duration: 30)
        let url = folder.appendingPathComponent("drums.wav")
        try WAVWriter.write(audio, to: url)
        let found = try Self.check(url, beats: beats, name: "drums 125")
        for variant in Self.variants where variant.name != "double tempo" && variant.name != "half tempo, second beat" {
            #expect(found[variant.name] == .some(variant.expected), "\(variant.name)")
        }
    }

    @Test(
        "the development corpus: correct maps get no reading, wrong maps none or the right one",
        .enabled(if: ProcessInfo.processInfo.environment["BEATMAP_CORPUS"] != nil))
    func corpus() throws {
        let folder = URL(fileURLWithPath: ProcessInfo.processInfo.environment["BEATMAP_CORPUS"] ?? "")
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".wav") }
        #expect(!names.isEmpty)
        for name in names.sorted() {
            let text = try String(
                contentsOf: folder.appendingPathComponent(String(name.dropLast(4)) + ".beats"), encoding: .utf8)
            let beats = text.split(separator: "\n").compactMap { Double($0) }
            let found = try Self.check(folder.appendingPathComponent(name), beats: beats, name: name)
            #expect(found["correct"] == .some(nil), "\(name)")
        }
    }
}
