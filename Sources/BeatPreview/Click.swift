// SPDX-License-Identifier: GPL-3.0-or-later

public import BeatAudio
public import Foundation

/// Why a click sample could not be used.
public enum ClickError: Error, LocalizedError, Sendable, Equatable {
    /// The click file could not be decoded.
    case decode(AudioDecodeError)
    /// The click file decodes to silence.
    case silent(path: String)

    public var errorDescription: String? {
        switch self {
        case .decode(let error): return error.localizedDescription
        case .silent(let path): return "\(path): the click sample is silent"
        }
    }
}

/// The two click sounds of a preview, mono, at one sample rate: a normal click and the accent
/// played on the first beat of each bar.
public struct ClickSound: Sendable, Equatable {
    /// The sample rate the sounds are made for.
    public let sampleRate: Int
    /// The click of an ordinary beat.
    public let normal: [Float]
    /// The click of a bar's first beat.
    public let accent: [Float]

    /// The longest click sample used (longer files are cut): 0.5 s.
    public static let maximumDuration: TimeInterval = 0.5

    /// Sounds made from given samples.
    public init(sampleRate: Int, normal: [Float], accent: [Float]) {
        self.sampleRate = sampleRate
        self.normal = normal
        self.accent = accent
    }

    /// The built-in click: a 25 ms burst with an instant attack and exponential decay, at 1.6 kHz
    /// (normal, 0.6 peak) or 2.4 kHz (accent, full peak); its first sample is its peak, so the sound
    /// starts exactly on the beat's frame.
    public static func synthesized(sampleRate: Int) -> ClickSound {
        ClickSound(
            sampleRate: sampleRate,
            normal: burst(frequency: 1_600, peak: 0.6, sampleRate: sampleRate),
            accent: burst(frequency: 2_400, peak: 1.0, sampleRate: sampleRate))
    }

    /// A user's click sample (any format libsndfile reads), mixed to mono, cut to
    /// ``maximumDuration`` and resampled (linearly) to `sampleRate`. The accent is the sample at
    /// full level, the normal click the sample at −6 dB.
    public static func sample(at url: URL, sampleRate: Int) throws(ClickError) -> ClickSound {
        let source: [Float]
        let sourceRate: Int
        do {
            let reader = try AudioFileReader(url: url)
            sourceRate = reader.sampleRate
            let limit = Int(maximumDuration * Double(reader.sampleRate))
            var mono = [Float](repeating: 0, count: limit)
            var filled = 0
            while filled < limit {
                let read = try mono.withUnsafeMutableBufferPointer { buffer throws(AudioDecodeError) -> Int in
                    guard let base = buffer.baseAddress else { return 0 }
                    return try reader.readMono(into: base + filled, frames: limit - filled)
                }
                if read == 0 { break }
                filled += read
            }
            source = Array(mono[0..<filled])
        } catch {
            throw .decode(error)
        }
        guard source.contains(where: { $0 != 0 }) else { throw .silent(path: url.path) }
        let resampled = resample(source, from: sourceRate, to: sampleRate)
        return ClickSound(sampleRate: sampleRate, normal: resampled.map { $0 * 0.5 }, accent: resampled)
    }

    private static func burst(frequency: Double, peak: Double, sampleRate: Int) -> [Float] {
        let rate = Double(sampleRate)
        let count = Int((0.025 * rate).rounded())
        let decay = 0.005 * rate
        return (0..<count).map { index in
            let n = Double(index)
            let fade = count - index < 32 ? Double(count - index) / 32 : 1
            return Float(peak * cos(2 * Double.pi * frequency * n / rate) * exp(-n / decay) * fade)
        }
    }

    private static func resample(_ samples: [Float], from source: Int, to target: Int) -> [Float] {
        guard source != target, samples.count > 1 else { return samples }
        let ratio = Double(source) / Double(target)
        let count = Int(Double(samples.count) / ratio)
        return (0..<count).map { index in
            let position = Double(index) * ratio
            let lower = Int(position)
            let fraction = Float(position - Double(lower))
            let upper = min(lower + 1, samples.count - 1)
            return samples[lower] * (1 - fraction) + samples[upper] * fraction
        }
    }
}

/// Converts decibels to a linear gain.
public func linearGain(decibels: Double) -> Float { Float(pow(10, decibels / 20)) }
