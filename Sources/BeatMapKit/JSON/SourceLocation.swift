// SPDX-License-Identifier: GPL-3.0-or-later

/// A position in a text file: 1-based line and column (columns count UTF-8 bytes).
public struct SourceLocation: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// 1-based line.
    public var line: Int
    /// 1-based column.
    public var column: Int

    /// A location at `line`:`column`.
    public init(line: Int, column: Int) {
        self.line = line
        self.column = column
    }

    /// The start of a file.
    public static let start = SourceLocation(line: 1, column: 1)

    public var description: String { "\(line):\(column)" }

    public static func < (lhs: SourceLocation, rhs: SourceLocation) -> Bool {
        (lhs.line, lhs.column) < (rhs.line, rhs.column)
    }
}

/// Turns byte offsets into line/column positions with a binary search over line starts.
public struct LineIndex: Sendable {
    private let lineStarts: [Int]

    /// Indexes the lines of `bytes`.
    public init(_ bytes: some Collection<UInt8>) {
        var starts = [0]
        var offset = 0
        for byte in bytes {
            offset += 1
            if byte == UInt8(ascii: "\n") { starts.append(offset) }
        }
        lineStarts = starts
    }

    /// The location of byte `offset`.
    public func location(ofOffset offset: Int) -> SourceLocation {
        var low = 0
        var high = lineStarts.count - 1
        while low < high {
            let mid = (low + high + 1) / 2
            if lineStarts[mid] <= offset { low = mid } else { high = mid - 1 }
        }
        return SourceLocation(line: low + 1, column: offset - lineStarts[low] + 1)
    }
}
