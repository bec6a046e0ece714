// SPDX-License-Identifier: GPL-3.0-or-later

public import BeatAudio
import BeatMapKit
public import Foundation

/// The waveform overview of an audio file: the lowest and highest sample of each run of
/// ``bucketFrames`` frames (over all channels), scaled to −127…127, read with the streaming decoder in
/// constant memory apart from the result.
public struct WaveformPeaks: Sendable, Equatable {
    /// The file's sample rate in Hz.
    public var sampleRate: Int
    /// Frames decoded.
    public var frames: Int
    /// Frames per bucket.
    public var bucketFrames: Int
    /// Interleaved minimum and maximum of each bucket, −127…127.
    public var values: [Int8]

    /// Buckets per second aimed for (5 ms each), unless the track is so long that ``maximumBuckets``
    /// caps them.
    public static let bucketsPerSecond = 200
    /// The most buckets a track gets (about 17 minutes at 5 ms; longer tracks get coarser buckets).
    public static let maximumBuckets = 200_000

    /// Peaks of `values` (interleaved min/max pairs).
    public init(sampleRate: Int, frames: Int, bucketFrames: Int, values: [Int8]) {
        self.sampleRate = sampleRate
        self.frames = frames
        self.bucketFrames = bucketFrames
        self.values = values
    }

    /// Decodes `url` block by block and keeps each bucket's extremes.
    public static func read(_ url: URL) throws(AudioDecodeError) -> WaveformPeaks {
        let reader = try AudioFileReader(url: url)
        let rate = reader.sampleRate
        var bucket = max(1, rate / bucketsPerSecond)
        if reader.declaredFrames > 0 {
            let needed = Int((reader.declaredFrames + Int64(maximumBuckets) - 1) / Int64(maximumBuckets))
            bucket = max(bucket, needed)
        }
        let channels = reader.channels
        let blockFrames = 16_384
        var block = [Float](repeating: 0, count: blockFrames * channels)
        var values: [Int8] = []
        var low: Float = 0
        var high: Float = 0
        var inBucket = 0
        var frames = 0
        func flush() {
            values.append(scaled(low))
            values.append(scaled(high))
            low = 0
            high = 0
            inBucket = 0
        }
        while true {
            let read = try block.withUnsafeMutableBufferPointer { buffer throws(AudioDecodeError) -> Int in
                guard let base = buffer.baseAddress else { return 0 }
                return try reader.readInterleaved(into: base, frames: blockFrames)
            }
            if read == 0 { break }
            for frame in 0..<read {
                for channel in 0..<channels {
                    let sample = block[frame * channels + channel]
                    low = min(low, sample)
                    high = max(high, sample)
                }
                inBucket += 1
                if inBucket == bucket {
                    flush()
                    // A file longer than it declared: merge neighbouring buckets to stay under the cap.
                    if values.count >= 2 * maximumBuckets {
                        values = merged(values)
                        bucket *= 2
                    }
                }
            }
            frames += read
        }
        if inBucket > 0 { flush() }
        return WaveformPeaks(sampleRate: rate, frames: frames, bucketFrames: bucket, values: values)
    }

    /// Each two neighbouring buckets made one.
    private static func merged(_ values: [Int8]) -> [Int8] {
        var out: [Int8] = []
        out.reserveCapacity(values.count / 2 + 2)
        var index = 0
        while index + 3 < values.count {
            out.append(min(values[index], values[index + 2]))
            out.append(max(values[index + 1], values[index + 3]))
            index += 4
        }
        if index + 1 < values.count {
            out.append(values[index])
            out.append(values[index + 1])
        }
        return out
    }

    private static func scaled(_ sample: Float) -> Int8 {
        Int8(max(-127, min(127, (sample * 127).rounded())))
    }

    /// `{"sampleRate":…,"frames":…,"bucketFrames":…,"peaks":[min,max,…]}`.
    public var json: String {
        JSONWriter.compactString(
            .object(
                JSONObject([
                    ("sampleRate", .int(sampleRate)), ("frames", .int(frames)), ("bucketFrames", .int(bucketFrames)),
                    ("peaks", .array(values.map { .int(Int($0)) })),
                ])))
    }
}
