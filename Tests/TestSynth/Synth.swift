// SPDX-License-Identifier: GPL-3.0-or-later

public import Foundation

/// A deterministic pseudo-random generator (SplitMix64), so synthesised fixtures are identical on
/// every run and platform.
public struct SeededRandom: RandomNumberGenerator {
    private var state: UInt64

    /// A generator seeded with `seed`.
    public init(seed: UInt64) { state = seed }

    /// The next 64 random bits.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A uniform value in −1…1.
    public mutating func signed() -> Float { Float(Double(next() >> 11) / Double(1 << 53)) * 2 - 1 }
}

/// The drum sounds the test synthesiser can place.
public enum DrumSound: Sendable {
    /// A short broadband click (2 ms of decaying noise).
    case click
    /// A kick drum: a sine falling from 150 Hz to 50 Hz over 150 ms.
    case kick
    /// A snare: noise with a 190 Hz body over 120 ms.
    case snare
    /// A closed hi-hat: bright noise over 40 ms.
    case hiHat
}

/// A mono signal under construction, with sounds mixed in at exact sample positions.
public struct SynthTrack: Sendable {
    /// Sample rate in Hz.
    public let sampleRate: Int
    /// The samples.
    public var samples: [Float]

    /// A silent track of `duration` seconds.
    public init(duration: Double, sampleRate: Int) {
        self.sampleRate = sampleRate
        samples = [Float](repeating: 0, count: Int((duration * Double(sampleRate)).rounded()))
    }

    /// Mixes `sound` in, starting at `time` seconds (rounded to the nearest sample), at `gain`.
    public mutating func add(_ sound: DrumSound, at time: Double, gain: Float = 0.5, seed: UInt64 = 1) {
        let start = Int((time * Double(sampleRate)).rounded())
        var random = SeededRandom(seed: seed &+ UInt64(max(start, 0)))
        let rate = Double(sampleRate)
        let length: Int
        switch sound {
        case .click: length = Int(0.002 * rate)
        case .kick: length = Int(0.15 * rate)
        case .snare: length = Int(0.12 * rate)
        case .hiHat: length = Int(0.04 * rate)
        }
        var phase = 0.0
        var previousNoise: Float = 0
        for n in 0..<length {
            let index = start + n
            guard index >= 0 else { continue }
            guard index < samples.count else { break }
            let t = Double(n) / rate
            let value: Float
            switch sound {
            case .click:
                value = random.signed() * Float(exp(-t / 0.0005))
            case .kick:
                let frequency = 50 + 100 * exp(-t / 0.03)
                phase += 2 * Double.pi * frequency / rate
                value = Float(sin(phase) * exp(-t / 0.05))
            case .snare:
                phase += 2 * Double.pi * 190 / rate
                value = (random.signed() * 0.7 + Float(sin(phase)) * 0.5) * Float(exp(-t / 0.03))
            case .hiHat:
                let noise = random.signed()
                value = (noise - previousNoise) * 0.5 * Float(exp(-t / 0.01))
                previousNoise = noise
            }
            samples[index] += value * gain
        }
    }

    /// Adds white noise at `gain` over the whole track.
    public mutating func addNoise(gain: Float, seed: UInt64 = 7) {
        var random = SeededRandom(seed: seed)
        for index in samples.indices { samples[index] += random.signed() * gain }
    }
}

/// Writes WAV files (16-bit PCM, the channels interleaved).
public enum WAVWriter {
    /// Writes a 16-bit PCM WAV file of `frames` frames whose sample at (frame, channel) is
    /// `sample(frame, channel)`, clamped to −1…1. The one WAV writer of every test target.
    public static func write(
        to url: URL, sampleRate: Int, channels channelCount: Int, frames: Int, sample: (Int, Int) -> Double
    ) throws {
        var data = Data()
        func append32(_ value: UInt32) { withUnsafeBytes(of: value.littleEndian) { data.append(contentsOf: $0) } }
        func append16(_ value: UInt16) { withUnsafeBytes(of: value.littleEndian) { data.append(contentsOf: $0) } }
        let dataBytes = UInt32(frames * channelCount * 2)
        data.append(contentsOf: Array("RIFF".utf8))
        append32(36 + dataBytes)
        data.append(contentsOf: Array("WAVEfmt ".utf8))
        append32(16)
        append16(1)
        append16(UInt16(channelCount))
        append32(UInt32(sampleRate))
        append32(UInt32(sampleRate * channelCount * 2))
        append16(UInt16(channelCount * 2))
        append16(16)
        data.append(contentsOf: Array("data".utf8))
        append32(dataBytes)
        data.reserveCapacity(data.count + Int(dataBytes))
        for frame in 0..<frames {
            for channel in 0..<channelCount {
                let value = max(-1, min(1, sample(frame, channel)))
                append16(UInt16(bitPattern: Int16((value * 32767).rounded())))
            }
        }
        try data.write(to: url)
    }

    /// Writes `channels` (each the same length) as a 16-bit PCM WAV file at `url`.
    public static func write(channels: [[Float]], sampleRate: Int, to url: URL) throws {
        try write(
            to: url, sampleRate: sampleRate, channels: max(1, channels.count), frames: channels.first?.count ?? 0
        ) { frame, channel in channels.isEmpty ? 0 : Double(channels[channel][frame]) }
    }

    /// Writes interleaved `samples` with `channels` channels as a 16-bit PCM WAV file at `url`.
    public static func write(interleaved samples: [Float], channels: Int, sampleRate: Int, to url: URL) throws {
        try write(to: url, sampleRate: sampleRate, channels: channels, frames: samples.count / max(1, channels)) {
            frame, channel in Double(samples[frame * channels + channel])
        }
    }

    /// Writes a mono track.
    public static func write(_ track: SynthTrack, to url: URL) throws {
        try write(channels: [track.samples], sampleRate: track.sampleRate, to: url)
    }
}

/// Ready-made test tracks with exact beat times.
public enum TestTracks {
    /// A drum pattern at `bpm` from `start` for `duration` seconds: kick on beats 1 and 3, snare on 2
    /// and 4, hi-hat on every eighth. Returns the track and its beat times.
    public static func drums(
        bpm: Double, start: Double = 0.5, duration: Double = 20, sampleRate: Int = 44_100
    ) -> (track: SynthTrack, beats: [Double]) {
        var track = SynthTrack(duration: duration, sampleRate: sampleRate)
        let period = 60 / bpm
        var beats: [Double] = []
        var index = 0
        while start + Double(index) * period < duration - 0.2 {
            let t = start + Double(index) * period
            beats.append(t)
            track.add(index % 2 == 0 ? .kick : .snare, at: t, gain: 0.6)
            track.add(.hiHat, at: t, gain: 0.25)
            if t + period / 2 < duration - 0.2 { track.add(.hiHat, at: t + period / 2, gain: 0.2) }
            index += 1
        }
        return (track, beats)
    }

    /// Clicks at `bpm` from `start` for `duration` seconds. Returns the track and the click times.
    public static func clicks(
        bpm: Double, start: Double = 0.5, duration: Double = 20, sampleRate: Int = 44_100
    ) -> (track: SynthTrack, beats: [Double]) {
        var track = SynthTrack(duration: duration, sampleRate: sampleRate)
        let period = 60 / bpm
        var beats: [Double] = []
        var t = start
        while t < duration - 0.1 {
            beats.append(t)
            track.add(.click, at: t, gain: 0.8)
            t += period
        }
        return (track, beats)
    }

    /// A temporary folder for fixtures.
    public static func temporaryFolder() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("beatmap-synth-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}
