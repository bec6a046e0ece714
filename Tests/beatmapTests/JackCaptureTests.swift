// SPDX-License-Identifier: GPL-3.0-or-later

import Testing

/// The reader the JACK capture test relies on: what it lets through and what it refuses.
@Suite("reading a JACK capture against the render")
struct JackCaptureTests {
    /// A stereo render of `frames` frames where every sample is distinct and non-zero.
    static func render(frames: Int) -> [Float] {
        (0..<frames * 2).map { Float($0 + 1) }
    }

    static func same(_ a: Float, _ b: Float) -> Bool { a == b }

    static func frames(_ samples: [Float], _ range: Range<Int>) -> [Float] {
        Array(samples[(range.lowerBound * 2)..<(range.upperBound * 2)])
    }

    @Test("a capture that joins late and ends in silence is the render from its first sound")
    func exact() throws {
        let render = Self.render(frames: 1000)
        let capture =
            [Float](repeating: 0, count: 2 * 16) + Self.frames(render, 100..<1000) + [Float](repeating: 0, count: 40)
        let reading = try JackCapture(capture: capture, render: render, channels: 2, period: 16, same: Self.same)
        #expect(reading.start == 100)
        #expect(reading.jumps.isEmpty)
        #expect(reading.framesHeard == 900)
    }

    @Test("one whole period missed at a period boundary is read as one jump")
    func missedPeriod() throws {
        let render = Self.render(frames: 1000)
        // Capture periods start at frame 0; the render is captured from frame 0, and frames 320..<336
        // (one period of 16) are missing.
        let capture = Self.frames(render, 0..<320) + Self.frames(render, 336..<1000)
        let reading = try JackCapture(capture: capture, render: render, channels: 2, period: 16, same: Self.same)
        #expect(reading.jumps == [336])
        #expect(reading.framesHeard == 984)
        // The missed cycle held the span's end: silence where its last 8 frames would be.
        let end = Self.frames(render, 0..<992) + [Float](repeating: 0, count: 64)
        let cut = try JackCapture(capture: end, render: render, channels: 2, period: 16, same: Self.same)
        #expect(cut.jumps == [1000])
    }

    @Test(
        "refused: a wrong sample, a jump inside a period, a stretch played twice, a capture cut short, sound after the end"
    )
    func refused() {
        let render = Self.render(frames: 1000)
        var wrong = render
        wrong[896] = 0.5  // frame 448, at a period boundary
        let inside = Self.frames(render, 0..<330) + Self.frames(render, 346..<1000)
        let twice = Self.frames(render, 0..<320) + Self.frames(render, 304..<1000)
        let short = Self.frames(render, 0..<900)
        let after = render + [0, 0, 0.25, 0]
        for capture in [wrong, inside, twice, short, after] {
            #expect(throws: JackCapture.Mismatch.self) {
                try JackCapture(capture: capture, render: render, channels: 2, period: 16, same: Self.same)
            }
        }
    }
}
