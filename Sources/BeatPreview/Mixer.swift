// SPDX-License-Identifier: GPL-3.0-or-later

import BeatMapKit
public import Foundation

/// The per-block settings of the mix; plain values, so the audio thread can build one from atomics.
public struct MixSettings: Sendable, Equatable {
    /// Linear gain of the music.
    public var musicGain: Float
    /// Linear gain of the clicks.
    public var clickGain: Float
    /// Whether the music is silenced.
    public var musicMuted: Bool
    /// Whether the clicks are silenced.
    public var clicksMuted: Bool
    /// Seconds added to every beat time (the preview's nudge).
    public var offset: TimeInterval

    /// Default gains: music at −3 dB, clicks at −3 dB, nothing muted, no offset.
    public init(
        musicGain: Float = linearGain(decibels: -3), clickGain: Float = linearGain(decibels: -3),
        musicMuted: Bool = false, clicksMuted: Bool = false, offset: TimeInterval = 0
    ) {
        self.musicGain = musicGain
        self.clickGain = clickGain
        self.musicMuted = musicMuted
        self.clicksMuted = clicksMuted
        self.offset = offset
    }
}

/// Mixes a track with a click on every beat, block by block, for both the offline renderer and the
/// realtime callback (so the two produce the same samples).
///
/// Each click starts exactly at frame `round((beat + offset) × sampleRate)` of the track, at the
/// track's own sample rate. The sum goes through ``limit(_:)``, a memoryless soft limiter that
/// leaves everything under −0.9 dBFS untouched and never exceeds full scale, so the output never clips
/// and does not depend on where blocks begin.
///
/// `@unchecked Sendable` is safe: everything the mixer owns is written once in `init` and only read
/// afterwards (the buffers are freed in `deinit`, when no thread can hold the mixer); the track is
/// itself safe to read while it is being decoded (see ``TrackBuffer``).
@available(macOS 15, iOS 18, tvOS 18, visionOS 2, *)
public final class Mixer: @unchecked Sendable {
    /// The limiter's threshold: samples below it pass unchanged.
    public static let limiterThreshold: Float = 0.9

    /// The music.
    public let track: TrackBuffer
    /// The beats.
    public let schedule: BeatSchedule
    /// Frames per second (the track's).
    public var sampleRate: Int { track.sampleRate }
    /// Interleaved output channels (the track's).
    public var channels: Int { track.channels }

    private let times: UnsafeMutableBufferPointer<Double>
    private let accents: UnsafeMutableBufferPointer<Bool>
    private let normalClick: UnsafeMutableBufferPointer<Float>
    private let accentClick: UnsafeMutableBufferPointer<Float>
    private let longestClick: Int

    /// A mixer of `track` with `clicks` (which must be at the track's sample rate) on `schedule`'s beats.
    public init(track: TrackBuffer, schedule: BeatSchedule, clicks: ClickSound) {
        precondition(clicks.sampleRate == track.sampleRate, "click sound made for another sample rate")
        self.track = track
        self.schedule = schedule
        times = .allocate(capacity: schedule.times.count)
        _ = times.initialize(from: schedule.times)
        accents = .allocate(capacity: schedule.accents.count)
        _ = accents.initialize(from: schedule.accents)
        normalClick = .allocate(capacity: clicks.normal.count)
        _ = normalClick.initialize(from: clicks.normal)
        accentClick = .allocate(capacity: clicks.accent.count)
        _ = accentClick.initialize(from: clicks.accent)
        longestClick = max(clicks.normal.count, clicks.accent.count)
    }

    deinit {
        times.deallocate()
        accents.deallocate()
        normalClick.deallocate()
        accentClick.deallocate()
    }

    /// The frame at which beat `index`'s click starts: `round((time + offset) × sampleRate)`.
    public func clickFrame(ofBeat index: Int, offset: TimeInterval = 0) -> Int {
        Self.frame(of: times[index] + offset, sampleRate: sampleRate)
    }

    /// `round(t × sampleRate)`, clamped to the range of `Int`.
    public static func frame(of t: TimeInterval, sampleRate: Int) -> Int {
        let value = (t * Double(sampleRate)).rounded()
        guard value.isFinite else { return value < 0 ? Int.min / 2 : Int.max / 2 }
        return Int(max(min(value, Double(Int.max / 2)), Double(Int.min / 2)))
    }

    /// Renders frames `start ..< start + frames` of the mix into `output` (`frames × channels`
    /// interleaved samples, overwritten). Realtime-safe: no allocation, no locks, no I/O.
    public func render(from start: Int, frames: Int, settings: MixSettings, into output: UnsafeMutablePointer<Float>) {
        let channelCount = channels
        output.update(repeating: 0, count: frames * channelCount)
        if !settings.musicMuted {
            track.addFrames(from: start, count: frames, gain: settings.musicGain, into: output)
        }
        if !settings.clicksMuted && times.count > 0 {
            let end = start + frames
            // The first beat whose click could still sound at `start` (a conservative time bound,
            // then exact frames).
            let earliest = (Double(start - longestClick - 2) / Double(sampleRate)) - settings.offset
            var index = firstBeat(atOrAfter: earliest)
            while index < times.count {
                let clickStart = clickFrame(ofBeat: index, offset: settings.offset)
                if clickStart >= end { break }
                let sound = accents[index] ? accentClick : normalClick
                let from = max(start, clickStart)
                let to = min(end, clickStart + sound.count)
                if from < to {
                    for frame in from..<to {
                        let value = sound[frame - clickStart] * settings.clickGain
                        let base = (frame - start) * channelCount
                        for channel in 0..<channelCount { output[base + channel] += value }
                    }
                }
                index += 1
            }
        }
        for sample in 0..<(frames * channelCount) { output[sample] = Self.limit(output[sample]) }
    }

    /// The soft limiter: identity up to ``limiterThreshold``, then a tanh knee towards ±1.
    @inline(__always)
    public static func limit(_ x: Float) -> Float {
        let magnitude = abs(x)
        if magnitude <= limiterThreshold { return x }
        let headroom = 1 - limiterThreshold
        let limited = limiterThreshold + headroom * tanh((magnitude - limiterThreshold) / headroom)
        return x < 0 ? -limited : limited
    }

    private func firstBeat(atOrAfter t: TimeInterval) -> Int {
        var low = 0
        var high = times.count
        while low < high {
            let mid = low + (high - low) / 2
            if times[mid] < t { low = mid + 1 } else { high = mid }
        }
        return low
    }
}
