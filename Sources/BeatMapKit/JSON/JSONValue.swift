// SPDX-License-Identifier: GPL-3.0-or-later

/// A JSON number that keeps the text it was read from, so a value we did not compute is written back
/// exactly as the author wrote it.
public struct JSONNumber: Sendable, Hashable {
    /// The number as a `Double` (may be non-finite for the `NaN`/`Infinity` extension tokens).
    public let value: Double
    /// The number's text in a JSON file.
    public let text: String

    /// A number read from a file, with its original text.
    init(value: Double, text: String) {
        self.value = value
        self.text = text
    }

    /// A number computed by us: rounded to microseconds and printed as a plain decimal.
    public init(_ value: Double) {
        self.value = value
        self.text = NumberFormatting.decimal(value)
    }

    /// An integer.
    public init(_ value: Int) {
        self.value = Double(value)
        self.text = String(value)
    }
}

/// An object's members in their order, which is the order they are written in.
public struct JSONObject: Sendable, Hashable, Sequence {
    /// The members, in order. Keys are unique.
    public private(set) var members: [(key: String, value: JSONValue)]

    /// An empty object.
    public init() { members = [] }

    /// An object with these members; a later duplicate key replaces the earlier value in place.
    public init(_ members: [(String, JSONValue)]) {
        self.members = []
        for (key, value) in members { self[key] = value }
    }

    /// The value for `key`, or `nil`. Setting `nil` removes the member; setting a new key appends it.
    public subscript(key: String) -> JSONValue? {
        get { members.first { $0.key == key }?.value }
        set {
            if let index = members.firstIndex(where: { $0.key == key }) {
                if let newValue { members[index].value = newValue } else { members.remove(at: index) }
            } else if let newValue {
                members.append((key, newValue))
            }
        }
    }

    /// Whether the object has no members.
    public var isEmpty: Bool { members.isEmpty }

    /// Iterates the members in order.
    public func makeIterator() -> IndexingIterator<[(key: String, value: JSONValue)]> {
        members.makeIterator()
    }

    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        lhs.members.count == rhs.members.count
            && zip(lhs.members, rhs.members).allSatisfy { $0.key == $1.key && $0.value == $1.value }
    }

    public func hash(into hasher: inout Hasher) {
        for member in members {
            hasher.combine(member.key)
            hasher.combine(member.value)
        }
    }
}

/// A JSON value without source positions: free-form data such as a map's `analysis` block or the
/// members of a map that this version of the format does not know about.
public enum JSONValue: Sendable, Hashable {
    case null
    case bool(Bool)
    case number(JSONNumber)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)

    /// A computed number (rounded to microseconds).
    public static func double(_ value: Double) -> JSONValue { .number(JSONNumber(value)) }
    /// An integer number.
    public static func int(_ value: Int) -> JSONValue { .number(JSONNumber(value)) }

    /// The number's value, if this is a number.
    public var doubleValue: Double? {
        if case .number(let number) = self { return number.value }
        return nil
    }

    /// The string, if this is a string.
    public var stringValue: String? {
        if case .string(let string) = self { return string }
        return nil
    }

    /// The object, if this is an object.
    public var objectValue: JSONObject? {
        if case .object(let object) = self { return object }
        return nil
    }

    /// The elements, if this is an array.
    public var arrayValue: [JSONValue]? {
        if case .array(let array) = self { return array }
        return nil
    }
}

/// Deterministic number text: values are rounded to microseconds and printed as plain decimals with
/// no trailing zeros, so arithmetic noise such as `0.30000000000000004` never reaches a file.
public enum NumberFormatting {
    /// Largest magnitude printed through the exact microsecond path (beyond it, Swift's shortest form).
    private static let exactLimit = 9.0e12

    /// `value` rounded to the nearest microsecond.
    public static func roundedToMicroseconds(_ value: Double) -> Double {
        guard value.isFinite, abs(value) < exactLimit else { return value }
        return (value * 1_000_000).rounded() / 1_000_000
    }

    /// The decimal text of `value` rounded to microseconds: `0.5`, `120.0`, `-0.000125`.
    /// Non-finite values print as the `NaN`/`Infinity`/`-Infinity` extension tokens.
    public static func decimal(_ value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value < 0 ? "-Infinity" : "Infinity" }
        guard abs(value) < exactLimit else { return "\(value)" }
        let micros = Int64((value * 1_000_000).rounded())
        if micros == 0 { return "0.0" }
        let negative = micros < 0
        let magnitude = negative ? -micros : micros
        let whole = magnitude / 1_000_000
        var fraction = magnitude % 1_000_000
        var text = negative ? "-" : ""
        text += String(whole)
        text += "."
        if fraction == 0 { return text + "0" }
        var digits = 6
        while fraction % 10 == 0 {
            fraction /= 10
            digits -= 1
        }
        let fractionText = String(fraction)
        text += String(repeating: "0", count: digits - fractionText.count) + fractionText
        return text
    }
}
