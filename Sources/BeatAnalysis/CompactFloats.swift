// SPDX-License-Identifier: GPL-3.0-or-later

/// Floats kept in half the memory: each one as the upper 16 bits of its IEEE single (bfloat16),
/// rounded to nearest — 8 significant bits (0.4 %) and the full exponent range. For the curves the
/// streaming pass keeps over long stretches (the pitch-class profile, the transient blocks), whose
/// values matter to a percent and whose memory counts against an hour's 64 MB.
public struct CompactFloats: RandomAccessCollection, Sendable, Equatable {
    /// The stored bits, one value each.
    public private(set) var bits: [UInt16] = []

    /// No values.
    public init() {}

    /// `values`, each rounded to the nearest bfloat16.
    public init<Values: Sequence>(_ values: Values) where Values.Element == Float {
        bits = values.map(Self.encoded)
    }

    /// Appends `value`, rounded to the nearest bfloat16.
    public mutating func append(_ value: Float) { bits.append(Self.encoded(value)) }

    /// Makes room for `count` values.
    public mutating func reserveCapacity(_ count: Int) { bits.reserveCapacity(count) }

    /// 0.
    public var startIndex: Int { 0 }
    /// The number of values.
    public var endIndex: Int { bits.count }

    /// The value at `position`.
    public subscript(position: Int) -> Float { Float(bitPattern: UInt32(bits[position]) << 16) }

    /// The bfloat16 nearest `value` (ties to even); NaN stays NaN.
    static func encoded(_ value: Float) -> UInt16 {
        guard !value.isNaN else { return 0x7FC0 }
        let pattern = value.bitPattern
        return UInt16(truncatingIfNeeded: (pattern &+ 0x7FFF &+ ((pattern >> 16) & 1)) >> 16)
    }
}
