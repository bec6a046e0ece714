// SPDX-License-Identifier: GPL-3.0-or-later

import Foundation
public import Synchronization

/// What the control thread and the realtime audio thread share: transport commands going in, the
/// playback position and statistics coming out. Every member is a lock-free atomic.
@available(macOS 15, iOS 18, tvOS 18, visionOS 2, *)
public final class TransportState: Sendable {
    /// No pending seek / no loop / no end.
    public static let none = -1

    /// Whether the audio thread advances (otherwise it outputs silence and holds its place).
    public let playing = Atomic<Bool>(false)
    /// The next track frame the audio thread renders (written by the audio thread).
    public let position = Atomic<Int>(0)
    /// A seek for the audio thread to take at its next block, or ``none``.
    public let seekTarget = Atomic<Int>(TransportState.none)
    /// The nudge added to every beat, in microseconds.
    public let offsetMicroseconds = Atomic<Int>(0)
    /// Music muted.
    public let musicMuted = Atomic<Bool>(false)
    /// Clicks muted.
    public let clicksMuted = Atomic<Bool>(false)
    /// Clicks on the beats moved half a beat later (``MixSettings/halfBeatLater``).
    public let halfBeatLater = Atomic<Bool>(false)
    /// First frame of the loop, or ``none``.
    public let loopStart = Atomic<Int>(TransportState.none)
    /// Frame after the loop's last frame, or ``none`` (no loop).
    public let loopEnd = Atomic<Int>(TransportState.none)
    /// Frame at which playback ends (exclusive), or ``none`` for the end of the track.
    public let endFrame = Atomic<Int>(TransportState.none)
    /// Whether the stream should complete (stop) at the end instead of pausing there.
    public let completeAtEnd = Atomic<Bool>(false)
    /// Set by the audio thread when playback reached the end.
    public let reachedEnd = Atomic<Bool>(false)

    /// Blocks the audio thread has rendered.
    public let callbacks = Atomic<Int>(0)
    /// Frames rendered while playing.
    public let framesPlayed = Atomic<Int>(0)
    /// Nanoseconds the audio thread spent rendering.
    public let renderNanoseconds = Atomic<Int>(0)
    /// Longest single render, in nanoseconds.
    public let longestRenderNanoseconds = Atomic<Int>(0)
    /// Blocks in which the decoder had not yet reached the playing position.
    public let decoderUnderruns = Atomic<Int>(0)
    /// Blocks PortAudio flagged as output underflow.
    public let outputUnderflows = Atomic<Int>(0)
    /// Monotonic nanoseconds at which the first playing block was rendered, or 0.
    public let firstSoundNanoseconds = Atomic<Int>(0)
    /// Monotonic nanoseconds of the latest callback.
    public let lastCallbackNanoseconds = Atomic<Int>(0)

    private let reportSequence = Atomic<Int>(0)
    private let reportFrame = Atomic<Int>(0)
    private let reportTime = Atomic<UInt64>(0)

    /// A stopped transport at frame 0.
    public init() {}

    /// Audio thread: publishes that track frame `frame` reaches the output at `time` (seconds of the
    /// monotonic clock, converted from the stream's own DAC time by the callback).
    /// A sequence lock: the count is odd while the pair is being written.
    public func publish(frame: Int, at time: Double) {
        reportSequence.add(1, ordering: .sequentiallyConsistent)
        reportFrame.store(frame, ordering: .sequentiallyConsistent)
        reportTime.store(time.bitPattern, ordering: .sequentiallyConsistent)
        reportSequence.add(1, ordering: .sequentiallyConsistent)
    }

    /// Control thread: the latest (frame, stream time) pair, or `nil` before the first one.
    public func latestReport() -> (frame: Int, time: Double)? {
        for _ in 0..<64 {
            let before = reportSequence.load(ordering: .sequentiallyConsistent)
            if before == 0 { return nil }
            if before & 1 == 1 { continue }
            let frame = reportFrame.load(ordering: .sequentiallyConsistent)
            let time = Double(bitPattern: reportTime.load(ordering: .sequentiallyConsistent))
            if reportSequence.load(ordering: .sequentiallyConsistent) == before { return (frame, time) }
        }
        return nil
    }
}
