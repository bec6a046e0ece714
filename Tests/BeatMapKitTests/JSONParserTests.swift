// SPDX-License-Identifier: GPL-3.0-or-later

import BeatMapKit
import Testing

@Suite("JSON parser")
struct JSONParserTests {
    func parse(_ text: String) throws(JSONSyntaxError) -> JSONValue { try JSONParser.parse(Array(text.utf8)).value }

    @Test("valid documents parse to the expected values")
    func values() throws {
        #expect(
            try parse("[1, -0.5, 2e3, true, false, null, \"a\\u00e9\\n\\ud83c\\udfb5\"]")
                == .array([
                    .int(1), .number(try #require(parse("-0.5").numberValue)),
                    .number(try #require(parse("2e3").numberValue)), .bool(true), .bool(false), .null, .string("aé\n🎵"),
                ]))
        #expect(try parse("\u{FEFF}{}") == .object(JSONObject()))
        #expect(try parse("[NaN, -Infinity]").arrayValue?.map { $0.doubleValue?.isFinite } == [false, false])
    }

    @Test(
        "invalid documents are refused with the offset of the problem",
        arguments: [
            ("", 0), ("[1,]", 3), ("{\"a\" 1}", 5), ("[01]", 2), ("[1.]", 3), ("\"abc", 4), ("[1] x", 4),
            ("[\"\\x\"]", 2), ("{\"a\":1,}", 7), ("[-]", 2), ("[\"\u{1}\"]", 2), ("[\"\\ud800\"]", 8),
        ])
    func invalid(text: String, offset: Int) {
        do {
            _ = try parse(text)
            Issue.record("accepted \(text.debugDescription)")
        } catch {
            #expect(error.offset == offset, "\(text.debugDescription): \(error.message)")
        }
    }

    @Test("deep nesting is refused, not a stack overflow")
    func depth() {
        let text = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        #expect(throws: JSONSyntaxError.self) { try parse(text) }
    }

    @Test("more than maximumValues values are refused where the first one too many starts")
    func valueLimit() throws {
        // The array itself is value 1, so its elements may number maximumValues − 1.
        let limit = JSONParser.maximumValues
        var bytes: [UInt8] = [UInt8(ascii: "[")]
        bytes.reserveCapacity(2 * limit + 2)
        for index in 0..<(limit - 1) {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            bytes.append(UInt8(ascii: "1"))
        }
        var accepted = bytes
        accepted.append(UInt8(ascii: "]"))
        guard case .array(let elements) = try JSONParser.parse(accepted).kind else {
            Issue.record("not an array")
            return
        }
        #expect(elements.count == limit - 1)
        accepted = []
        bytes.append(contentsOf: [UInt8(ascii: ","), UInt8(ascii: "1"), UInt8(ascii: "]")])
        do {
            _ = try JSONParser.parse(bytes)
            Issue.record("accepted \(limit) elements")
        } catch {
            #expect(error.offset == bytes.count - 2)
            #expect(error.message.contains("more than \(limit) values"))
        }
    }

    @Test("invalid UTF-8 inside a string is refused")
    func utf8() {
        #expect(throws: JSONSyntaxError.self) { try JSONParser.parse([0x22, 0xFF, 0xFE, 0x22]) }
    }

    @Test("line index maps offsets to 1-based lines and columns")
    func lineIndex() {
        let index = LineIndex(Array("ab\ncd\n\nx".utf8))
        #expect(index.location(ofOffset: 0) == SourceLocation(line: 1, column: 1))
        #expect(index.location(ofOffset: 4) == SourceLocation(line: 2, column: 2))
        #expect(index.location(ofOffset: 7) == SourceLocation(line: 4, column: 1))
    }
}
