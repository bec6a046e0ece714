// SPDX-License-Identifier: GPL-3.0-or-later

import BeatMapKit
import Foundation
import Testing

@testable import BeatAudio

/// Audio files' SHA-256 through libcrypto: the same digest as the core library's plain-Swift one, and
/// the FIPS 180-4 test vectors.
@Suite("File digest")
struct FileDigestTests {
    static func file(_ bytes: [UInt8]) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("digest-\(UUID().uuidString).bin")
        try Data(bytes).write(to: url)
        return url
    }

    @Test(
        "FIPS 180-4's vectors: the empty message, \"abc\", and the two-block 448-bit message",
        arguments: [
            ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
            ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
            (
                "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
                "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
            ),
        ])
    func vectors(message: String, digest: String) throws {
        let url = try Self.file(Array(message.utf8))
        defer { try? FileManager.default.removeItem(at: url) }
        #expect(try FileDigest.sha256Hex(ofFileAt: url) == digest)
    }

    @Test("over several read blocks and a ragged tail, the same digest as the core's SHA256Hasher")
    func sameAsTheCore() throws {
        // 2.5 read blocks and 7 bytes, of a pattern that repeats at no block boundary.
        let count = FileDigest.blockSize * 5 / 2 + 7
        let bytes = (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 2_654_435_761 >> 13) }
        let url = try Self.file(bytes)
        defer { try? FileManager.default.removeItem(at: url) }
        #expect(try FileDigest.sha256Hex(ofFileAt: url) == SHA256Hasher.hex(of: bytes))
        #expect(try FileDigest.sha256Hex(ofFileAt: url) == SHA256Hasher.hex(ofFileAt: url))
    }

    @Test("a missing file is an error that names it")
    func missingFile() {
        let url = URL(fileURLWithPath: "/nonexistent/beatmap-digest-missing.wav")
        let error = #expect(throws: FileDigestError.self) { try FileDigest.sha256Hex(ofFileAt: url) }
        guard case .unreadable(let path, _) = error else {
            Issue.record("expected unreadable, got \(String(describing: error))")
            return
        }
        #expect(path == url.path)
        #expect(error?.localizedDescription.hasPrefix("/nonexistent/beatmap-digest-missing.wav: ") == true)
    }
}
