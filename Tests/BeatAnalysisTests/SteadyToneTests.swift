// SPDX-License-Identifier: GPL-3.0-or-later

import Foundation
import Testing

@testable import BeatAnalysis

/// A steady tone's onset novelty is the ripple of its analysis frames, which can repeat exactly and
/// stand out as a beat would; it is told by how little the audio changes for its loudness
/// (``GridFitter/steadyTone``).
@Suite("A steady tone has no beat")
struct SteadyToneTests {
    static let hop = 0.0116

    /// `seconds` of onset values `value(t)` and of mean squares `meanSquare` a hop.
    static func fit(
        seconds: Double, meanSquare: Float, options: GridFitOptions = GridFitOptions(), _ value: (Double) -> Float
    ) throws(GridFitError) -> GridFit {
        let count = Int(seconds / hop)
        let values = (0..<count).map { value(Double($0) * hop) }
        let envelope = OnsetEnvelope(values: values, hopDuration: hop, startTime: 0)
        return try GridFitter(options: options).fit(
            envelope, duration: seconds, levels: [Float](repeating: meanSquare, count: count))
    }

    /// A ripple that repeats every 0.7 s (as a sine's analysis frames can), a tenth of its level.
    static func ripple(_ t: Double) -> Float {
        let phase = t.truncatingRemainder(dividingBy: 0.7) / 0.7
        return Float(0.02 * (1 + sin(2 * Double.pi * 7 * phase) + 0.5 * sin(2 * Double.pi * phase)))
    }

    @Test("a ripple a tenth of the audio's level is a steady tone: no regular beat")
    func rippleIsSteady() {
        // RMS 0.21 (a sine at −13.5 dBFS).
        do {
            _ = try Self.fit(seconds: 20, meanSquare: 0.045, Self.ripple)
            Issue.record("a steady tone was mapped")
        } catch {
            guard case .steadyTone(let change) = error else {
                Issue.record("expected .steadyTone, got \(error)")
                return
            }
            #expect(change < GridFitter.steadyTone)
            #expect(error.reason.contains("no regular beat"))
        }
    }

    @Test("a tempo the user gives maps a steady sound all the same")
    func forcedTempoMaps() throws {
        var options = GridFitOptions()
        options.forcedBPM = 120
        let fit = try Self.fit(seconds: 20, meanSquare: 0.045, options: options, Self.ripple)
        #expect(fit.method == .forcedBPM)
    }

    @Test("clicks at the level of music's onsets (novelty about 20× the RMS level) are mapped")
    func clicksAreNotSteady() throws {
        let fit = try Self.fit(seconds: 20, meanSquare: 0.045) { t in
            let phase = t.truncatingRemainder(dividingBy: 0.5)
            return phase < Self.hop ? 200 : 0.05
        }
        #expect(fit.steadySound == nil)
        let bpm = try #require(fit.segments.first?.bpm)
        #expect(abs(bpm - 120) < 0.5)
    }

    @Test("clicks that change little for their loudness (a drone's) are mapped, flagged as a steady sound")
    func quietClicksAreFlagged() throws {
        // The same clicks at a fifth of music's level for the audio's loudness.
        let fit = try Self.fit(seconds: 20, meanSquare: 0.045) { t in
            let phase = t.truncatingRemainder(dividingBy: 0.5)
            return phase < Self.hop ? 40 : 0.01
        }
        let change = try #require(fit.steadySound)
        #expect(change >= GridFitter.steadyTone && change < GridFitter.steadySound)
        #expect(fit.isLowConfidence)
        let bpm = try #require(fit.segments.first?.bpm)
        #expect(abs(bpm - 120) < 0.5)
    }
}
