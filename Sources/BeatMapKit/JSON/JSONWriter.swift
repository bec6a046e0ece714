// SPDX-License-Identifier: GPL-3.0-or-later

/// Writes JSON text deterministically: members in their stored order, two-space indentation, one
/// element per line, numbers as their stored text, non-ASCII text as UTF-8.
public enum JSONWriter {
    /// `value` as indented JSON text starting at `indent` levels (no trailing newline).
    public static func string(_ value: JSONValue, indent: Int = 0) -> String {
        var output = ""
        write(value, indent: indent, into: &output)
        return output
    }

    /// `value` on one line: `{ "a": 1, "b": [1, 2] }`.
    public static func compactString(_ value: JSONValue) -> String {
        var output = ""
        writeCompact(value, into: &output)
        return output
    }

    /// Appends `value` at indentation level `indent`.
    public static func write(_ value: JSONValue, indent: Int, into output: inout String) {
        switch value {
        case .array(let elements):
            if elements.isEmpty {
                output += "[]"
                return
            }
            output += "[\n"
            for (position, element) in elements.enumerated() {
                output += String(repeating: "  ", count: indent + 1)
                write(element, indent: indent + 1, into: &output)
                output += position + 1 < elements.count ? ",\n" : "\n"
            }
            output += String(repeating: "  ", count: indent) + "]"
        case .object(let object):
            if object.isEmpty {
                output += "{}"
                return
            }
            output += "{\n"
            for (position, member) in object.members.enumerated() {
                output += String(repeating: "  ", count: indent + 1)
                writeString(member.key, into: &output)
                output += ": "
                write(member.value, indent: indent + 1, into: &output)
                output += position + 1 < object.members.count ? ",\n" : "\n"
            }
            output += String(repeating: "  ", count: indent) + "}"
        default:
            writeCompact(value, into: &output)
        }
    }

    /// Appends `value` on one line.
    public static func writeCompact(_ value: JSONValue, into output: inout String) {
        switch value {
        case .null: output += "null"
        case .bool(let flag): output += flag ? "true" : "false"
        case .number(let number): output += number.text
        case .string(let string): writeString(string, into: &output)
        case .array(let elements):
            output += "["
            for (position, element) in elements.enumerated() {
                if position > 0 { output += ", " }
                writeCompact(element, into: &output)
            }
            output += "]"
        case .object(let object):
            if object.isEmpty {
                output += "{}"
                return
            }
            output += "{ "
            for (position, member) in object.members.enumerated() {
                if position > 0 { output += ", " }
                writeString(member.key, into: &output)
                output += ": "
                writeCompact(member.value, into: &output)
            }
            output += " }"
        }
    }

    /// Appends `string` as a quoted JSON string.
    public static func writeString(_ string: String, into output: inout String) {
        output += "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": output += "\\\""
            case "\\": output += "\\\\"
            case "\n": output += "\\n"
            case "\r": output += "\\r"
            case "\t": output += "\\t"
            case "\u{08}": output += "\\b"
            case "\u{0C}": output += "\\f"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F {
                    let hex = String(scalar.value, radix: 16, uppercase: true)
                    output += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    output.unicodeScalars.append(scalar)
                }
            }
        }
        output += "\""
    }
}
