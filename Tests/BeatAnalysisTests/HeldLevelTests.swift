// SPDX-License-Identifier: GPL-3.0-or-later

import Foundation
import Testing

@testable import BeatAnalysis

/// Beats tracked at 4⁄3 or ¾ of the level they were tracked from are tracked again held at that
/// level, and the held beats are kept when they stand out more
/// (``GridFitter/heldAtItsLevel(_:period:_:regions:)``).
@Suite("Held at its level")
struct HeldLevelTests {
    static let seconds = 60.0

    static func context(_ onsets: [(time: Double, height: Float)]) -> GridFitter.TrackingContext {
        let novelty = OnsetCurves.peaks(onsets, seconds: seconds)
        let peaks = novelty.envelope.peaks()
        return GridFitter.TrackingContext(
            novelty: novelty, peaks: peaks, matcher: PeakMatcher(peaks: peaks), span: 1...(seconds - 1),
            lowBand: nil, setAside: nil)
    }

    /// Times every `interval` seconds from 1 s to a second before the end.
    static func pulse(_ interval: Double) -> [Double] {
        (0..<Int((seconds - 2) / interval)).map { 1 + Double($0) * interval }
    }

    @Test("a tracker drawn to a dotted figure for a whole song is held at the level it started from")
    func dottedFigureHeld() throws {
        // 125 BPM (0.48 s), as a tracker module writes it: the beats, and a figure every three rows
        // (0.36 s, 4⁄3 of the tempo) that draws a free tracker to its fastest tempo.
        let beats = Self.pulse(0.48)
        let figure = Self.pulse(0.36).map { (time: $0, height: Float(0.8)) }
        let context = Self.context(beats.map { (time: $0, height: Float(1)) } + figure)
        let tracked = Self.pulse(0.36)
        let held = GridFitter().heldAtItsLevel(tracked, period: 0.48, context, regions: [])
        try #require(held.count > 100)
        #expect(abs(BeatSequence(beats: held).medianInterval - 0.48) < 0.005)
        for beat in held {
            // The distance to the song's 0.48 s grid through 1 s (the span runs a little past its
            // last onset, and the tracker with it).
            let offset = (beat - 1).truncatingRemainder(dividingBy: 0.48)
            #expect(min(abs(offset), 0.48 - abs(offset)) < 0.02, "a held beat at \(beat) s is off the song's beats")
        }
    }

    @Test("a song really at 4⁄3 of the level it was tracked from keeps its beats")
    func realTempoKept() {
        let tracked = Self.pulse(0.36)
        let context = Self.context(tracked.map { (time: $0, height: Float(1)) })
        #expect(GridFitter().heldAtItsLevel(tracked, period: 0.48, context, regions: []) == tracked)
    }

    @Test("beats tracked at the level they started from are not tracked again")
    func sameLevelUntouched() {
        let tracked = Self.pulse(0.48).map { $0 + 0.001 }
        let context = Self.context(Self.pulse(0.36).map { (time: $0, height: Float(1)) })
        #expect(GridFitter().heldAtItsLevel(tracked, period: 0.5, context, regions: []) == tracked)
    }
}
