// SPDX-License-Identifier: GPL-3.0-or-later

import Foundation

/// Tells a truncated Ogg file from a complete one by its last pages. An Ogg stream has no length in
/// its headers, so libsndfile decodes a cut file to its cut without complaint; but every Ogg page
/// carries its own length and CRC, and a complete stream ends with a page flagged end-of-stream.
///
/// The check reads the file's last 256 KiB (an Ogg page is at most 65,307 bytes) and finds the last page
/// whose CRC is right. When that page is not flagged end-of-stream the file is truncated: cut inside
/// the next page when bytes follow it, at a page boundary when none do.
enum OggTail {
    /// Bytes read from the end of the file.
    static let window = 256 * 1024
    /// Bytes in a page header before its segment table.
    static let headerSize = 27

    /// Why the Ogg file at `path` looks truncated, or `nil` when it ends with a complete end-of-stream
    /// page (or cannot be read here; the decoder reports unreadable files).
    static func truncation(ofFileAt path: String) -> String? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        guard let size = try? handle.seekToEnd(), size > 0 else { return nil }
        let start = size > UInt64(window) ? size - UInt64(window) : 0
        guard (try? handle.seek(toOffset: start)) != nil, let data = try? handle.readToEnd() else { return nil }
        return truncation(ofTail: [UInt8](data))
    }

    /// The check on the last bytes of a file (`tail` ends where the file ends).
    static func truncation(ofTail tail: [UInt8]) -> String? {
        var position = tail.count - headerSize
        while position >= 0 {
            if let end = pageEnd(in: tail, at: position) {
                // A last page flagged end-of-stream completes the stream, whatever follows it (some
                // taggers append an ID3v1 tag even to Ogg files).
                if tail[position + 5] & 0x04 != 0 { return nil }
                if end < tail.count {
                    return
                        "the last Ogg page is cut short (\(tail.count - end) bytes after the last complete page); the file is truncated"
                }
                return "the Ogg stream ends without its end-of-stream page; the file is truncated"
            }
            position -= 1
        }
        // No complete page in the window: not something this check can judge.
        return nil
    }

    /// Where the page starting at `offset` ends, if a whole page with a correct CRC starts there.
    static func pageEnd(in bytes: [UInt8], at offset: Int) -> Int? {
        guard offset + headerSize <= bytes.count, bytes[offset] == 0x4F, bytes[offset + 1] == 0x67,
            bytes[offset + 2] == 0x67, bytes[offset + 3] == 0x53, bytes[offset + 4] == 0
        else { return nil }
        let segments = Int(bytes[offset + 26])
        let tableEnd = offset + headerSize + segments
        guard tableEnd <= bytes.count else { return nil }
        var end = tableEnd
        for index in (offset + headerSize)..<tableEnd { end += Int(bytes[index]) }
        guard end <= bytes.count else { return nil }
        let stored =
            UInt32(bytes[offset + 22]) | UInt32(bytes[offset + 23]) << 8 | UInt32(bytes[offset + 24]) << 16
            | UInt32(bytes[offset + 25]) << 24
        return crc(of: bytes, from: offset, to: end) == stored ? end : nil
    }

    /// The Ogg CRC-32 (polynomial 0x04C11DB7, no reflection, initial 0, no final xor) of
    /// `bytes[from..<to]`, with the page's CRC field (bytes 22–25 of the page) counted as zeros.
    static func crc(of bytes: [UInt8], from: Int, to: Int) -> UInt32 {
        var crc: UInt32 = 0
        for index in from..<to {
            let byte = index - from >= 22 && index - from < 26 ? 0 : bytes[index]
            crc = (crc << 8) ^ table[Int((crc >> 24) ^ UInt32(byte))]
        }
        return crc
    }

    /// The CRC table for one byte at a time.
    static let table: [UInt32] = (0..<256).map { value in
        var entry = UInt32(value) << 24
        for _ in 0..<8 { entry = entry & 0x8000_0000 != 0 ? (entry << 1) ^ 0x04C1_1DB7 : entry << 1 }
        return entry
    }
}
