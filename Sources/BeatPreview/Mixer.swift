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
    /// Whether the clicks sound on the beats moved half a beat later (``Mixer/laterSchedule``): the
    /// preview's `h`.
    public var halfBeatLater: Bool

    /// Default gains: music at −3 dB, clicks at −3 dB, nothing muted, no offset, the map's beats.
    public init(
        musicGain: Float = linearGain(decibels: -3), clickGain: Float = linearGain(decibels: -3),
        musicMuted: Bool = false, clicksMuted: Bool = false, offset: TimeInterval = 0, halfBeatLater: Bool = false
    ) {
        self.musicGain = musicGain
        self.clickGain = clickGain
        self.musicMuted = musicMuted
        self.clicksMuted = clicksMuted
        self.offset = offset
        self.halfBeatLater = halfBeatLater
    }
}

/// Mixes blocks of music with a click on every beat, for both the offline renderer and the realtime
/// callback (so the two produce the same samples).
///
/// The mixer works at one output rate (the device's, or the file's being rendered): the music comes
/// in already at that rate (decoded and, if need be, resampled by an ``AudioStream`` away from the audio
/// thread), and each click starts exactly at output frame `round((beat + offset) × sampleRate)` — the
/// beat's time converted to output frames directly, never resampled. The sum goes through
/// ``limit(_:)``, a memoryless soft limiter that leaves everything under −0.9 dBFS untouched and never
/// exceeds full scale, so the output never clips and does not depend on where blocks begin.
///
/// `@unchecked Sendable` is safe: everything the mixer owns is written once in `init` and only read
/// afterwards (the buffers are freed in `deinit`, when no thread can hold the mixer).
@available(macOS 15, iOS 18, tvOS 18, visionOS 2, *)
public final class Mixer: @unchecked Sendable {
    /// The limiter's threshold: samples below it pass unchanged.
    public static let limiterThreshold: Float = 0.9

    /// The beats.
    public let schedule: BeatSchedule
    /// The beats moved half a beat later (``BeatMapEditor``'s shift), clicked instead of `schedule`'s
    /// where ``MixSettings/halfBeatLater`` says so; `nil` when the map cannot take that shift (its
    /// beats are then clicked as they are).
    public let laterSchedule: BeatSchedule?
    /// Output frames per second (the clicks').
    public let sampleRate: Int
    /// Interleaved output channels (the music's).
    public let channels: Int

    private let times: UnsafeMutableBufferPointer<Double>
    private let accents: UnsafeMutableBufferPointer<Bool>
    private let laterTimes: UnsafeMutableBufferPointer<Double>
    private let laterAccents: UnsafeMutableBufferPointer<Bool>
    private let normalClick: UnsafeMutableBufferPointer<Float>
    private let accentClick: UnsafeMutableBufferPointer<Float>
    private let longestClick: Int

    /// A mixer of music with `channels` channels and `clicks` on `schedule`'s beats (or on
    /// `laterSchedule`'s, half a beat later), at the clicks' sample rate.
    public init(schedule: BeatSchedule, clicks: ClickSound, channels: Int, laterSchedule: BeatSchedule? = nil) {
        self.schedule = schedule
        self.laterSchedule = laterSchedule
        let later = laterSchedule ?? schedule
        laterTimes = .allocate(capacity: later.times.count)
        _ = laterTimes.initialize(from: later.times)
        laterAccents = .allocate(capacity: later.accents.count)
        _ = laterAccents.initialize(from: later.accents)
        sampleRate = clicks.sampleRate
        self.channels = max(channels, 1)
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
        laterTimes.deallocate()
        laterAccents.deallocate()
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

    /// Renders output frames `start ..< start + frames` of the mix into `output` (`frames × channels`
    /// interleaved samples, overwritten). `music` holds the same frames of the music at the output rate
    /// (`nil`: silence). Realtime-safe: no allocation, no locks, no I/O.
    public func render(
        from start: Int, frames: Int, music: UnsafePointer<Float>?, settings: MixSettings,
        into output: UnsafeMutablePointer<Float>
    ) {
        let channelCount = channels
        if let music, !settings.musicMuted {
            let gain = settings.musicGain
            for sample in 0..<(frames * channelCount) { output[sample] = music[sample] * gain }
        } else {
            output.update(repeating: 0, count: frames * channelCount)
        }
        let (times, accents) = settings.halfBeatLater ? (laterTimes, laterAccents) : (self.times, self.accents)
        if !settings.clicksMuted && times.count > 0 {
            let end = start + frames
            // The first beat whose click could still sound at `start` (a conservative time bound,
            // then exact frames).
            let earliest = (Double(start - longestClick - 2) / Double(sampleRate)) - settings.offset
            var index = Self.firstBeat(in: times, atOrAfter: earliest)
            while index < times.count {
                let clickStart = Self.frame(of: times[index] + settings.offset, sampleRate: sampleRate)
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

    private static func firstBeat(in times: UnsafeMutableBufferPointer<Double>, atOrAfter t: TimeInterval) -> Int {
        var low = 0
        var high = times.count
        while low < high {
            let mid = low + (high - low) / 2
            if times[mid] < t { low = mid + 1 } else { high = mid }
        }
        return low
    }
}
