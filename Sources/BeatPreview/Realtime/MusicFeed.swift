// SPDX-License-Identifier: GPL-3.0-or-later

import BeatAudio
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The music for the realtime callback: a producer thread decodes (and, at another device rate,
/// resamples with libsoxr) the track into a ring of fixed blocks a few seconds ahead of playback; the
/// callback only copies from the ring. Memory is the ring's (``slotCount`` × ``blockFrames`` frames, about
/// 3 s), whatever the track's length.
///
/// The callback asks for the frames it wants next. A block is used when it starts where the callback is
/// (the producer follows the bar loop itself, so a loop wraps without a gap); a block of an abandoned
/// request, or one that does not continue the playing position, is dropped and the producer is asked
/// to start at the wanted frame (a seek). Asking is one compare-and-swap of a packed
/// generation/frame word, so the control thread (seeks) and the callback (a loop set after the producer
/// had passed its end) may both ask.
///
/// `@unchecked Sendable` is safe: the ring is single-producer single-consumer. The producer thread
/// writes a slot's samples, start, length and generation only while the slot is free (`written − read <
/// slotCount`) and publishes it by a release-store of `written`; the consumer (the realtime callback;
/// one at a time, as a stream is closed before another opens) reads a slot only below `written`
/// (acquire) and frees it by a release-store of `read`. `headOffset` is the consumer's alone.
/// The stream belongs to the producer thread once it starts. Buffers are freed in `deinit`, after the
/// producer has exited (it holds the feed until then) and no stream holds it.
@available(macOS 15, iOS 18, tvOS 18, visionOS 2, *)
final class MusicFeed: @unchecked Sendable {
    /// Frames per block.
    static let blockFrames = 1_024
    /// Blocks in the ring.
    static let slotCount = 128
    /// Marks "none" in the frame atomics.
    static let none = -1
    private static let frameBits = 40
    private static let frameMask = (1 << frameBits) - 1

    /// Frames per second (the device's).
    let sampleRate: Int
    /// Interleaved channels.
    let channels: Int
    /// The track's length in frames once the producer has met its end, else ``none``.
    let trackFrames = Atomic<Int>(MusicFeed.none)
    /// Where the producer stopped for the current request (the end of the track, or a failed seek), else
    /// ``none``.
    let endedAt = Atomic<Int>(MusicFeed.none)
    /// The frame the producer makes next.
    let producerNext = Atomic<Int>(0)
    /// Frames made for the latest request (for waiting until playback can start).
    let producedForRequest = Atomic<Int>(0)
    /// Why decoding stopped, if it failed.
    let failure = Mutex<AudioDecodeError?>(nil)
    /// The estimated length in frames from the header.
    let estimatedFrames: Int?

    private let samples: UnsafeMutablePointer<Float>
    private let starts: UnsafeMutablePointer<Int>
    private let counts: UnsafeMutablePointer<Int>
    private let generations: UnsafeMutablePointer<Int>
    private let written = Atomic<Int>(0)
    private let read = Atomic<Int>(0)
    private let request = Atomic<Int>(0)
    private let stopping = Atomic<Bool>(false)
    private let transport: TransportState
    private var headOffset = 0

    /// A feed of `stream` (at the device's rate) that follows `transport`'s bar loop. The producer starts
    /// at frame 0.
    init(stream: AudioStream, transport: TransportState) {
        sampleRate = stream.sampleRate
        channels = stream.channels
        estimatedFrames = stream.estimatedFrames
        self.transport = transport
        samples = .allocate(capacity: Self.slotCount * Self.blockFrames * stream.channels)
        starts = .allocate(capacity: Self.slotCount)
        starts.initialize(repeating: 0, count: Self.slotCount)
        counts = .allocate(capacity: Self.slotCount)
        counts.initialize(repeating: 0, count: Self.slotCount)
        generations = .allocate(capacity: Self.slotCount)
        generations.initialize(repeating: 0, count: Self.slotCount)
        let box = StreamBox(stream)
        let thread = Thread { [self] in produce(box.take()) }
        thread.name = "beatmap-music"
        thread.qualityOfService = .userInitiated
        thread.start()
    }

    deinit {
        samples.deallocate()
        starts.deallocate()
        counts.deallocate()
        generations.deallocate()
    }

    /// Stops the producer thread (it exits within a block).
    func stop() { stopping.store(true, ordering: .releasing) }

    /// Frames ring memory holds.
    static var capacityFrames: Int { slotCount * blockFrames }

    // MARK: Requests (any thread; lock-free)

    /// Asks the producer to continue from `frame` (a new generation), unless the latest request is for
    /// that frame already.
    func request(frame: Int) {
        let wanted = min(max(frame, 0), Self.frameMask)
        var current = request.load(ordering: .acquiring)
        while true {
            if current & Self.frameMask == wanted { return }
            let next = ((current >> Self.frameBits) + 1) << Self.frameBits | wanted
            let (exchanged, original) = request.compareExchange(
                expected: current, desired: next, ordering: .acquiringAndReleasing)
            if exchanged { return }
            current = original
        }
    }

    /// Control thread: asks for `frame` and waits (up to `timeout` seconds) until the producer has made
    /// `frames` frames from there, or met the end.
    func prepare(frame: Int, frames: Int, timeout: TimeInterval) {
        request(frame: frame)
        let wanted = min(max(frame, 0), Self.frameMask)
        let generation = request.load(ordering: .acquiring) >> Self.frameBits
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            let current = request.load(ordering: .acquiring)
            if current >> Self.frameBits != generation || current & Self.frameMask != wanted { return }
            if producerGeneration.load(ordering: .acquiring) == generation
                && (producedForRequest.load(ordering: .acquiring) >= frames
                    || endedAt.load(ordering: .acquiring) != Self.none)
            {
                return
            }
            usleep(1_000)
        }
    }

    private let producerGeneration = Atomic<Int>(-1)

    // MARK: Consumer (the realtime callback; no allocation, no locks, no I/O)

    /// Copies the music for frames `position ..< position + count` into `destination` as far as the ring
    /// holds them in order; returns the frames copied (from `position`, contiguous). Drops blocks that do
    /// not continue `position` and asks for it.
    func take(from position: Int, count: Int, into destination: UnsafeMutablePointer<Float>) -> Int {
        let latest = request.load(ordering: .acquiring) >> Self.frameBits
        var done = 0
        while done < count {
            let consumed = read.load(ordering: .relaxed)
            guard consumed < written.load(ordering: .acquiring) else { break }
            let slot = consumed % Self.slotCount
            let start = starts[slot] + headOffset
            if generations[slot] != latest || start != position + done {
                headOffset = 0
                read.store(consumed + 1, ordering: .releasing)
                continue
            }
            let run = min(counts[slot] - headOffset, count - done)
            let source = samples + (slot * Self.blockFrames + headOffset) * channels
            (destination + done * channels).update(from: source, count: run * channels)
            done += run
            headOffset += run
            if headOffset >= counts[slot] {
                headOffset = 0
                read.store(consumed + 1, ordering: .releasing)
            }
        }
        if done < count && producerNext.load(ordering: .acquiring) != position + done {
            request(frame: position + done)
        }
        return done
    }

    /// Drops blocks of abandoned requests (while paused, so a seek's blocks find room).
    func dropStale() {
        let latest = request.load(ordering: .acquiring) >> Self.frameBits
        while true {
            let consumed = read.load(ordering: .relaxed)
            guard consumed < written.load(ordering: .acquiring),
                generations[consumed % Self.slotCount] != latest
            else { return }
            headOffset = 0
            read.store(consumed + 1, ordering: .releasing)
        }
    }

    /// Whether the producer stopped at `frame` for good (the end of the track, or a failure).
    func hasEnded(at frame: Int) -> Bool {
        let end = endedAt.load(ordering: .acquiring)
        return end != Self.none && end <= frame && producerNext.load(ordering: .acquiring) == end
    }

    // MARK: Producer thread

    private func produce(_ stream: AudioStream) {
        var generation = -1
        var next = 0
        var ended = false
        // Whether a block was read since the last seek: only then does an empty read mark the track's end
        // (a seek past the end reads nothing too).
        var readSinceSeek = false
        while !stopping.load(ordering: .acquiring) {
            let current = request.load(ordering: .acquiring)
            if current >> Self.frameBits != generation {
                generation = current >> Self.frameBits
                next = current & Self.frameMask
                ended = false
                endedAt.store(Self.none, ordering: .relaxed)
                producedForRequest.store(0, ordering: .relaxed)
                readSinceSeek = false
                do { try stream.seek(toFrame: next) } catch {
                    fail(error, at: next)
                    ended = true
                }
                producerNext.store(next, ordering: .releasing)
                producerGeneration.store(generation, ordering: .releasing)
                continue
            }
            let slots = written.load(ordering: .relaxed)
            if ended || slots - read.load(ordering: .acquiring) >= Self.slotCount {
                usleep(1_000)
                continue
            }
            let loopStart = transport.loopStart.load(ordering: .relaxed)
            let loopEnd = transport.loopEnd.load(ordering: .relaxed)
            let looping = loopStart != TransportState.none && loopEnd > loopStart && next < loopEnd
            let want = looping ? min(Self.blockFrames, loopEnd - next) : Self.blockFrames
            let slot = slots % Self.slotCount
            let count: Int
            do {
                count = try stream.read(into: samples + slot * Self.blockFrames * channels, frames: want)
            } catch {
                fail(error, at: next)
                ended = true
                continue
            }
            if count == 0 {
                if readSinceSeek && trackFrames.load(ordering: .relaxed) == Self.none {
                    trackFrames.store(next, ordering: .releasing)
                }
                ended = true
                endedAt.store(next, ordering: .releasing)
                continue
            }
            readSinceSeek = true
            starts[slot] = next
            counts[slot] = count
            generations[slot] = generation
            written.store(slots + 1, ordering: .releasing)
            next += count
            producedForRequest.add(count, ordering: .releasing)
            if looping && next >= loopEnd {
                next = loopStart
                readSinceSeek = false
                do { try stream.seek(toFrame: next) } catch {
                    fail(error, at: next)
                    ended = true
                }
            }
            producerNext.store(next, ordering: .releasing)
        }
    }

    private func fail(_ error: AudioDecodeError, at frame: Int) {
        failure.withLock { $0 = error }
        endedAt.store(frame, ordering: .releasing)
    }
}

/// Hands the stream to the producer thread. `@unchecked Sendable` is safe: the stream is created on the
/// control thread, which never touches it again after passing the box to the thread that takes it.
private final class StreamBox: @unchecked Sendable {
    private let stream: AudioStream
    init(_ stream: AudioStream) { self.stream = stream }
    func take() -> AudioStream { stream }
}
