// SPDX-License-Identifier: GPL-3.0-or-later

/// A single byte range of an HTTP `Range: bytes=…` request (RFC 9110 §14.1.2), resolved against the
/// length of the resource.
public struct ByteRange: Sendable, Equatable {
    /// The first byte served.
    public var first: Int
    /// The last byte served (inclusive).
    public var last: Int

    /// Bytes `first...last`.
    public init(first: Int, last: Int) {
        self.first = first
        self.last = last
    }

    /// How many bytes the range holds.
    public var count: Int { last - first + 1 }

    /// What a `Range` header asks of a resource of `length` bytes.
    public enum Request: Sendable, Equatable {
        /// No usable range: serve the whole resource with 200 (an unknown unit, several ranges, or a
        /// malformed header, which RFC 9110 lets a server ignore).
        case whole
        /// Serve this part with 206.
        case partial(ByteRange)
        /// The range starts at or past the end: 416 with `Content-Range: bytes */length`.
        case unsatisfiable
    }

    /// Resolves the header value `header` (e.g. `bytes=0-1023`, `bytes=1024-`, `bytes=-500`) against a
    /// resource of `length` bytes. Only one range is honoured; a list of several is served whole.
    public static func resolve(_ header: String, length: Int) -> Request {
        let trimmed = header.trimmingWhitespace()
        guard trimmed.lowercased().hasPrefix("bytes=") else { return .whole }
        let spec = trimmed.dropFirst("bytes=".count).trimmingWhitespace()
        guard !spec.contains(","), let dash = spec.firstIndex(of: "-") else { return .whole }
        let start = spec[..<dash].trimmingWhitespace()
        let end = spec[spec.index(after: dash)...].trimmingWhitespace()
        guard start.allSatisfy(\.isASCIIDigit), end.allSatisfy(\.isASCIIDigit) else { return .whole }
        if start.isEmpty {
            // A suffix: the last N bytes.
            guard let suffix = Int(end) else { return .whole }
            guard suffix > 0, length > 0 else { return .unsatisfiable }
            return .partial(ByteRange(first: max(0, length - suffix), last: length - 1))
        }
        guard let first = Int(start) else { return .unsatisfiable }  // too large to be inside the file
        guard first < length else { return .unsatisfiable }
        if end.isEmpty { return .partial(ByteRange(first: first, last: length - 1)) }
        guard let last = Int(end) else { return .partial(ByteRange(first: first, last: length - 1)) }
        guard last >= first else { return .whole }
        return .partial(ByteRange(first: first, last: min(last, length - 1)))
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}

extension StringProtocol {
    fileprivate func trimmingWhitespace() -> Substring {
        let characters = Substring(self)
        guard let start = characters.firstIndex(where: { $0 != " " && $0 != "\t" }) else { return "" }
        guard let end = characters.lastIndex(where: { $0 != " " && $0 != "\t" }) else { return "" }
        return characters[start...end]
    }
}
