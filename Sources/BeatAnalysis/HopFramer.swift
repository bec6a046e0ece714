// SPDX-License-Identifier: GPL-3.0-or-later

/// Cuts a stream of sample blocks of any length into consecutive hops of a fixed length, the unit
/// aubio's detectors take. Samples left over at the end of a block wait for the next one; the last
/// partial hop is zero-padded by ``finish(_:)``. One framer belongs to one analysis at a time.
final class HopFramer {
    /// Samples per hop.
    let hop: Int
    private let pending: UnsafeMutablePointer<Float>
    private var pendingCount = 0

    /// A framer of `hop`-sample hops.
    init(hop: Int) {
        self.hop = hop
        pending = UnsafeMutablePointer<Float>.allocate(capacity: hop)
    }

    deinit { pending.deallocate() }

    /// Calls `body` with every hop that `count` samples of `block` complete, in order.
    func feed(_ block: UnsafePointer<Float>, count: Int, _ body: (UnsafePointer<Float>) -> Void) {
        var offset = 0
        if pendingCount > 0 {
            let take = min(hop - pendingCount, count)
            (pending + pendingCount).update(from: block, count: take)
            pendingCount += take
            offset = take
            if pendingCount == hop {
                body(pending)
                pendingCount = 0
            }
        }
        while count - offset >= hop {
            body(block + offset)
            offset += hop
        }
        if offset < count {
            pending.update(from: block + offset, count: count - offset)
            pendingCount = count - offset
        }
    }

    /// Calls `body` with the last partial hop, zero-padded, if samples are waiting.
    func finish(_ body: (UnsafePointer<Float>) -> Void) {
        guard pendingCount > 0 else { return }
        (pending + pendingCount).update(repeating: 0, count: hop - pendingCount)
        body(pending)
        pendingCount = 0
    }
}
