// SPDX-License-Identifier: GPL-3.0-or-later

/// A JSON value as read from a file, with the byte offset at which it starts.
public struct JSONNode: Sendable {
    /// What the value is.
    public enum Kind: Sendable {
        case null
        case bool(Bool)
        case number(JSONNumber)
        case string(String)
        case array([JSONNode])
        case object([JSONMember])
    }

    /// The value.
    public var kind: Kind
    /// Byte offset of the value's first character in the source.
    public var offset: Int

    /// The value without positions.
    public var value: JSONValue {
        switch kind {
        case .null: return .null
        case .bool(let flag): return .bool(flag)
        case .number(let number): return .number(number)
        case .string(let string): return .string(string)
        case .array(let elements): return .array(elements.map(\.value))
        case .object(let members): return .object(JSONObject(members.map { ($0.key, $0.value.value) }))
        }
    }

    /// A short name of the value's type for messages: "a number", "a string", ….
    public var typeDescription: String {
        switch kind {
        case .null: return "null"
        case .bool: return "a boolean"
        case .number: return "a number"
        case .string: return "a string"
        case .array: return "an array"
        case .object: return "an object"
        }
    }
}

/// A member of an object as read from a file.
public struct JSONMember: Sendable {
    /// The key.
    public var key: String
    /// Byte offset of the key's opening quote.
    public var keyOffset: Int
    /// The value.
    public var value: JSONNode
}

/// Why a text is not JSON, and where.
public struct JSONSyntaxError: Error, Sendable, Equatable {
    /// What is wrong.
    public var message: String
    /// Byte offset of the problem.
    public var offset: Int
}

/// A strict RFC 8259 parser that keeps source offsets, with two deliberate extensions: the tokens
/// `NaN`, `Infinity` and `-Infinity` (which some writers emit) are read as numbers so that a validator
/// can report them as non-finite values rather than as a syntax error, and a leading UTF-8 byte-order
/// mark is skipped. Nesting deeper than ``maximumDepth`` is refused so hostile input cannot exhaust
/// the stack, and more than ``maximumValues`` values so that it cannot exhaust memory (each value
/// costs about 80 bytes once read).
public struct JSONParser {
    /// The deepest nesting of arrays and objects accepted.
    public static let maximumDepth = 256
    /// The most values (of any kind, containers included) in one document: 2²³, over 8 million. A
    /// map of 3 hours at 400 BPM on 64th notes has 4.6 million beats; `[1,1,1,…]` filling the 128 MiB
    /// file limit would have 64 million, and need 5 GB.
    public static let maximumValues = 1 << 23

    /// Parses a complete document.
    public static func parse(_ bytes: [UInt8]) throws(JSONSyntaxError) -> JSONNode {
        let result: Result<JSONNode, JSONSyntaxError> = bytes.withUnsafeBufferPointer { buffer in
            var parser = Parser(bytes: buffer)
            do throws(JSONSyntaxError) {
                return .success(try parser.parseDocument())
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }
}

private struct Parser {
    let bytes: UnsafeBufferPointer<UInt8>
    var index = 0
    var depth = 0
    var values = 0

    init(bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    mutating func parseDocument() throws(JSONSyntaxError) -> JSONNode {
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { index = 3 }
        skipWhitespace()
        if index >= bytes.count {
            throw JSONSyntaxError(message: "the file is empty; expected a JSON object", offset: index)
        }
        let node = try parseValue()
        skipWhitespace()
        if index < bytes.count {
            throw error("unexpected \(describe(bytes[index])) after the end of the top-level value")
        }
        return node
    }

    func error(_ message: String) -> JSONSyntaxError {
        JSONSyntaxError(message: message, offset: index)
    }

    func describe(_ byte: UInt8) -> String {
        switch byte {
        case 0: return "NUL byte (binary data?)"
        case 0x21...0x7E: return "'\(Character(Unicode.Scalar(byte)))'"
        case UInt8(ascii: "\n"): return "end of line"
        default: return "byte 0x" + String(byte, radix: 16, uppercase: true)
        }
    }

    mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    mutating func parseValue() throws(JSONSyntaxError) -> JSONNode {
        guard index < bytes.count else { throw error("unexpected end of file; expected a value") }
        values += 1
        guard values <= JSONParser.maximumValues else {
            throw error("more than \(JSONParser.maximumValues) values; a file this large is not read")
        }
        let start = index
        switch bytes[index] {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return JSONNode(kind: .string(try parseString()), offset: start)
        case UInt8(ascii: "t"):
            try expectLiteral("true")
            return JSONNode(kind: .bool(true), offset: start)
        case UInt8(ascii: "f"):
            try expectLiteral("false")
            return JSONNode(kind: .bool(false), offset: start)
        case UInt8(ascii: "n"):
            try expectLiteral("null")
            return JSONNode(kind: .null, offset: start)
        case UInt8(ascii: "N"):
            try expectLiteral("NaN")
            return JSONNode(kind: .number(JSONNumber(value: .nan, text: "NaN")), offset: start)
        case UInt8(ascii: "I"):
            try expectLiteral("Infinity")
            return JSONNode(kind: .number(JSONNumber(value: .infinity, text: "Infinity")), offset: start)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return JSONNode(kind: .number(try parseNumber()), offset: start)
        default:
            throw error("unexpected \(describe(bytes[index])); expected a value")
        }
    }

    mutating func expectLiteral(_ literal: StaticString) throws(JSONSyntaxError) {
        let count = literal.utf8CodeUnitCount
        let matches = literal.withUTF8Buffer { expected in
            index + count <= bytes.count && (0..<count).allSatisfy { bytes[index + $0] == expected[$0] }
        }
        guard matches else { throw error("invalid literal; expected '\(literal)'") }
        index += count
    }

    mutating func parseObject() throws(JSONSyntaxError) -> JSONNode {
        let start = index
        try enter()
        index += 1
        var members: [JSONMember] = []
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
            index += 1
            depth -= 1
            return JSONNode(kind: .object(members), offset: start)
        }
        while true {
            skipWhitespace()
            guard index < bytes.count else { throw error("unexpected end of file inside an object") }
            guard bytes[index] == UInt8(ascii: "\"") else {
                throw error("unexpected \(describe(bytes[index])); expected a member name in double quotes")
            }
            let keyOffset = index
            let key = try parseString()
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else {
                throw error("expected ':' after member name \"\(key)\"")
            }
            index += 1
            skipWhitespace()
            let value = try parseValue()
            members.append(JSONMember(key: key, keyOffset: keyOffset, value: value))
            skipWhitespace()
            guard index < bytes.count else { throw error("unexpected end of file inside an object") }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
                continue
            }
            if bytes[index] == UInt8(ascii: "}") {
                index += 1
                depth -= 1
                return JSONNode(kind: .object(members), offset: start)
            }
            throw error("unexpected \(describe(bytes[index])); expected ',' or '}' after an object member")
        }
    }

    mutating func parseArray() throws(JSONSyntaxError) -> JSONNode {
        let start = index
        try enter()
        index += 1
        var elements: [JSONNode] = []
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
            index += 1
            depth -= 1
            return JSONNode(kind: .array(elements), offset: start)
        }
        while true {
            skipWhitespace()
            elements.append(try parseValue())
            skipWhitespace()
            guard index < bytes.count else { throw error("unexpected end of file inside an array") }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
                continue
            }
            if bytes[index] == UInt8(ascii: "]") {
                index += 1
                depth -= 1
                return JSONNode(kind: .array(elements), offset: start)
            }
            throw error("unexpected \(describe(bytes[index])); expected ',' or ']' after an array element")
        }
    }

    mutating func enter() throws(JSONSyntaxError) {
        depth += 1
        if depth > JSONParser.maximumDepth {
            throw error("nesting deeper than \(JSONParser.maximumDepth) levels")
        }
    }

    mutating func parseNumber() throws(JSONSyntaxError) -> JSONNumber {
        let start = index
        if bytes[index] == UInt8(ascii: "-") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "I") {
                try expectLiteral("Infinity")
                return JSONNumber(value: -.infinity, text: "-Infinity")
            }
        }
        guard index < bytes.count, isDigit(bytes[index]) else { throw error("invalid number: expected a digit") }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
            if index < bytes.count, isDigit(bytes[index]) {
                throw error("invalid number: leading zeros are not allowed")
            }
        } else {
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            guard index < bytes.count, isDigit(bytes[index]) else {
                throw error("invalid number: expected a digit after the decimal point")
            }
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                index += 1
            }
            guard index < bytes.count, isDigit(bytes[index]) else {
                throw error("invalid number: expected a digit in the exponent")
            }
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        // The grammar was checked above, so Swift's locale-independent conversion accepts the text;
        // an exponent too large yields ±infinity, which the validator reports as non-finite.
        guard let value = Double(text) else { throw JSONSyntaxError(message: "invalid number", offset: start) }
        return JSONNumber(value: value, text: text)
    }

    func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    mutating func parseString() throws(JSONSyntaxError) -> String {
        index += 1  // opening quote
        let start = index
        var plain = true
        // Fast path: no escapes and ASCII only.
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") { break }
            if byte == UInt8(ascii: "\\") || byte >= 0x80 {
                plain = false
                break
            }
            if byte < 0x20 { throw error("unescaped control character \(describe(byte)) in a string") }
            index += 1
        }
        if plain {
            guard index < bytes.count else { throw error("unterminated string") }
            let string = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
            index += 1
            return string
        }
        var scalars: [UInt8] = Array(bytes[start..<index])
        while true {
            guard index < bytes.count else { throw error("unterminated string") }
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                index += 1
                break
            }
            if byte < 0x20 { throw error("unescaped control character \(describe(byte)) in a string") }
            if byte != UInt8(ascii: "\\") {
                scalars.append(byte)
                index += 1
                continue
            }
            index += 1
            guard index < bytes.count else { throw error("unterminated string") }
            let escape = bytes[index]
            index += 1
            switch escape {
            case UInt8(ascii: "\""): scalars.append(UInt8(ascii: "\""))
            case UInt8(ascii: "\\"): scalars.append(UInt8(ascii: "\\"))
            case UInt8(ascii: "/"): scalars.append(UInt8(ascii: "/"))
            case UInt8(ascii: "b"): scalars.append(0x08)
            case UInt8(ascii: "f"): scalars.append(0x0C)
            case UInt8(ascii: "n"): scalars.append(0x0A)
            case UInt8(ascii: "r"): scalars.append(0x0D)
            case UInt8(ascii: "t"): scalars.append(0x09)
            case UInt8(ascii: "u"):
                var code = try parseHex4()
                if (0xD800...0xDBFF).contains(code) {
                    guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"),
                        bytes[index + 1] == UInt8(ascii: "u")
                    else { throw error("unpaired UTF-16 surrogate in \\u escape") }
                    index += 2
                    let low = try parseHex4()
                    guard (0xDC00...0xDFFF).contains(low) else { throw error("invalid UTF-16 surrogate pair") }
                    code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                } else if (0xDC00...0xDFFF).contains(code) {
                    throw error("unpaired UTF-16 surrogate in \\u escape")
                }
                guard let scalar = Unicode.Scalar(code) else { throw error("invalid \\u escape") }
                scalars.append(contentsOf: Array(String(Character(scalar)).utf8))
            default:
                index -= 2
                throw error("invalid escape \\\(Character(Unicode.Scalar(escape)))")
            }
        }
        guard let string = String(validating: scalars, as: UTF8.self) else {
            throw JSONSyntaxError(message: "string is not valid UTF-8", offset: start - 1)
        }
        return string
    }

    mutating func parseHex4() throws(JSONSyntaxError) -> UInt32 {
        guard index + 4 <= bytes.count else { throw error("truncated \\u escape") }
        var code: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt32
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(byte - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(byte - UInt8(ascii: "A") + 10)
            default: throw error("invalid hex digit in \\u escape")
            }
            code = code << 4 | digit
            index += 1
        }
        return code
    }
}
