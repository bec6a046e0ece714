// SPDX-License-Identifier: GPL-3.0-or-later

import Foundation

/// Decodes an audio file to mono at the analysis rate (``AnalysisInput``: libsndfile's decoding and the
/// mixdown, then libsoxr's resampling) on a thread of its own, a few blocks ahead of the analysis, so
/// that decoding (libvorbis, FLAC…) and aubio's analysis of one file run on two cores at once.
///
/// `@unchecked Sendable` is safe: the input (its reader and resampler) and each block's buffer and
/// count are touched by one thread at a time, handed over through the semaphores — the decoding thread owns a slot between `free.wait()`
/// and `filled.signal()`, the analysing thread between `filled.wait()` and `free.signal()`; a semaphore
/// signal/wait pair orders the writes before the reads. `failure` is written before the last
/// `filled.signal()` and read after the matching wait. The input belongs to the decoding thread from
/// `init` until it signals `finished`; ``forEachBlock(_:)`` returns only after waiting for that signal,
/// so the caller may read the input (its peak, the frames read) afterwards.
final class DecodingPipeline: @unchecked Sendable {
    /// Blocks decoded ahead.
    static let slots = 4

    private let input: AnalysisInput
    private let blockFrames: Int
    private let buffers: [UnsafeMutablePointer<Float>]
    /// One frame count per slot, in raw memory like the buffers: a Swift array here would make every
    /// element access an access to the whole array, so the two threads' accesses to different slots
    /// would race (ThreadSanitizer reports it).
    private let counts: UnsafeMutablePointer<Int>
    private var failure: AnalysisInputError?
    // Created at 0 and signalled up: libdispatch traps when a semaphore is freed below its initial value.
    private let free = DispatchSemaphore(value: 0)
    private let filled = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)
    private var next = 0
    private var ended = false

    /// Starts reading `input` in blocks of `blockFrames` samples.
    init(input: AnalysisInput, blockFrames: Int) {
        self.input = input
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
                count = try input.read(into: buffers[slot], capacity: blockFrames)
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

    /// Calls `body` with each block in order until the end of the file, then returns; throws the
    /// decoding or resampling error if there was one (after the blocks read before it).
    func forEachBlock(_ body: (UnsafeMutablePointer<Float>, Int) -> Void) throws(AnalysisInputError) {
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
