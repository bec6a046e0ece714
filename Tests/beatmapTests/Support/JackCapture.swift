// SPDX-License-Identifier: GPL-3.0-or-later

import Foundation

/// Reads what `jack_rec` captured from JACK's dummy device against the offline render of the same span.
///
/// The dummy backend paces its cycles with a timer. When a wake-up comes late (a busy or jittery
/// machine), the server reports an xrun and the recorder can miss that cycle: the capture then lacks
/// exactly one whole period of the graph, and goes on with the next period unchanged. Every other sample
/// is still the render, bit for bit, in order. So a capture passes when it is the render from its first
/// sound to the span's end, where the render may jump ahead by whole periods only at the capture's
/// period boundaries, at most once per xrun the player reported, followed by silence. Anything else —
/// a wrong sample, a repeated or reordered stretch, a jump that is not whole periods, sound after the
/// span's end — is a failure, whatever the machine did.
struct JackCapture {
    /// Why a capture is not the render.
    struct Mismatch: Error, CustomStringConvertible {
        /// What is wrong, with the frame where it was found.
        let description: String
    }

    /// The render's frame where the capture's first sound is.
    let start: Int
    /// The render frames the capture went on from after missing whole periods: one per missed stretch.
    let jumps: [Int]
    /// The render frames the capture holds (the span from `start` on, less the missed periods).
    let framesHeard: Int

    /// Reads `capture` against `render`, both interleaved with `channels` channels; `period` is the JACK
    /// period in frames. `same` decides whether two samples are equal within the capture's precision.
    init(
        capture: [Float], render: [Float], channels: Int, period: Int, same: (Float, Float) -> Bool
    ) throws {
        let captured = capture.count / channels
        let rendered = render.count / channels
        func frameEqual(_ c: Int, _ r: Int) -> Bool {
            (0..<channels).allSatisfy { same(capture[c * channels + $0], render[r * channels + $0]) }
        }
        // Frames that must agree before a position counts as found (fewer at the render's end).
        func stretchEqual(_ c: Int, _ r: Int) -> Bool {
            let count = min(32, rendered - r, captured - c)
            return count > 0 && (0..<count).allSatisfy { frameEqual(c + $0, r + $0) }
        }
        guard let firstSample = capture.firstIndex(where: { $0 != 0 }) else {
            throw Mismatch(description: "the capture is silent")
        }
        // The capture's first frame with sound, found in the render by the stretch that starts there.
        var c = firstSample / channels
        guard let start = (0..<rendered).first(where: { stretchEqual(c, $0) }) else {
            throw Mismatch(description: "the capture's first sound (frame \(c)) is nowhere in the render")
        }
        var r = start
        var jumps: [Int] = []
        while r < rendered {
            guard c < captured else {
                throw Mismatch(description: "the capture ends \(rendered - r) frames before the span's end")
            }
            if frameEqual(c, r) {
                c += 1
                r += 1
                continue
            }
            // A missed cycle: the capture goes on at its next period boundary with the render whole
            // periods later. Up to 16 periods in one go (a long stall).
            guard c % period == 0 else {
                throw Mismatch(description: "capture frame \(c) differs from render frame \(r) inside a period")
            }
            // The missed cycle held the span's end: silence from here on, less than a period left.
            if rendered - r <= period, capture[(c * channels)...].allSatisfy({ $0 == 0 }) {
                jumps.append(rendered)
                r = rendered
                break
            }
            guard
                let next = (1...16).lazy.map({ r + $0 * period }).first(where: { $0 < rendered && stretchEqual(c, $0) })
            else {
                throw Mismatch(
                    description:
                        "capture frame \(c) differs from render frame \(r) and is not the render whole periods on")
            }
            jumps.append(next)
            r = next
        }
        if let after = capture[(c * channels)...].firstIndex(where: { $0 != 0 }) {
            throw Mismatch(description: "sound after the span's end, at capture frame \(after / channels)")
        }
        self.start = start
        self.jumps = jumps
        self.framesHeard = c - firstSample / channels
    }
}
