// SPDX-License-Identifier: GPL-3.0-or-later

import BeatMapKit
import Foundation
import Testing

@testable import BeatAnalysis

@Suite("background hash")
struct BackgroundHashTests {
    /// Several threads wait at once, then read the result: ThreadSanitizer (tools/ci/sanitizers.sh runs
    /// this suite under it) reports a race if `wait()` writes state of its own, as it once did.
    @Test("waits from several threads at once all return the hash, and later waits return at once")
    func concurrentWaits() async throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("hash-\(UUID().uuidString).bin")
        try Data((0..<100_000).map { UInt8($0 % 251) }).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        let expected = try SHA256Hasher.hex(ofFileAt: url)
        let hash = BackgroundHash(of: url)
        let results = await withTaskGroup(of: String?.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    hash.wait()
                    return try? hash.result?.get()
                }
            }
            return await group.reduce(into: [String?]()) { $0.append($1) }
        }
        #expect(results.count == 8)
        #expect(results.allSatisfy { $0 == expected })
        hash.wait()
        #expect(try hash.result?.get() == expected)
    }
}
