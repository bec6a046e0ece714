// SPDX-License-Identifier: GPL-3.0-or-later

import CCrypto
public import Foundation

/// The SHA-256 of audio files, computed with OpenSSL's libcrypto (the `sha256` the maps record).
///
/// Why not `BeatMapKit`'s `SHA256Hasher`: that one is plain Swift so that the core library needs only
/// Foundation, and runs at about 210 MB/s here; libcrypto uses the processor's SHA extensions or its
/// vector units, about 1.5 GB/s. A 4-minute WAV is 42 MB, and `analyze` hashes every file it reads
/// beside the analysis: the plain-Swift hash was a quarter of the CPU time of a WAV's analysis.
/// The digests are the same (FIPS 180-4; `FileDigestTests` holds the two to each other).
public enum FileDigest {
    /// Bytes read at a time (64 KiB): small beside the analysis's own memory, which runs beside it on
    /// another thread; larger blocks read no faster from the page cache.
    static let blockSize = 1 << 16

    /// The SHA-256 of the contents of the file at `url`, as 64 lowercase hex digits; an error that names
    /// the file when it cannot be read.
    public static func sha256Hex(ofFileAt url: URL) throws(FileDigestError) -> String {
        let handle: FileHandle
        do { handle = try FileHandle(forReadingFrom: url) } catch {
            throw .unreadable(path: url.path, reason: error.localizedDescription)
        }
        defer { try? handle.close() }
        var context = SHA256_CTX()
        guard SHA256_Init(&context) == 1 else { throw .unavailable(path: url.path) }
        while true {
            let block: Data
            do {
                guard let read = try handle.read(upToCount: blockSize), !read.isEmpty else { break }
                block = read
            } catch {
                throw .unreadable(path: url.path, reason: error.localizedDescription)
            }
            let status = block.withUnsafeBytes { bytes in SHA256_Update(&context, bytes.baseAddress, bytes.count) }
            guard status == 1 else { throw .unavailable(path: url.path) }
        }
        var digest = [UInt8](repeating: 0, count: Int(SHA256_DIGEST_LENGTH))
        let status = digest.withUnsafeMutableBufferPointer { buffer in SHA256_Final(buffer.baseAddress, &context) }
        guard status == 1 else { throw .unavailable(path: url.path) }
        let hexDigits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(64)
        for byte in digest.prefix(32) {
            text.append(hexDigits[Int(byte >> 4)])
            text.append(hexDigits[Int(byte & 0x0f)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}

/// Why a file's digest could not be computed.
public enum FileDigestError: Error, LocalizedError, Equatable {
    /// The file could not be opened or read.
    case unreadable(path: String, reason: String)
    /// libcrypto refused to compute SHA-256 (a library built without it).
    case unavailable(path: String)

    public var errorDescription: String? {
        switch self {
        case .unreadable(let path, let reason): return "\(path): cannot read it to hash it: \(reason)"
        case .unavailable(let path): return "\(path): libcrypto could not compute its SHA-256"
        }
    }
}
