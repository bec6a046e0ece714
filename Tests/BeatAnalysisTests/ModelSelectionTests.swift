// SPDX-License-Identifier: GPL-3.0-or-later

import BeatMapKit
import Foundation
import TestSynth
import Testing

@testable import BeatAnalysis

/// The simplest model the music supports: one grid, tempo segments only for real tempo changes, and
/// followed beats where no grid explains them.
@Suite("Model selection and tracking")
struct ModelSelectionTests {
    /// A drum groove (kick on 1 and 3, snare on 2 and 4, hats on eighths) on the beats `beats`, with
    /// `halfTime` beats (a range of beat numbers) played half-time: kick on 1, snare on 3, no hats.
    static func groove(_ beats: [Double], halfTime: Range<Int> = 0..<0, silent: Range<Int> = 0..<0) -> SynthTrack {
        var track = SynthTrack(duration: (beats.last ?? 0) + 1.5, sampleRate: 44_100)
        for (index, t) in beats.enumerated() where !silent.contains(index) {
            let next = index + 1 < beats.count ? beats[index + 1] : t + (t - beats[max(0, index - 1)])
            if halfTime.contains(index) {
                if index % 4 == 0 { track.add(.kick, at: t, gain: 0.6) }
                if index % 4 == 2 { track.add(.snare, at: t, gain: 0.6) }
                continue
            }
            track.add(index % 2 == 0 ? .kick : .snare, at: t, gain: 0.6)
            track.add(.hiHat, at: t, gain: 0.25)
            track.add(.hiHat, at: (t + next) / 2, gain: 0.2)
        }
        return track
    }

    /// Beats from 0.5 s to `end` at 120 BPM ± 3 %, the tempo a sine of `cycle` seconds.
    static func drifting(until end: Double, cycle: Double) -> [Double] {
        var beats: [Double] = []
        var time = 0.5
        while time < end {
            beats.append(time)
            time += 0.5 / (1 + 0.03 * sin(2 * Double.pi * time / cycle))
        }
        return beats
    }

    @Test("a groove that drifts ±3 % (no click track) is followed beat by beat, every beat within 20 ms")
    func drift() throws {
        // Tempo 120 BPM ± 3 % over a 20-second cycle.
        let beats = Self.drifting(until: 70, cycle: 20)
        let (result, folder) = try GridFitTests.analyse(Self.groove(beats))
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(result.fit.method == .follow)
        let (errors, missed) = GridFitTests.compare(result.fit.beats, beats)
        #expect(missed <= 2)
        let sorted = errors.map(abs).sorted()
        let p95 = try #require(sorted.isEmpty ? nil : sorted[Int(Double(sorted.count - 1) * 0.95)])
        #expect(p95 <= 0.020, "95th percentile error \(p95 * 1000) ms")
    }

    @Test("a half-time section and a drumless breakdown are not tempo changes: one 140 BPM grid")
    func halfTimeAndBreakdown() throws {
        let beats = (0..<200).map { 0.5 + Double($0) * 60 / 140 }
        let track = Self.groove(beats, halfTime: 64..<96, silent: 128..<144)
        let (result, folder) = try GridFitTests.analyse(track)
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(result.fit.segments.count == 1, "segments \(result.fit.segments.map(\.bpm))")
        let bpm = try #require(result.fit.segments.first?.bpm)
        #expect(abs(bpm - 140) <= 0.01)
        #expect(result.fit.method == .gridConstant)
    }

    @Test("--grid follow follows a constant groove too, and every mode's map validates")
    func followMode() throws {
        let (track, truth) = TestTracks.drums(bpm: 126, start: 0.4, duration: 30)
        for mode in [GridMode.follow, .constant, .segments, .auto] {
            var options = BeatMapAnalysisOptions()
            options.grid.mode = mode
            let (result, folder) = try GridFitTests.analyse(track, options: options)
            defer { try? FileManager.default.removeItem(at: folder) }
            #expect(GridFitTests.compare(result.fit.beats, truth).missed <= 1, "mode \(mode)")
            let text = try BeatMapCodec.encode(result.map)
            let report = Validator().validate(
                bytes: Array(text.utf8), path: "m",
                audio: AudioFacts(duration: result.map.audio.duration, sampleRate: 44_100))
            #expect(report.errorCount == 0, "mode \(mode): \(report.findings.map(\.message))")
        }
    }

    @Test("a map the validator rejects is an internal error, never handed out")
    func internalError() throws {
        let map = BeatMap(audio: AudioReference(duration: 10), tempo: nil, beats: [1, 2, 1.5, 3])
        #expect(throws: AnalysisError.self) { try BeatMapAnalyzer.check(map, path: "song.wav") }
        do {
            try BeatMapAnalyzer.check(map, path: "song.wav")
        } catch {
            guard case .internalError(let path, let findings) = error else {
                Issue.record("expected .internalError, got \(error)")
                return
            }
            #expect(path == "song.wav")
            #expect(findings.contains { $0.contains("non-monotonic") })
        }
    }

    /// The grid of `line` over `observations[range]`, and how many of them lie within 15 ms of it, as
    /// the selector's `fit` counts them.
    static func linePiece(_ observations: [BeatObservation], _ range: Range<Int>, _ line: BeatLine) -> (
        piece: GridPiece, explained: Int
    ) {
        let grid = GridFitter.Grid(anchor: line.time(0), period: line.period)
        let count = observations[range].filter { abs($0.time - line.time($0.index)) <= 0.015 }.count
        let span = observations[range.lowerBound].time...observations[range.upperBound - 1].time
        return (GridPiece(span: span, grid: grid), count)
    }

    /// The pieces of a grid model; `nil` for followed beats or a ramp.
    static func gridPieces(_ model: GridModel) -> [GridPiece]? {
        if case .grid(let pieces) = model { return pieces }
        return nil
    }

    @Test("the selector keeps one line for one tempo, two for a step, and follows a drift")
    func selector() {
        func observations(_ time: (Int) -> Double, count: Int) -> [BeatObservation] {
            (0..<count).map { BeatObservation(index: $0, time: time($0)) }
        }
        func explained(_ obs: [BeatObservation], _ range: Range<Int>, _ line: BeatLine) -> (GridPiece, Int) {
            Self.linePiece(obs, range, line)
        }
        let selector = GridModelSelector()
        let steady = observations({ 0.5 + Double($0) * 0.5 + ($0 % 3 == 0 ? 0.002 : -0.001) }, count: 200)
        let one = selector.select(
            steady, tracked: 200, fit: { explained(steady, $0, $1) }, trackedBeatsAreStronger: { _ in true })
        guard case .grid(let pieces) = one else {
            Issue.record("expected a grid, got \(one)")
            return
        }
        #expect(pieces.count == 1)

        let step = observations({ $0 < 100 ? Double($0) * 0.5 : 50 + Double($0 - 100) * 0.45 }, count: 200)
        let two = selector.select(
            step, tracked: 200, fit: { explained(step, $0, $1) }, trackedBeatsAreStronger: { _ in true })
        guard case .grid(let stepPieces) = two else {
            Issue.record("expected a grid, got \(two)")
            return
        }
        #expect(stepPieces.count == 2)

        var time = 0.0
        var drifting: [BeatObservation] = []
        for index in 0..<300 {
            drifting.append(BeatObservation(index: index, time: time))
            time += 0.5 * (1 + 0.03 * sin(Double(index) / 10))
        }
        let followed = selector.select(
            drifting, tracked: 300, fit: { explained(drifting, $0, $1) }, trackedBeatsAreStronger: { _ in true })
        #expect(followed == .follow)
    }

    @Test("a tempo piece whose grid carries less onset strength than the song's one grid is no tempo change")
    func onsetsDecideTempoPieces() throws {
        // 120 beats at 170 BPM, 60 at 136 (a figure in fives the tracker followed through a section of
        // a backing track), 120 at 170 again, each stretch a clean line.
        let fast = 60.0 / 170
        let slow = 60.0 / 136
        var observations: [BeatObservation] = []
        var time = 0.0
        for index in 0..<300 {
            observations.append(BeatObservation(index: index, time: time))
            time += index >= 120 && index < 180 ? slow : fast
        }
        func explained(_ line: BeatLine, in range: Range<Int>) -> (piece: GridPiece, explained: Int) {
            Self.linePiece(observations, range, line)
        }
        func grown(_ piece: GridPiece) -> (piece: GridPiece, explained: Int) {
            let span = (observations.first?.time ?? 0)...(observations.last?.time ?? 0)
            let count = observations.filter { piece.grid.explains($0.time) }.count
            return (GridPiece(span: span, grid: piece.grid), count)
        }
        let pieces = Self.gridPieces
        let selector = GridModelSelector()
        // Without the onsets' say, the section is a tempo segment of its own.
        let asTracked = try #require(
            pieces(
                selector.select(
                    observations, tracked: 300, fit: { explained($1, in: $0) }, trackedBeatsAreStronger: { _ in false },
                    extend: grown)))
        #expect(asTracked.count == 3)
        // The 170 BPM grid carries more onset strength over the section than its own 136 BPM points: one grid.
        let onsetsForTheSong = try #require(
            pieces(
                selector.select(
                    observations, tracked: 300, fit: { explained($1, in: $0) }, trackedBeatsAreStronger: { _ in false },
                    extend: grown, onsetStrength: { grid, _ in abs(grid.period - fast) < 0.001 ? 2 : 1 })))
        let one = try #require(onsetsForTheSong.count == 1 ? onsetsForTheSong.first : nil)
        #expect(abs(one.grid.period - fast) < 0.001)
        // A real change, whose own points carry more there, stays.
        let onsetsForTheChange = try #require(
            pieces(
                selector.select(
                    observations, tracked: 300, fit: { explained($1, in: $0) }, trackedBeatsAreStronger: { _ in false },
                    extend: grown, onsetStrength: { grid, _ in abs(grid.period - slow) < 0.001 ? 2 : 1 })))
        #expect(onsetsForTheChange.count == 3)
    }

    @Test("a stretch the tracker wandered through is no tempo change when the song's grid explains the rest")
    func grownPiece() throws {
        // 30 tracked beats wandering around 0.42 s (a tracker's detour through an intro), then 160
        // steady beats 0.357 s apart: the line through all of them explains hardly any.
        var observations: [BeatObservation] = []
        var time = 0.0
        for index in 0..<190 {
            observations.append(BeatObservation(index: index, time: time))
            time += index < 30 ? 0.42 + (index % 2 == 0 ? 0.06 : -0.06) : 0.357
        }
        func explained(_ line: BeatLine, in range: Range<Int>) -> (piece: GridPiece, explained: Int) {
            Self.linePiece(observations, range, line)
        }
        // the piece's grid over every observation, as GridFitter.grown grows it
        func grown(_ piece: GridPiece) -> (piece: GridPiece, explained: Int) {
            let line = BeatLine(origin: 0, anchor: piece.grid.anchor, period: piece.grid.period)
            return explained(line, in: 0..<observations.count)
        }
        let grid = Self.gridPieces
        let selector = GridModelSelector()
        let without = try #require(
            grid(
                selector.select(
                    observations, tracked: 190, fit: { explained($1, in: $0) },
                    trackedBeatsAreStronger: { _ in false })))
        #expect(without.count == 2, "without a grown piece, the detour is a tempo segment")
        let with = try #require(
            grid(
                selector.select(
                    observations, tracked: 190, fit: { explained($1, in: $0) },
                    trackedBeatsAreStronger: { _ in false }, extend: grown)))
        let only = try #require(with.count == 1 ? with.first : nil, "pieces \(with.map(\.grid.period))")
        #expect(abs(only.grid.period - 0.357) < 1e-9)

        // A real step between two clean grids stays two tempo segments however well one grid grows.
        observations = (0..<200).map {
            BeatObservation(index: $0, time: $0 < 100 ? Double($0) * 0.5 : 50 + Double($0 - 100) * 0.45)
        }
        let step = try #require(
            grid(
                selector.select(
                    observations, tracked: 200, fit: { explained($1, in: $0) },
                    trackedBeatsAreStronger: { _ in false }, extend: grown)))
        #expect(step.count == 2)
    }

    /// Tracked beats on a 90 BPM grid (0.5 s + k · 2⁄3 s) for `before` beats, then `detour` beats
    /// `interval` seconds apart (0.78 s: a tracker running at 77 BPM through an intro or a break,
    /// through every phase of the grid), then back on the grid for `after` beats.
    static func detour(before: Int, detour: Int, after: Int, interval: Double = 0.78) -> [Double] {
        let period = 2.0 / 3.0
        var beats = (0..<before).map { 0.5 + Double($0) * period }
        var time = (beats.last ?? 0.5) + interval
        for _ in 0..<detour {
            beats.append(time)
            time += interval
        }
        let resume = ((time - 0.5) / period).rounded(.up)
        beats += (0..<after).map { 0.5 + (resume + Double($0)) * period }
        return beats
    }

    @Test("a grid holds apart when it explains two runs of 32 tracked beats, and a drift never does")
    func holdsApart() {
        let grid = [GridPiece(span: 0...300, grid: GridFitter.Grid(anchor: 0.5, period: 2.0 / 3.0))]
        #expect(GridModelSelector.holdsApart(Self.detour(before: 40, detour: 45, after: 40), pieces: grid, run: 32))
        // One run of 32 and one of 31 do not.
        #expect(!GridModelSelector.holdsApart(Self.detour(before: 40, detour: 45, after: 31), pieces: grid, run: 32))
        // Two tempo segments are not asked.
        let two = grid + [GridPiece(span: 300...400, grid: GridFitter.Grid(anchor: 300, period: 0.5))]
        #expect(!GridModelSelector.holdsApart(Self.detour(before: 40, detour: 45, after: 40), pieces: two, run: 32))
        // Tempo drifting ±3 % over 30 s around 120 BPM (the corpus's drifting copies): the grid at its
        // mean tempo holds for a dozen beats at a time at most.
        let drifting = Self.drifting(until: 300, cycle: 30)
        for phase in stride(from: 0.0, to: 0.5, by: 0.05) {
            let mean = [GridPiece(span: 0...300, grid: GridFitter.Grid(anchor: 0.5 + phase, period: 0.5))]
            #expect(!GridModelSelector.holdsApart(drifting, pieces: mean, run: 32), "phase \(phase)")
        }
    }

    @Test("a grid at a drift's fastest tempo holds where the drift dwells, and does not hold apart")
    func driftsCrestDoesNotHoldApart() throws {
        // Tempo drifting ±3 % about 120 BPM in a cycle of 120 s: it dwells near 123.6 BPM around 30 s,
        // 150 s and 270 s, and is slower everywhere else.
        let drifting = Self.drifting(until: 300, cycle: 120)
        // The grid through the beats nearest the first two crests, at the crest's tempo (the whole beats
        // the drift loses between them rounded off).
        let first = try #require(drifting.min { abs($0 - 30) < abs($1 - 30) })
        let second = try #require(drifting.min { abs($0 - 150) < abs($1 - 150) })
        let crestPeriod = (second - first) / ((second - first) / (0.5 / 1.03)).rounded()
        let crest = [GridPiece(span: 0...300, grid: GridFitter.Grid(anchor: first, period: crestPeriod))]
        // Each crest holds the grid for more than 32 beats...
        let grid = try #require(crest.first?.grid)
        var runs = 0
        var length = 0
        for beat in drifting {
            let distance = abs(beat - grid.time(grid.nearestIndex(to: beat)))
            length = distance <= GridModelSelector.explainTolerance ? length + 1 : 0
            if length == 32 { runs += 1 }
        }
        #expect(runs >= 2)
        // ...but between them the beats lie some 3 % off its tempo: a drift, not a detour.
        #expect(!GridModelSelector.holdsApart(drifting, pieces: crest, run: 32))
        // A detour that keeps the pulse on the off-beats, or one at 77 BPM, is the tracker's.
        let period = 2.0 / 3.0
        let before: [Double] = (0..<40).map { 0.5 + Double($0) * period }
        let detour: [Double] = (40..<85).map { 0.5 + (Double($0) + 0.5) * period }
        let after: [Double] = (86..<126).map { 0.5 + Double($0) * period }
        let offBeats = before + detour + after
        let ninety = [GridPiece(span: 0...300, grid: GridFitter.Grid(anchor: 0.5, period: period))]
        #expect(GridModelSelector.holdsApart(offBeats, pieces: ninety, run: 32))
        #expect(GridModelSelector.holdsApart(Self.detour(before: 40, detour: 45, after: 40), pieces: ninety, run: 32))
        // Beats 5 % slower than the grid between its two runs lie within a ±3 % drift's whole swing
        // (6 %) of it: a drift, not a detour at another pulse (session 63; with the edge at 4 % this
        // held apart).
        let slower = Self.detour(before: 40, detour: 45, after: 40, interval: period * 1.05)
        #expect(!GridModelSelector.holdsApart(slower, pieces: ninety, run: 32))
        // 9 % slower is another pulse.
        let other = Self.detour(before: 40, detour: 45, after: 40, interval: period * 1.09)
        #expect(GridModelSelector.holdsApart(other, pieces: ninety, run: 32))
    }

    @Test("a grid holds where a tracker puts two beats in five on a strum a few tens of milliseconds off it")
    func holdsApartThroughJitter() {
        let period = 60.0 / 95.0
        let grid = [GridPiece(span: 0...400, grid: GridFitter.Grid(anchor: 0.5, period: period))]
        // A played recording at 95 BPM (Frets on Fire's "Feelings"): the beats the drums mark lie within
        // a few milliseconds of the grid, and two in five are taken on a strum 20 to 50 ms off it, early
        // or late. Two such stretches of 60 beats around a detour of 45 beats at 77 BPM.
        let offsets = [0.020, -0.035, 0.045, -0.025, 0.030, 0.050, -0.040]
        func played(from first: Int, count: Int) -> [Double] {
            (0..<count).map { step in
                let beat = 0.5 + Double(first + step) * period
                return step % 5 == 1 || step % 5 == 3 ? beat + offsets[step % offsets.count] : beat + 0.003
            }
        }
        var tracked = played(from: 0, count: 60)
        var time = (tracked.last ?? 0) + 0.78
        for _ in 0..<45 {
            tracked.append(time)
            time += 0.78
        }
        let resume = Int(((time - 0.5) / period).rounded(.up))
        tracked += played(from: resume, count: 60)
        // Each beat on its own: no run of 32 within 15 ms.
        var longest = 0
        var length = 0
        for beat in tracked {
            let within = abs(beat - 0.5 - ((beat - 0.5) / period).rounded() * period) <= 0.015
            length = within ? length + 1 : 0
            longest = max(longest, length)
        }
        #expect(longest < 32)
        #expect(GridModelSelector.holdsApart(tracked, pieces: grid, run: 32))
        // Beat by beat only (the first choice of a model, before the beats are repaired), it does not.
        #expect(!GridModelSelector.holdsApart(tracked, pieces: grid, run: 32, neighbourhoods: false))
        // One such stretch holds once, which is not two places.
        #expect(!GridModelSelector.holdsApart(Array(tracked.prefix(105)), pieces: grid, run: 32))
    }

    @Test("a grid explains a beat with its interval: beats of another tempo that meet its points count not")
    func explainedWithItsInterval() {
        // 48 beats at 90 BPM from 0 s, then 30 at 120 BPM from 32 s, the first of which is the 90 BPM
        // grid's 49th point. Of the 120 BPM beats, every fourth meets a point of the 90 BPM grid.
        let first: [Double] = (0..<48).map { Double($0) * 2 / 3 }
        let second: [Double] = (0..<30).map { 32 + Double($0) * 0.5 }
        let tracked = first + second
        let grid = GridFitter.Grid(anchor: 0, period: 2.0 / 3.0)
        #expect(tracked.filter { grid.explains($0) }.count == 56)
        #expect(GridFitter.explained(tracked, by: grid, in: 0...50) == 49)
        // The span still bounds the count: the first 24 beats.
        #expect(GridFitter.explained(tracked, by: grid, in: 0...15.5) == 24)
        // A beat the tracker slipped by 50 ms costs that beat, not its neighbours.
        var slipped: [Double] = (0..<40).map { Double($0) * 0.5 }
        slipped[20] += 0.05
        #expect(GridFitter.explained(slipped, by: GridFitter.Grid(anchor: 0, period: 0.5), in: 0...20) == 39)
    }

    @Test("beats a tracker took through a detour are not followed where the grid holds on both sides of it")
    func detourIsNotFollowed() {
        let tracked = Self.detour(before: 40, detour: 45, after: 40)
        let observations = tracked.enumerated().map { BeatObservation(index: $0.offset, time: $0.element) }
        let grid = GridFitter.Grid(anchor: 0.5, period: 2.0 / 3.0)
        // As GridFitter.piece fits a grid: the period and phase of the music, and the tracked beats it
        // explains counted as it counts them (80 of 125: under two thirds).
        func fit(_ range: Range<Int>, _ line: BeatLine) -> (piece: GridPiece, explained: Int) {
            let span = observations[range.lowerBound].time...observations[range.upperBound - 1].time
            return (GridPiece(span: span, grid: grid), GridFitter.explained(tracked, by: grid, in: span))
        }
        let selector = GridModelSelector()
        let without = selector.select(
            observations, tracked: tracked.count, fit: fit, trackedBeatsAreStronger: { _ in true })
        #expect(without == .follow, "two thirds are not explained: without the rule the beats are followed")
        let with = selector.select(
            observations, tracked: tracked.count, fit: fit, trackedBeatsAreStronger: { _ in true },
            holdsApart: { GridModelSelector.holdsApart(tracked, pieces: $0, run: selector.minimumPieceBeats) })
        guard case .grid(let pieces) = with else {
            Issue.record("expected one grid, got \(with)")
            return
        }
        #expect(pieces.count == 1)
        #expect(pieces.first?.grid == grid)
    }

    @Test("the tracker follows pulses through a tempo step and finds every one")
    func tracker() throws {
        let hop = 512.0 / 44_100
        var activation = [Float](repeating: 0.02, count: 3000)
        var pulses: [Double] = []
        var t = 0.3
        while t < Double(activation.count - 2) * hop {
            pulses.append(t)
            activation[Int((t / hop).rounded())] = 1
            t += t < 15 ? 0.5 : 0.44
        }
        let frames = BeatTracker().track(
            activation: activation, frameDuration: hop, shortest: 0.38, longest: 0.65, preferred: 0.5)
        let beats = frames.map { $0 * hop }
        let (errors, missed) = GridFitTests.compare(beats, pulses)
        #expect(missed == 0)
        #expect(errors.allSatisfy { abs($0) <= hop })
        #expect(beats.count == pulses.count)
    }
}
