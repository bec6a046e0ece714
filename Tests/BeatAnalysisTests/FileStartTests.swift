// SPDX-License-Identifier: GPL-3.0-or-later

import BeatAudio
import BeatMapKit
import Foundation
import TestSynth
import Testing

@testable import BeatAnalysis

/// Music that starts with the file: its first beat is at 0 s, not dropped for lying a fraction of a
/// millisecond before it.
@Suite("First beat at the file's start")
struct FileStartTests {
    @Test(
        "a groove whose first hit starts the file keeps that beat, at 0 s within 2 ms",
        arguments: [(125.0, 44_100), (131.3, 48_000), (97.0, 44_100), (143.0, 22_050)])
    func firstHitAtZero(bpm: Double, sampleRate: Int) throws {
        let (track, truth) = TestTracks.drums(bpm: bpm, start: 0, duration: 20, sampleRate: sampleRate)
        let (result, folder) = try GridFitTests.analyse(track)
        defer { try? FileManager.default.removeItem(at: folder) }
        let first = try #require(result.fit.beats.first)
        #expect(first >= 0 && first <= 0.002, "first beat \(first * 1000) ms")
        #expect(GridFitTests.compare(result.fit.beats, truth).missed == 0)
        let map = try #require(result.map.beats.first)
        #expect(map == first)
    }

    @Test("a grid moved half a beat later gets back the first beat it now has room for, from the layout's start on")
    func shiftedGridKeepsItsFirstBeat() throws {
        // A 120 BPM grid laid out on the off-beats from 0.25 s (a beat at -0.25 s was before the file).
        let offBeats = [FittedSegment(bpm: 120, firstBeat: 0.25, beats: [0.25, 0.75, 1.25, 1.75])]
        let earliest = GridFitter.earliestBeat(start: 0)
        let moved = GridFitter.shifted(offBeats, by: [0.5], duration: 10, earliest: earliest)
        let first = try #require(moved.first)
        #expect(first.beats == [0, 0.5, 1, 1.5, 2])
        #expect(first.firstBeat == 0)
        // Music that starts later than the file: no beat before the layout's start.
        let later = GridFitter.shifted(offBeats, by: [0.5], duration: 10, earliest: GridFitter.earliestBeat(start: 0.2))
        #expect(later.first?.beats == [0.5, 1, 1.5, 2])
        // Followed beats (a segment each) move towards the next and get none.
        let followed = [
            FittedSegment(bpm: 120, firstBeat: 0.25, beats: [0.25]),
            FittedSegment(bpm: 120, firstBeat: 0.75, beats: [0.75]),
        ]
        let movedFollowed = GridFitter.shifted(followed, by: [0.5, 0.5], duration: 10, earliest: earliest)
        #expect(movedFollowed.map(\.beats) == [[0.5], [1]])
    }

    @Test("a beat within 2 ms before 0 s goes to 0 s; one further out is dropped, and so is a segment it empties")
    func settling() throws {
        let kept = GridFitter.startingAtZero([
            FittedSegment(bpm: 125, firstBeat: -0.0015, beats: [-0.0015, 0.4785, 0.9585])
        ])
        #expect(kept == [FittedSegment(bpm: 125, firstBeat: 0, beats: [0, 0.4785, 0.9585])])
        let dropped = GridFitter.startingAtZero([
            FittedSegment(bpm: 125, firstBeat: -0.003, beats: [-0.003, 0.477, 0.957])
        ])
        #expect(dropped == [FittedSegment(bpm: 125, firstBeat: 0.477, beats: [0.477, 0.957])])
        let emptied = GridFitter.startingAtZero([
            FittedSegment(bpm: 400, firstBeat: -0.01, beats: [-0.01]),
            FittedSegment(bpm: 125, firstBeat: 0.2, beats: [0.2, 0.68]),
        ])
        #expect(emptied == [FittedSegment(bpm: 125, firstBeat: 0.2, beats: [0.2, 0.68])])
        let untouched = [FittedSegment(bpm: 125, firstBeat: 0.001, beats: [0.001, 0.481])]
        #expect(GridFitter.startingAtZero(untouched) == untouched)
    }
}
