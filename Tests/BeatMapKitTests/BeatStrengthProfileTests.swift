// SPDX-License-Identifier: GPL-3.0-or-later

import BeatMapKit
import Foundation
import Testing

/// The decision behind `audio-offbeat` and `audio-metric-level`, on synthetic onset patterns whose
/// strengths are those the onset detector gives drum tracks: a snare (with its hi-hat) 1.0, a kick
/// 0.8, an off-beat hi-hat 0.45.
@Suite("Beat strength profile")
struct BeatStrengthProfileTests {
    /// A hit at `fraction` of a beat with `strength`.
    typealias Hit = (fraction: Double, strength: Double)

    /// Kick on 1 and 3, snare on 2 and 4, a hi-hat on every eighth note.
    static let rock: [[Hit]] = [[(0, 0.8), (0.5, 0.45)], [(0, 1.0), (0.5, 0.45)]]
    /// Kick and snare on the beats, nothing between.
    static let quarters: [[Hit]] = [[(0, 0.8)], [(0, 1.0)]]
    /// A shuffle: kick and snare on the beats, the hi-hat on the swung eighth (⅔ of a beat).
    static let shuffle: [[Hit]] = [[(0, 0.8), (2.0 / 3.0, 0.45)], [(0, 1.0), (2.0 / 3.0, 0.45)]]
    /// Syncopated: kick on 1 and on the "and" of 2 and 3, snare on 2 and 4, eighth-note hi-hats.
    static let syncopated: [[Hit]] = [
        [(0, 0.8), (0.5, 0.45)], [(0, 1.0), (0.5, 0.8)], [(0, 0.45), (0.5, 0.8)], [(0, 1.0), (0.5, 0.45)],
    ]

    /// The music: `pattern` on `count` beats, as onset times and strengths.
    struct Music {
        var beats: [Double] = []
        var onsets: [Double] = []
        var strengths: [Double] = []

        /// `pattern` on beats `period` apart from `start`, or on the beat times `at` when given.
        init(_ pattern: [[Hit]], start: Double = 1.0, period: Double = 0.5, count: Int = 64, at: [Double]? = nil) {
            beats = at ?? (0..<count).map { start + Double($0) * period }
            for (index, beat) in beats.enumerated() {
                let next = index + 1 < beats.count ? beats[index + 1] : beat + (beat - beats[max(0, index - 1)])
                for hit in pattern[index % pattern.count] {
                    onsets.append(beat + hit.fraction * (next - beat))
                    strengths.append(hit.strength)
                }
            }
        }

        /// A map with a beat every `step` of the music's beats from beat `offset` (fractional steps and
        /// offsets are interpolated between the music's beats), shifted by `shift` seconds.
        func map(step: Double = 1, offset: Double = 0, shift: Double = 0) -> [Double] {
            var result: [Double] = []
            var position = offset
            while position <= Double(beats.count - 1) {
                let index = Int(position)
                let fraction = position - Double(index)
                let next = index + 1 < beats.count ? beats[index + 1] : beats[index]
                result.append(beats[index] + fraction * (next - beats[index]) + shift)
                position += step
            }
            return result
        }

        func verdict(_ map: [Double]) -> BeatStrengthVerdict? {
            BeatStrengthProfile(beats: map, onsets: onsets, strengths: strengths)?.verdict
        }
    }

    /// Whether `verdict` suggests `level` with a ratio within 1e-9 of `ratio`.
    func suggests(_ verdict: BeatStrengthVerdict?, _ level: MetricLevel, ratio: Double) -> Bool {
        guard case .level(let found, let foundRatio) = verdict else { return false }
        return found == level && abs(foundRatio - ratio) < 1e-9
    }

    @Test("a rock beat mapped at the right level gives no verdict", arguments: [0.857, 0.5, 0.345])
    func rockAtTheRightLevel(period: Double) {
        let music = Music(Self.rock, period: period)
        #expect(music.verdict(music.map()) == nil)
    }

    @Test("correct maps of a shuffle, a syncopated beat and quarter notes give no verdict")
    func otherCorrectMaps() {
        for pattern in [Self.shuffle, Self.syncopated, Self.quarters] {
            let music = Music(pattern)
            #expect(music.verdict(music.map()) == nil)
        }
    }

    @Test("the rock map shifted half a beat is off-beat, and the shift back is half a beat")
    func offbeat() throws {
        let music = Music(Self.rock)
        let verdict = try #require(music.verdict(music.map(offset: 0.5)))
        guard case .offbeat(let ratio, let shift) = verdict else {
            Issue.record("expected an off-beat verdict, got \(verdict)")
            return
        }
        #expect(abs(ratio - 0.9 / 0.45) < 1e-9)
        // The music starts before the map's first beat, so the shift is back onto it.
        #expect(abs(shift + 0.25) < 1e-9)
    }

    @Test("a map over quarter notes, half a beat out, is off-beat")
    func offbeatOverQuarters() throws {
        let music = Music(Self.quarters)
        let verdict = try #require(music.verdict(music.map(offset: 0.5)))
        guard case .offbeat(let ratio, let shift) = verdict else {
            Issue.record("expected an off-beat verdict, got \(verdict)")
            return
        }
        #expect(ratio == .infinity)
        #expect(abs(shift + 0.25) < 1e-9)
    }

    @Test("sixteenth-note hats do not hide a map half a beat out; a half-tempo map's off-beats still do")
    func offbeatOverSixteenths() throws {
        // The rock beat with a softer hi-hat on every sixteenth between: half a beat out, the map's
        // quarter points hold those (0.3, two thirds of its own beats' 0.45, a third of its midpoints').
        let sixteenths: [[Hit]] = Self.rock.map { $0 + [(0.25, 0.3), (0.75, 0.3)] }
        let music = Music(sixteenths)
        #expect(music.verdict(music.map()) == nil)
        let verdict = try #require(music.verdict(music.map(offset: 0.5)))
        guard case .offbeat(let ratio, _) = verdict else {
            Issue.record("expected an off-beat verdict, got \(verdict)")
            return
        }
        #expect(abs(ratio - 0.9 / 0.45) < 1e-9)
        // A one-drop's skank on every off-beat (as loud as the beats) mapped at half tempo: its quarter
        // points are the skank, not sixteenths, and it is not read as half a beat out.
        let oneDrop: [[Hit]] = [
            [(0, 0.3), (0.5, 0.9)], [(0, 0.45), (0.5, 0.9)], [(0, 1.0), (0.5, 0.9)], [(0, 0.45), (0.5, 0.9)],
        ]
        let skank = Music(oneDrop)
        if case .offbeat = skank.verdict(skank.map(step: 2, offset: 1)) {
            Issue.record("a half-tempo map of a one-drop read as half a beat out")
        }
    }

    @Test("a waltz mapped half a beat out is not read as ⅔: the map's own beats are all alike")
    func offbeatWaltzIsNotTwoThirds() throws {
        // Bass on 1 with a soft "and" after it, chords on 2 and 3. Points every 1½ beats of the map
        // half a beat out pass through every downbeat (at its midpoints), which alone once read as ⅔.
        let waltz: [[Hit]] = [[(0, 1.0), (0.5, 0.3)], [(0, 0.45)], [(0, 0.45)]]
        let music = Music(waltz, count: 66)
        #expect(music.verdict(music.map()) == nil)
        let profile = try #require(
            BeatStrengthProfile(beats: music.map(offset: 0.5), onsets: music.onsets, strengths: music.strengths))
        #expect(profile.everyThreeHalves.strength >= BeatStrengthProfile.twoThirdsRatio * profile.beats.strength)
        #expect(profile.verdict == nil)
    }

    @Test("half-tempo maps, on the kicks or on the snares, suggest ×2")
    func halfTempo() throws {
        let music = Music(Self.rock)
        #expect(suggests(music.verdict(music.map(step: 2)), .double, ratio: 1.0 / 0.8))
        #expect(suggests(music.verdict(music.map(step: 2, offset: 1)), .double, ratio: 0.8))
    }

    @Test("a half-tempo map whose midpoints are clearly stronger suggests ×2 when off-beats lie between")
    func halfTempoOnSoftKicks() {
        let softKicks: [[Hit]] = [[(0, 0.5), (0.5, 0.4)], [(0, 1.0), (0.5, 0.4)]]
        let music = Music(softKicks)
        #expect(suggests(music.verdict(music.map(step: 2)), .double, ratio: 2))
        // The same without the off-beats between could be a map half a beat out: no verdict.
        let bare = Music([[(0, 0.5)], [(0, 1.0)]])
        #expect(bare.verdict(bare.map(step: 2)) == nil)
    }

    @Test("a double-tempo map over quarter notes suggests ½, keeping the beats on the music's")
    func doubleTempo() throws {
        let music = Music(Self.quarters)
        let map = music.map(step: 0.5)
        let profile = try #require(BeatStrengthProfile(beats: map, onsets: music.onsets, strengths: music.strengths))
        #expect(suggests(profile.verdict, .half, ratio: 0))
        #expect(profile.evenBeats.beats == [0, 2, 4])
    }

    @Test("a double-tempo map over loud eighth notes gives no verdict: the off-beats might be beats")
    func doubleTempoOverEighths() {
        let music = Music(Self.rock)
        #expect(music.verdict(music.map(step: 0.5)) == nil)
    }

    @Test("a map at 3⁄2 of the tempo suggests ⅔; one at ⅔ suggests 3⁄2")
    func ternary() throws {
        let music = Music(Self.rock, count: 96)
        let fast = try #require(music.verdict(music.map(step: 2.0 / 3.0)))
        guard case .level(.twoThirds, let fastRatio) = fast else {
            Issue.record("expected ⅔, got \(fast)")
            return
        }
        #expect(fastRatio >= BeatStrengthProfile.twoThirdsRatio)
        let slow = try #require(music.verdict(music.map(step: 1.5)))
        guard case .level(.threeHalves, let slowRatio) = slow else {
            Issue.record("expected 3⁄2, got \(slow)")
            return
        }
        #expect(slowRatio >= BeatStrengthProfile.threeHalvesRatio)
    }

    @Test("points between beats follow the map's own beats through a tempo change")
    func tempoChange() throws {
        // 32 beats at 120 BPM, then 32 at 150 BPM.
        let times: [Double] = (0..<64).map { (index: Int) -> Double in
            index < 32 ? 1.0 + Double(index) * 0.5 : 17.0 + Double(index - 32) * 0.4
        }
        let music = Music(Self.rock, at: times)
        #expect(music.verdict(music.map()) == nil)
        let offbeat = try #require(music.verdict(music.map(offset: 0.5)))
        guard case .offbeat = offbeat else {
            Issue.record("expected an off-beat verdict, got \(offbeat)")
            return
        }
        #expect(suggests(music.verdict(music.map(step: 2)), .double, ratio: 1.0 / 0.8))
    }

    @Test("a half-tempo map 30 ms late is read at its offset and still suggests ×2")
    func misalignedHalfTempo() throws {
        let music = Music(Self.rock)
        let map = music.map(step: 2, shift: 0.030)
        let profile = try #require(BeatStrengthProfile(beats: map, onsets: music.onsets, strengths: music.strengths))
        #expect(abs(profile.offset + 0.030) < 0.0015)
        #expect(suggests(profile.verdict, .double, ratio: 1.0 / 0.8))
    }

    @Test("a level outside the suggested tempo range is not suggested")
    func outsideTheRange() {
        // Four on the floor at 125 BPM with off-beat hi-hats as loud as the kicks: ×2 would be 250 BPM.
        let music = Music([[(0, 1.0), (0.5, 0.95)]], period: 0.48)
        #expect(music.verdict(music.map()) == nil)
        // Quarter notes at 50 BPM mapped at 100: ½ would be 50 BPM.
        let slow = Music(Self.quarters, period: 1.2, count: 40)
        #expect(slow.verdict(slow.map(step: 0.5)) == nil)
    }

    @Test("silence before the music does not dilute the evidence")
    func silentIntro() throws {
        let music = Music(Self.rock, start: 20, count: 40)
        // The map's beats run over 19 s of silence first.
        let map = (0..<38).map { 0.5 + Double($0) * 0.5 } + music.map(offset: 0.5)
        let verdict = try #require(music.verdict(map))
        guard case .offbeat = verdict else {
            Issue.record("expected an off-beat verdict, got \(verdict)")
            return
        }
    }

    @Test("too few beats, mismatched strengths or no onsets give no profile or no verdict")
    func notEnough() {
        let music = Music(Self.rock)
        let short = Array(music.map(offset: 0.5).prefix(16))
        #expect(BeatStrengthProfile(beats: short, onsets: music.onsets, strengths: music.strengths) == nil)
        let map = music.map(offset: 0.5)
        #expect(BeatStrengthProfile(beats: map, onsets: music.onsets, strengths: [1]) == nil)
        #expect(BeatStrengthProfile(beats: map, onsets: [], strengths: []) == nil)
    }

    @Test("non-finite and out-of-order beats are left out")
    func brokenBeats() throws {
        let music = Music(Self.rock)
        var map = music.map(offset: 0.5)
        map.insert(.nan, at: 10)
        map.insert(0.1, at: 20)
        map.append(.infinity)
        let verdict = try #require(music.verdict(map))
        guard case .offbeat = verdict else {
            Issue.record("expected an off-beat verdict, got \(verdict)")
            return
        }
    }

    @Test("non-finite onsets and strengths are ignored")
    func brokenOnsets() throws {
        let music = Music(Self.rock)
        let onsets = music.onsets + [.nan, 5.0, .infinity]
        let strengths = music.strengths + [1, .nan, 1]
        let profile = try #require(BeatStrengthProfile(beats: music.map(), onsets: onsets, strengths: strengths))
        #expect(profile.verdict == nil)
    }

    /// A validator's findings for a map of `beats` over `music`.
    func findings(_ beats: [Double], over music: Music, configuration: ValidationConfiguration = .init()) -> [Finding] {
        let text =
            "{ \"version\": 1, \"audio\": { \"duration\": 40 }, \"beats\": ["
            + beats.map(NumberFormatting.decimal).joined(separator: ", ") + "] }"
        let audio = AudioFacts(
            duration: 40, sampleRate: 44100, onsets: music.onsets, onsetStrengths: music.strengths)
        return Validator(configuration: configuration).validate(
            bytes: Array(text.utf8), path: "m.beatmap.json", audio: audio
        ).findings
    }

    @Test("the findings name the better alternative with numbers")
    func messages() throws {
        let music = Music(Self.rock)
        let offbeat = try #require(findings(music.map(offset: 0.5), over: music).first { $0.ruleID == "audio-offbeat" })
        #expect(offbeat.severity == .warning)
        #expect(offbeat.message.contains("2.00× stronger than on them"))
        #expect(offbeat.message.contains("shift every beat by -0.250 s (half a beat)"))
        let half = try #require(findings(music.map(step: 2), over: music).first { $0.ruleID == "audio-metric-level" })
        #expect(half.message.hasPrefix("the map looks like half the music's tempo (60.0 BPM)"))
        #expect(half.message.hasSuffix("the ×2 level (120.0 BPM) fits better"))
        let quarters = Music(Self.quarters)
        let double = try #require(
            findings(quarters.map(step: 0.5), over: quarters).first { $0.ruleID == "audio-metric-level" })
        #expect(double.message.hasSuffix("the ½ level (120.0 BPM, beats 1, 3, 5, …) fits better"))
    }

    @Test("one map gets at most one of the two rules, and each can be set like any rule")
    func configuration() throws {
        let music = Music(Self.rock)
        let offbeat = findings(music.map(offset: 0.5), over: music).filter { $0.ruleID.hasPrefix("audio-") }
        #expect(offbeat.map(\.ruleID) == ["audio-offbeat"])
        var configuration = ValidationConfiguration()
        try configuration.setRule("audio-metric-level", to: "error", origin: "test")
        try configuration.setRule("audio-offbeat", to: "off", origin: "test")
        #expect(findings(music.map(offset: 0.5), over: music, configuration: configuration).isEmpty)
        let half = findings(music.map(step: 2), over: music, configuration: configuration)
        #expect(half.map(\.severity) == [.error])
    }
}
