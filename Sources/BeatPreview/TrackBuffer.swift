// SPDX-License-Identifier: GPL-3.0-or-later

public import BeatAudio
public import Foundation
import Synchronization

/// Decoded audio held in memory as interleaved `Float` frames, filled by a decoder (possibly on
/// another thread, ahead of playback) and read by the mixer (possibly on the realtime audio thread).
///
/// Storage is a table of fixed-size chunks allocated by the decoder, so the track can grow beyond what
/// its header announced without ever moving samples a reader may be reading. The decoder publishes
/// each finished block by a release-store of ``availableFrames``; readers load it with acquire ordering
/// and touch only frames below it.
///
/// `@unchecked Sendable` is safe because of that protocol: the chunk table's slots and the samples of
/// frames at or beyond ``availableFrames`` are written only by the single decoder, before the release
/// store that makes them visible; nothing below ``availableFrames`` is ever written again; and chunks
/// are freed only in `deinit`, when no reader or decoder can hold the object.
@available(macOS 15, iOS 18, tvOS 18, visionOS 2, *)
public final class TrackBuffer: @unchecked Sendable {
    /// Frames per chunk (a power of two).
    public static let chunkFrames = 1 << 16
    private static let chunkShift = 16
    /// The longest track held: 6 hours at 192 kHz.
    public static let maximumFrames = 6 * 3600 * 192_000

    /// The source file's path, for messages.
    public let path: String
    /// Frames per second.
    public let sampleRate: Int
    /// Interleaved channels per frame: the source's for mono and stereo, 1 (a mix-down) for more.
    public let channels: Int
    /// Frames that may be read (decoded and published).
    public var availableFrames: Int { published.load(ordering: .acquiring) }
    /// Whether decoding has finished (successfully or not).
    public var isComplete: Bool { complete.load(ordering: .acquiring) }
    /// Why decoding stopped early, if it did; read after ``isComplete`` turns true.
    public var failure: AudioDecodeError? { failureBox.withLock { $0 } }
    /// Duration of the frames decoded so far in seconds.
    public var availableDuration: TimeInterval { Double(availableFrames) / Double(sampleRate) }

    private let chunkTable: UnsafeMutablePointer<UnsafeMutablePointer<Float>?>
    private let chunkCapacity: Int
    private let published = Atomic<Int>(0)
    private let complete = Atomic<Bool>(false)
    private let failureBox = Mutex<AudioDecodeError?>(nil)
    private let sourceChannels: Int

    private init(path: String, sampleRate: Int, sourceChannels: Int) {
        self.path = path
        self.sampleRate = sampleRate
        self.sourceChannels = sourceChannels
        channels = sourceChannels <= 2 ? sourceChannels : 1
        chunkCapacity = Self.maximumFrames / Self.chunkFrames + 1
        chunkTable = .allocate(capacity: chunkCapacity)
        chunkTable.initialize(repeating: nil, count: chunkCapacity)
    }

    deinit {
        for index in 0..<chunkCapacity { chunkTable[index]?.deallocate() }
        chunkTable.deallocate()
    }

    /// Decodes the whole of `url` before returning.
    public static func decode(_ url: URL) throws(AudioDecodeError) -> TrackBuffer {
        let reader = try AudioFileReader(url: url)
        let track = TrackBuffer(path: url.path, sampleRate: reader.sampleRate, sourceChannels: reader.channels)
        track.fill(from: reader)
        if let failure = track.failure { throw failure }
        guard track.availableFrames > 0 else { throw .empty(path: url.path) }
        return track
    }

    /// Opens `url` (errors in the header are thrown here) and decodes it on a background thread.
    /// Returns once `leadSeconds` of audio (or the whole file, if shorter) are available, so playback
    /// can start while the rest is decoded ahead of it.
    public static func decodeAhead(_ url: URL, leadSeconds: TimeInterval = 0.5) throws(AudioDecodeError) -> TrackBuffer
    {
        let reader = try AudioFileReader(url: url)
        let track = TrackBuffer(path: url.path, sampleRate: reader.sampleRate, sourceChannels: reader.channels)
        let box = ReaderBox(reader)
        let thread = Thread { track.fill(from: box.take()) }
        thread.name = "beatmap-decoder"
        thread.qualityOfService = .userInitiated
        thread.start()
        let lead = Int(leadSeconds * Double(reader.sampleRate))
        while !track.isComplete && track.availableFrames < lead { usleep(1_000) }
        if track.isComplete, let failure = track.failure, track.availableFrames == 0 { throw failure }
        if track.isComplete, track.availableFrames == 0 { throw .empty(path: url.path) }
        return track
    }

    /// Blocks until decoding has finished.
    public func waitUntilComplete() {
        while !isComplete { usleep(1_000) }
    }

    /// Copies `count` frames starting at `frame` into `destination` (interleaved, ``channels`` per
    /// frame), adding them scaled by `gain`. Frames that are not available are skipped (silence).
    /// Realtime-safe: no allocation, no locks, no I/O.
    public func addFrames(from frame: Int, count: Int, gain: Float, into destination: UnsafeMutablePointer<Float>) {
        let available = availableFrames
        var position = max(frame, 0)
        let end = min(frame + count, available)
        while position < end {
            let chunkIndex = position >> Self.chunkShift
            let inChunk = position & (Self.chunkFrames - 1)
            let run = min(Self.chunkFrames - inChunk, end - position)
            guard let chunk = chunkTable[chunkIndex] else { return }
            let source = chunk + inChunk * channels
            let target = destination + (position - frame) * channels
            for sample in 0..<(run * channels) { target[sample] += source[sample] * gain }
            position += run
        }
    }

    /// The sample of `channel` at `frame` (0 when not available).
    public func sample(frame: Int, channel: Int) -> Float {
        guard frame >= 0, frame < availableFrames, channel >= 0, channel < channels,
            let chunk = chunkTable[frame >> Self.chunkShift]
        else { return 0 }
        return chunk[(frame & (Self.chunkFrames - 1)) * channels + channel]
    }

    /// Decoder side: reads `reader` to the end into the chunks, publishing after each block.
    private func fill(from reader: AudioFileReader) {
        let block = 8_192
        let scratch = UnsafeMutablePointer<Float>.allocate(capacity: block * sourceChannels)
        defer {
            scratch.deallocate()
            complete.store(true, ordering: .releasing)
        }
        var written = 0
        while true {
            let frames: Int
            do {
                frames = try reader.readInterleaved(into: scratch, frames: block)
            } catch {
                failureBox.withLock { $0 = error }
                return
            }
            if frames == 0 { return }
            var done = 0
            while done < frames {
                let frame = written + done
                guard frame < Self.maximumFrames else {
                    failureBox.withLock {
                        $0 = .unsupported(path: path, reason: "longer than \(Self.maximumFrames) frames")
                    }
                    return
                }
                let chunkIndex = frame >> Self.chunkShift
                let inChunk = frame & (Self.chunkFrames - 1)
                let chunk: UnsafeMutablePointer<Float>
                if let existing = chunkTable[chunkIndex] {
                    chunk = existing
                } else {
                    chunk = .allocate(capacity: Self.chunkFrames * channels)
                    chunkTable[chunkIndex] = chunk
                }
                let run = min(Self.chunkFrames - inChunk, frames - done)
                let target = chunk + inChunk * channels
                let source = scratch + done * sourceChannels
                if channels == sourceChannels {
                    target.update(from: source, count: run * channels)
                } else {
                    let scale = 1 / Float(sourceChannels)
                    for index in 0..<run {
                        var sum: Float = 0
                        for channel in 0..<sourceChannels { sum += source[index * sourceChannels + channel] }
                        target[index] = sum * scale
                    }
                }
                done += run
            }
            written += frames
            published.store(written, ordering: .releasing)
        }
    }
}

/// Hands a reader to the decoder thread. `@unchecked Sendable` is safe: the reader is created on the
/// calling thread, which never touches it again after passing the box to the thread that takes it.
private final class ReaderBox: @unchecked Sendable {
    private let reader: AudioFileReader
    init(_ reader: AudioFileReader) { self.reader = reader }
    func take() -> AudioFileReader { reader }
}
