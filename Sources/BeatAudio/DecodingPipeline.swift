// SPDX-License-Identifier: GPL-3.0-or-later

import Foundation

/// Decodes an audio file to mono on a thread of its own, a few blocks ahead of the analysis, so that
/// decoding (libvorbis, FLAC…) and aubio's analysis of one file run on two cores at once.
///
/// `@unchecked Sendable` is safe: the reader and each block's buffer and count are touched by one thread
/// at a time, handed over through the semaphores — the decoding thread owns a slot between `free.wait()`
/// and `filled.signal()`, the analysing thread between `filled.wait()` and `free.signal()`; a semaphore
/// signal/wait pair orders the writes before the reads. `failure` is written before the last
/// `filled.signal()` and read after the matching wait.
package final class DecodingPipeline: @unchecked Sendable {
    /// Blocks decoded ahead.
    package static let slots = 4

    private let reader: AudioFileReader
    private let blockFrames: Int
    private let buffers: [UnsafeMutablePointer<Float>]
    /// One frame count per slot, in raw memory like the buffers: a Swift array here would make every
    /// element access an access to the whole array, so the two threads' accesses to different slots
    /// would race (ThreadSanitizer reports it).
    private let counts: UnsafeMutablePointer<Int>
    private var failure: AudioDecodeError?
    // Created at 0 and signalled up: libdispatch traps when a semaphore is freed below its initial value.
    private let free = DispatchSemaphore(value: 0)
    private let filled = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)
    private var next = 0
    private var ended = false

    /// Starts decoding `reader` in blocks of `blockFrames` mono frames.
    package init(reader: AudioFileReader, blockFrames: Int) {
        self.reader = reader
        self.blockFrames = blockFrames
        buffers = (0..<Self.slots).map { _ in UnsafeMutablePointer<Float>.allocate(capacity: blockFrames) }
        counts = UnsafeMutablePointer<Int>.allocate(capacity: Self.slots)
        counts.initialize(repeating: 0, count: Self.slots)
        for _ in 0..<Self.slots { free.signal() }
        let thread = Thread { [self] in decode() }
        thread.stackSize = 1 << 20
        thread.start()
    }

    deinit {
        // The decoding thread holds `self` until it has finished, so it is done here.
        for buffer in buffers { buffer.deallocate() }
        counts.deallocate()
    }

    private func decode() {
        var slot = 0
        while true {
            free.wait()
            let count: Int
            do {
                count = try reader.readMono(into: buffers[slot], frames: blockFrames)
            } catch {
                failure = error
                counts[slot] = 0
                filled.signal()
                break
            }
            counts[slot] = count
            filled.signal()
            if count == 0 { break }
            slot = (slot + 1) % Self.slots
        }
        finished.signal()
    }

    /// Calls `body` with each decoded block in order until the end of the file, then returns; throws
    /// the decoding error if there was one (after the blocks decoded before it).
    package func forEachBlock(_ body: (UnsafeMutablePointer<Float>, Int) -> Void) throws(AudioDecodeError) {
        guard !ended else { return }
        while true {
            filled.wait()
            let slot = next
            let count = counts[slot]
            if count == 0 { break }
            body(buffers[slot], count)
            next = (slot + 1) % Self.slots
            free.signal()
        }
        ended = true
        finished.wait()
        if let failure { throw failure }
    }
}
