// SPDX-License-Identifier: GPL-3.0-or-later

import Foundation

/// A JSON file read for import, with errors that name the file and line.
struct JSONFile {
    let path: String
    let root: JSONNode
    private let lines: LineIndex

    /// Reads and parses `url`.
    init(url: URL) throws(InterchangeError) {
        var bytes = try FormatSupport.bytes(of: url)
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes.removeFirst(3) }
        try self.init(bytes: bytes, path: url.path)
    }

    /// Parses `bytes` read from `path`.
    init(bytes: [UInt8], path: String) throws(InterchangeError) {
        self.path = path
        lines = LineIndex(bytes)
        do {
            root = try JSONParser.parse(bytes)
        } catch {
            throw InterchangeError(
                path: path, line: LineIndex(bytes).location(ofOffset: error.offset).line,
                "invalid JSON: \(error.message)")
        }
    }

    /// The line of `node`.
    func line(_ node: JSONNode) -> Int { lines.location(ofOffset: node.offset).line }

    /// An error at `node`.
    func error(_ node: JSONNode, _ message: String) -> InterchangeError {
        InterchangeError(path: path, line: line(node), message)
    }

    /// The members of an object node (the last of duplicate keys wins), or an error naming `what`.
    func object(_ node: JSONNode, _ what: String) throws(InterchangeError) -> [String: JSONNode] {
        guard case .object(let members) = node.kind else {
            throw error(node, "\(what) must be an object, not \(node.typeDescription)")
        }
        var result: [String: JSONNode] = [:]
        for member in members { result[member.key] = member.value }
        return result
    }

    /// The elements of an array node.
    func array(_ node: JSONNode, _ what: String) throws(InterchangeError) -> [JSONNode] {
        guard case .array(let elements) = node.kind else {
            throw error(node, "\(what) must be an array, not \(node.typeDescription)")
        }
        return elements
    }

    /// A finite number.
    func number(_ node: JSONNode, _ what: String) throws(InterchangeError) -> Double {
        guard case .number(let number) = node.kind, number.value.isFinite else {
            throw error(node, "\(what) must be a finite number, not \(node.typeDescription)")
        }
        return number.value
    }

    /// A string.
    func string(_ node: JSONNode, _ what: String) throws(InterchangeError) -> String {
        guard case .string(let string) = node.kind else {
            throw error(node, "\(what) must be a string, not \(node.typeDescription)")
        }
        return string
    }

    /// The member `key` of `members`, or an error at `parent` saying it is missing.
    func required(_ members: [String: JSONNode], _ key: String, in parent: JSONNode, _ what: String)
        throws(InterchangeError) -> JSONNode
    {
        guard let node = members[key] else { throw error(parent, "\(what) has no \"\(key)\"") }
        return node
    }
}
