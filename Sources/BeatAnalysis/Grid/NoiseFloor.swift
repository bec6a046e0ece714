// SPDX-License-Identifier: GPL-3.0-or-later

import Foundation

/// Where a recording ends in its own noise — tape hiss, a room, an audience — the level it falls to
/// after the music, and how long it lies there. A rendered song ends in digital silence, and a ringing
/// ending gets beats until its sound dies away (``GridFitter/layOut(_:novelty:span:sounding:duration:drums:)``).
/// A recording's sound never dies away: its noise kept it "sounding" to the end of the file, and beats
/// were laid over seconds where nothing plays (docs/analyze-log.md, session 60). Only the end of the
/// file is read: a stretch at the floor before or inside the music may be a quiet intro or passage of
/// the music itself, which the beats cover (a tracker module's soft opening, a groove over a noise bed).
struct NoiseFloor: Sendable, Equatable {
    /// The length of the windows the floor is read over: a second, longer than any gap between notes.
    static let window = 1.0
    /// How far above the floor a window still lies at it: 3 dB, a factor of 2 in mean square.
    static let atFloor: Float = 2
    /// The shortest stretch at the floor that is the noise alone: two seconds, twice the window, so
    /// that a soft last note within 3 dB of the floor is not taken for it.
    static let shortestQuiet = 2.0
    /// How far under the loud level a floor may lie and still be read: 40 dB, a factor of 10⁻⁴ in
    /// mean square. The sounding span counts every hop within 30 dB of the loud level
    /// (``GridFitter/soundingFraction``), and a noise's hops spread several dB either side of its
    /// median: hiss 33 dB down kept a song "sounding" to the end of its file.
    static let deepest: Float = 1e-4

    /// The floor: the mean square of the quietest second (the median of its hops), of windows that
    /// step by half a window.
    var level: Float
    /// The stretch (seconds) at the floor after the music, to the file's end: the windows to there
    /// whose median lies within ``atFloor`` of the floor.
    var tail: ClosedRange<Double>

    /// The floor of `levels` (mean square per hop of `hopDuration` seconds) and the noise after the
    /// music, or `nil` where the quietest second lies ``deepest`` or further under the loud level
    /// (the 95th percentile of the hops, `loud` where the caller has it: the audio falls silent there,
    /// as a render does), where the file does not end in ``shortestQuiet`` or more at the floor, or
    /// where it is nothing but the floor.
    init?(levels: [Float], hopDuration: Double, loud: Float? = nil) {
        guard hopDuration > 0 else { return nil }
        let hops = max(2, Int((Self.window / hopDuration).rounded()))
        guard levels.count >= 2 * hops, let loud = loud ?? RankSelection.value(atFraction: 0.95, of: levels),
            loud > 0
        else { return nil }
        let step = hops / 2
        var medians: [(start: Int, level: Float)] = []
        var start = 0
        while start + hops <= levels.count {
            medians.append((start, RankSelection.value(atFraction: 0.5, of: levels[start..<(start + hops)]) ?? 0))
            start += step
        }
        guard let floor = medians.map(\.level).min(), floor > loud * Self.deepest,
            medians.contains(where: { $0.level > floor * Self.atFloor })
        else { return nil }
        let end = Double(levels.count) * hopDuration
        guard let first = medians.reversed().prefix(while: { $0.level <= floor * Self.atFloor }).last,
            end - Double(first.start) * hopDuration >= Self.shortestQuiet
        else { return nil }
        level = floor
        tail = (Double(first.start) * hopDuration)...end
    }

    /// `sounding` without the noise after the music; `nil` where nothing is left.
    func clipped(_ sounding: ClosedRange<Double>) -> ClosedRange<Double>? {
        let upper = min(sounding.upperBound, tail.lowerBound)
        return sounding.lowerBound < upper ? sounding.lowerBound...upper : nil
    }
}
