// SPDX-License-Identifier: GPL-3.0-or-later

public import Foundation

/// A source of monotonic time in seconds: it never jumps back and is not moved by wall-clock changes.
///
/// Only differences between two readings matter; the origin is arbitrary.
public protocol MonotonicTimeSource: Sendable {
    /// The current time in seconds.
    func now() -> TimeInterval
}

/// The system's monotonic clock (uptime, which keeps counting in the same way on every platform).
public struct SystemMonotonicClock: MonotonicTimeSource {
    /// The system clock.
    public init() {}

    /// Seconds since the system started.
    public func now() -> TimeInterval { ProcessInfo.processInfo.systemUptime }
}

/// The playback position of a track, kept the way a rhythm game keeps it:
/// `elapsed = (now − playbackStartTime) × rate` on a monotonic clock.
///
/// Pausing saves the position; resuming recalibrates `playbackStartTime = now − savedPosition / rate`,
/// so time spent paused (an interruption, a phone call) is not counted. Seeking and changing the rate
/// recalibrate the same way, so ``elapsed`` is continuous except where a seek moves it.
public struct PlaybackClock: Sendable {
    /// Where the time comes from.
    public let timeSource: any MonotonicTimeSource
    /// The source time at which position 0 would have played at the current rate, while playing.
    public private(set) var playbackStartTime: TimeInterval
    /// The position saved by the last pause or seek, used while paused.
    public private(set) var savedPosition: TimeInterval
    /// Whether the clock is running.
    public private(set) var isPlaying: Bool
    /// Track seconds per second of source time (1 = normal speed); always finite and > 0.
    public private(set) var rate: Double

    /// A paused clock at position 0 and rate 1.
    public init(timeSource: any MonotonicTimeSource = SystemMonotonicClock()) {
        self.timeSource = timeSource
        playbackStartTime = timeSource.now()
        savedPosition = 0
        isPlaying = false
        rate = 1
    }

    /// The playback position in track seconds.
    public var elapsed: TimeInterval { position(at: timeSource.now()) }

    /// The position the clock shows at source time `time`.
    public func position(at time: TimeInterval) -> TimeInterval {
        isPlaying ? (time - playbackStartTime) * rate : savedPosition
    }

    /// Starts playing from `position` (default: the start of the track).
    public mutating func start(at position: TimeInterval = 0) {
        savedPosition = position
        isPlaying = true
        recalibrate(at: timeSource.now())
    }

    /// Stops the clock, saving the current position. Does nothing when already paused.
    public mutating func pause() {
        guard isPlaying else { return }
        savedPosition = position(at: timeSource.now())
        isPlaying = false
    }

    /// Runs the clock again from the saved position: `playbackStartTime = now − savedPosition / rate`.
    /// Does nothing when already playing.
    public mutating func resume() {
        guard !isPlaying else { return }
        isPlaying = true
        recalibrate(at: timeSource.now())
    }

    /// Moves to `position`, playing or paused as before.
    public mutating func seek(to position: TimeInterval) {
        savedPosition = position
        if isPlaying { recalibrate(at: timeSource.now()) }
    }

    /// Sets the rate (track seconds per second), keeping the current position. Values that are not
    /// finite and positive are ignored.
    public mutating func setRate(_ newRate: Double) {
        guard newRate.isFinite, newRate > 0 else { return }
        let now = timeSource.now()
        savedPosition = position(at: now)
        rate = newRate
        if isPlaying { recalibrate(at: now) }
    }

    /// Aligns a playing clock with an observation from the output stream: the sample at track
    /// position `position` reaches the listener at source time `time`. A paused clock only saves
    /// `position`.
    public mutating func synchronize(position: TimeInterval, at time: TimeInterval) {
        savedPosition = position
        if isPlaying { recalibrate(at: time) }
    }

    private mutating func recalibrate(at time: TimeInterval) {
        playbackStartTime = time - savedPosition / rate
    }
}
