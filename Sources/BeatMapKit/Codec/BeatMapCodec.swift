// SPDX-License-Identifier: GPL-3.0-or-later

public import Foundation

/// Where the parts of a map read from a file are, for pointing findings at them.
public struct BeatMapSourceMap: Sendable {
    /// Line/column lookup for the file.
    public let lineIndex: LineIndex
    /// Byte offset of each beat's number.
    public var beatOffsets: [Int] = []
    /// Byte offset of each tempo segment's object.
    public var tempoOffsets: [Int] = []
    /// Byte offsets of the values of top-level members, by key.
    public var memberOffsets: [String: Int] = [:]
    /// Byte offsets of the values of `audio`'s members, by key.
    public var audioMemberOffsets: [String: Int] = [:]

    /// An empty map over a file indexed by `lineIndex`.
    public init(lineIndex: LineIndex) {
        self.lineIndex = lineIndex
    }

    /// Where beat `index` is written.
    public func location(ofBeat index: Int) -> SourceLocation {
        guard beatOffsets.indices.contains(index) else { return location(ofMember: "beats") }
        return lineIndex.location(ofOffset: beatOffsets[index])
    }

    /// Where tempo segment `index` is written.
    public func location(ofTempoSegment index: Int) -> SourceLocation {
        guard tempoOffsets.indices.contains(index) else { return location(ofMember: "tempo") }
        return lineIndex.location(ofOffset: tempoOffsets[index])
    }

    /// Where the value of top-level member `key` is written (the file's start if absent).
    public func location(ofMember key: String) -> SourceLocation {
        memberOffsets[key].map { lineIndex.location(ofOffset: $0) } ?? .start
    }

    /// Where the value of `audio.key` is written (the `audio` object if absent).
    public func location(ofAudioMember key: String) -> SourceLocation {
        audioMemberOffsets[key].map { lineIndex.location(ofOffset: $0) } ?? location(ofMember: "audio")
    }
}

/// A problem with a map file's structure: a missing or mistyped member, or an unknown version.
public struct SchemaIssue: Sendable, Equatable {
    /// What is wrong.
    public var message: String
    /// Where.
    public var location: SourceLocation
    /// How many problems this stands for: 1, or, for the last issue of a file with more than
    /// ``BeatMapCodec/maximumSchemaIssues``, how many were not listed.
    public var count: Int = 1
}

/// The result of reading a map file for validation.
public enum BeatMapDecodeResult: Sendable {
    /// The text is not JSON.
    case invalidJSON(message: String, location: SourceLocation)
    /// The text is JSON but not a version-1 beat map.
    case schemaViolations([SchemaIssue])
    /// A map, with where its parts are written.
    case map(BeatMap, BeatMapSourceMap)
}

/// Why a map could not be read or written.
public enum BeatMapError: Error, LocalizedError, Sendable, Equatable {
    /// The file could not be read.
    case unreadable(path: String, reason: String)
    /// The file is larger than the size limit.
    case tooLarge(path: String, bytes: Int, limit: Int)
    /// The file is not JSON.
    case invalidJSON(path: String, message: String, location: SourceLocation)
    /// The file is not a valid version-1 map.
    case schema(path: String, issues: [SchemaIssue])
    /// The map holds a value JSON cannot represent (NaN or infinity).
    case nonFinite(field: String)
    /// The map holds a value the format cannot carry (e.g. a duration under its 1 µs resolution).
    case invalidValue(field: String, reason: String)
    /// The destination exists and overwriting was not allowed.
    case exists(path: String)
    /// Writing failed.
    case writeFailed(path: String, reason: String)

    public var errorDescription: String? {
        switch self {
        case .unreadable(let path, let reason): return "\(path): cannot read: \(reason)"
        case .tooLarge(let path, let bytes, let limit):
            return "\(path): file is \(bytes) bytes, over the \(limit)-byte limit for beat maps"
        case .invalidJSON(let path, let message, let location): return "\(path):\(location): invalid JSON: \(message)"
        case .schema(let path, let issues):
            let first = issues.first.map { "\($0.location): \($0.message)" } ?? "not a beat map"
            let more = issues.reduce(0) { $0 + $1.count } - 1
            return "\(path):\(first)" + (more > 0 ? " (and \(more) more problems)" : "")
        case .nonFinite(let field): return "cannot write \(field): JSON has no NaN or infinity"
        case .invalidValue(let field, let reason): return "cannot write \(field): \(reason)"
        case .exists(let path): return "\(path) already exists"
        case .writeFailed(let path, let reason): return "\(path): cannot write: \(reason)"
        }
    }

    /// What the user can do about it, if anything.
    public var remedy: Remedy? {
        if case .exists = self { return .allowOverwrite }
        return nil
    }
}

/// Reads and writes beat-map files (format version 1).
public enum BeatMapCodec {
    /// The largest map file read: 128 MiB (a million-beat map is about 12 MB).
    public static let maximumFileSize = 128 * 1024 * 1024
    /// Schema problems listed per file; the rest are summed up in one last issue with their count, so
    /// a hostile file of millions of wrong values costs a counter, not millions of messages.
    public static let maximumSchemaIssues = 1000

    // MARK: Reading

    /// Decodes map-file bytes, collecting every schema problem rather than stopping at the first.
    public static func decode(_ bytes: [UInt8]) -> BeatMapDecodeResult {
        let lineIndex = LineIndex(bytes)
        let root: JSONNode
        do {
            root = try JSONParser.parse(bytes)
        } catch {
            return .invalidJSON(message: error.message, location: lineIndex.location(ofOffset: error.offset))
        }
        var decoder = Decoder(lineIndex: lineIndex)
        let map = decoder.decodeMap(root)
        if let map, decoder.issues.isEmpty { return .map(map, decoder.source) }
        var issues = decoder.issues
        if decoder.omittedIssues > 0, let first = decoder.firstOmittedOffset {
            issues.append(
                SchemaIssue(
                    message:
                        "\(decoder.omittedIssues) more problem\(decoder.omittedIssues == 1 ? "" : "s") not listed, from here on (the first \(maximumSchemaIssues) are)",
                    location: lineIndex.location(ofOffset: first), count: decoder.omittedIssues))
        }
        return .schemaViolations(issues)
    }

    /// Reads a map file, throwing when it is unreadable, too large, not JSON or not a valid map.
    public static func read(from url: URL) throws(BeatMapError) -> BeatMap {
        try map(from: readBytes(of: url), path: url.path)
    }

    /// The map in `bytes` (read from `path`, named in errors), throwing when it is not JSON or not a
    /// valid map.
    public static func map(from bytes: [UInt8], path: String) throws(BeatMapError) -> BeatMap {
        switch decode(bytes) {
        case .invalidJSON(let message, let location):
            throw .invalidJSON(path: path, message: message, location: location)
        case .schemaViolations(let issues): throw .schema(path: path, issues: issues)
        case .map(let map, _): return map
        }
    }

    /// The bytes of a map file, refusing files over ``maximumFileSize``.
    public static func readBytes(of url: URL, limit: Int = maximumFileSize) throws(BeatMapError) -> [UInt8] {
        let path = url.path
        let attributes: [FileAttributeKey: Any]
        do {
            attributes = try FileManager.default.attributesOfItem(atPath: path)
        } catch {
            throw .unreadable(path: path, reason: FileSystemErrors.reason(error))
        }
        if let type = attributes[.type] as? FileAttributeType, type == .typeDirectory {
            throw .unreadable(path: path, reason: "is a directory")
        }
        let size = (attributes[.size] as? NSNumber)?.intValue
        if let size, size > limit {
            throw .tooLarge(path: path, bytes: size, limit: limit)
        }
        // An empty regular file has no bytes to read. (swift-foundation on Linux reads a file of size 0 in
        // chunks, since /proc files report 0, and leaks its first 4 KB chunk when nothing was read.)
        if size == 0, let type = attributes[.type] as? FileAttributeType, type == .typeRegular { return [] }
        do {
            let data = try Data(contentsOf: url)
            if data.count > limit { throw BeatMapError.tooLarge(path: path, bytes: data.count, limit: limit) }
            return [UInt8](data)
        } catch let error as BeatMapError {
            throw error
        } catch {
            throw .unreadable(path: path, reason: FileSystemErrors.reason(error))
        }
    }

    // MARK: Writing

    /// The canonical text of `map`: stable member order, one beat per line, times rounded to
    /// microseconds, trailing newline. The same map always gives the same bytes.
    public static func encode(_ map: BeatMap) throws(BeatMapError) -> String {
        guard map.audio.duration.isFinite else { throw .nonFinite(field: "audio.duration") }
        guard NumberFormatting.roundedToMicroseconds(map.audio.duration) > 0 else {
            throw .invalidValue(field: "audio.duration", reason: "must be at least 0.000001 seconds")
        }
        if let index = map.beats.firstIndex(where: { !$0.isFinite }) { throw .nonFinite(field: "beats[\(index)]") }
        for (index, segment) in (map.tempo ?? []).enumerated() where !segment.time.isFinite || !segment.bpm.isFinite {
            throw .nonFinite(field: "tempo[\(index)]")
        }
        var out = "{\n  \"version\": \(BeatMap.formatVersion),\n  \"audio\": "
        var audio = JSONObject()
        if let path = map.audio.path { audio["path"] = .string(path) }
        audio["duration"] = .double(map.audio.duration)
        if let rate = map.audio.sampleRate { audio["sampleRate"] = .int(rate) }
        if let sha = map.audio.sha256 { audio["sha256"] = .string(sha) }
        for member in map.audio.additionalFields where audio[member.key] == nil { audio[member.key] = member.value }
        JSONWriter.write(.object(audio), indent: 1, into: &out)
        if let tempo = map.tempo {
            out += ",\n  \"tempo\": "
            if tempo.isEmpty {
                out += "[]"
            } else {
                out += "[\n"
                for (index, segment) in tempo.enumerated() {
                    var object = JSONObject([("time", .double(segment.time)), ("bpm", .double(segment.bpm))])
                    if let perBar = segment.beatsPerBar { object["beatsPerBar"] = .int(perBar) }
                    for member in segment.additionalFields where object[member.key] == nil {
                        object[member.key] = member.value
                    }
                    out += "    "
                    JSONWriter.writeCompact(.object(object), into: &out)
                    out += index + 1 < tempo.count ? ",\n" : "\n"
                }
                out += "  ]"
            }
        }
        out += ",\n  \"beats\": "
        if map.beats.isEmpty {
            out += "[]"
        } else {
            out += "[\n"
            out.reserveCapacity(out.utf8.count + map.beats.count * 16)
            for (index, beat) in map.beats.enumerated() {
                out += "    "
                out += NumberFormatting.decimal(beat)
                out += index + 1 < map.beats.count ? ",\n" : "\n"
            }
            out += "  ]"
        }
        if let analysis = map.analysis {
            out += ",\n  \"analysis\": "
            JSONWriter.write(analysis, indent: 1, into: &out)
        }
        for member in map.additionalFields {
            out += ",\n  "
            JSONWriter.writeString(member.key, into: &out)
            out += ": "
            JSONWriter.write(member.value, indent: 1, into: &out)
        }
        out += "\n}\n"
        return out
    }

    /// Writes `map` to `url` atomically (temporary file, then rename). An existing file is replaced
    /// only when `overwrite` is true; otherwise ``BeatMapError/exists(path:)`` is thrown.
    public static func write(_ map: BeatMap, to url: URL, overwrite: Bool) throws(BeatMapError) {
        let text = try encode(map)
        do {
            try AtomicFile.write(Data(text.utf8), to: url, overwrite: overwrite)
        } catch .exists {
            throw .exists(path: url.path)
        } catch {
            throw .writeFailed(path: url.path, reason: error.localizedDescription)
        }
    }
}

// MARK: - Tree → model

private struct Decoder {
    let lineIndex: LineIndex
    var source: BeatMapSourceMap
    var issues: [SchemaIssue] = []
    /// Issues beyond ``BeatMapCodec/maximumSchemaIssues``: counted, not kept.
    var omittedIssues = 0
    var firstOmittedOffset: Int?

    init(lineIndex: LineIndex) {
        self.lineIndex = lineIndex
        self.source = BeatMapSourceMap(lineIndex: lineIndex)
    }

    mutating func issue(_ message: @autoclosure () -> String, at offset: Int, count: Int = 1) {
        guard issues.count < BeatMapCodec.maximumSchemaIssues else {
            if omittedIssues == 0 { firstOmittedOffset = offset }
            omittedIssues += count
            return
        }
        issues.append(SchemaIssue(message: message(), location: lineIndex.location(ofOffset: offset), count: count))
    }

    /// The members of an object node by key, reporting duplicates.
    mutating func members(of node: JSONNode, _ members: [JSONMember], context: String) -> [String: JSONMember] {
        var byKey: [String: JSONMember] = [:]
        for member in members {
            if byKey[member.key] != nil {
                issue("duplicate member \"\(member.key)\" in \(context)", at: member.keyOffset)
            }
            byKey[member.key] = member
        }
        return byKey
    }

    mutating func number(_ member: JSONMember?, _ name: String, required: Bool, at fallback: Int) -> Double? {
        guard let member else {
            if required { issue("missing required member \"\(name)\"", at: fallback) }
            return nil
        }
        guard case .number(let number) = member.value.kind else {
            issue("\"\(name)\" must be a number, not \(member.value.typeDescription)", at: member.value.offset)
            return nil
        }
        return number.value
    }

    mutating func integer(_ member: JSONMember?, _ name: String, at fallback: Int) -> Int? {
        guard let member else { return nil }
        guard case .number(let number) = member.value.kind, number.value.isFinite,
            number.value == number.value.rounded(), abs(number.value) < 1e15
        else {
            issue("\"\(name)\" must be an integer, not \(member.value.typeDescription)", at: member.value.offset)
            return nil
        }
        return Int(number.value)
    }

    mutating func string(_ member: JSONMember?, _ name: String) -> String? {
        guard let member else { return nil }
        guard case .string(let string) = member.value.kind else {
            issue("\"\(name)\" must be a string, not \(member.value.typeDescription)", at: member.value.offset)
            return nil
        }
        return string
    }

    func extras(_ members: [JSONMember], known: Set<String>) -> JSONObject {
        var object = JSONObject()
        for member in members where !known.contains(member.key) { object[member.key] = member.value.value }
        return object
    }

    mutating func decodeMap(_ root: JSONNode) -> BeatMap? {
        guard case .object(let rootMembers) = root.kind else {
            issue("a beat map must be a JSON object, not \(root.typeDescription)", at: root.offset)
            return nil
        }
        let top = members(of: root, rootMembers, context: "the map")
        for member in rootMembers { source.memberOffsets[member.key] = member.value.offset }

        if let version = top["version"] {
            if let value = integer(version, "version", at: root.offset), value != BeatMap.formatVersion {
                issue(
                    "unsupported format version \(value); this tool reads version \(BeatMap.formatVersion)",
                    at: version.value.offset)
            }
        } else {
            issue("missing required member \"version\"", at: root.offset)
        }

        let audio = decodeAudio(top["audio"], fallback: root.offset)
        let tempo = decodeTempo(top["tempo"])
        let beats = decodeBeats(top["beats"], fallback: root.offset)
        guard let audio, let beats else { return nil }
        return BeatMap(
            audio: audio, tempo: tempo, beats: beats, analysis: top["analysis"]?.value.value,
            additionalFields: extras(rootMembers, known: ["version", "audio", "tempo", "beats", "analysis"]))
    }

    mutating func decodeAudio(_ member: JSONMember?, fallback: Int) -> AudioReference? {
        guard let member else {
            issue("missing required member \"audio\"", at: fallback)
            return nil
        }
        guard case .object(let list) = member.value.kind else {
            issue("\"audio\" must be an object, not \(member.value.typeDescription)", at: member.value.offset)
            return nil
        }
        let fields = members(of: member.value, list, context: "\"audio\"")
        for field in list { source.audioMemberOffsets[field.key] = field.value.offset }
        let duration = number(fields["duration"], "audio.duration", required: true, at: member.value.offset)
        // At least the format's resolution (1 µs), so that the written (rounded) duration is still valid.
        if let duration, !(duration.isFinite && NumberFormatting.roundedToMicroseconds(duration) > 0),
            let node = fields["duration"]
        {
            issue(
                "\"audio.duration\" must be a finite number of seconds greater than 0 (at least 0.000001)",
                at: node.value.offset)
        }
        let path = string(fields["path"], "audio.path")
        let rate = integer(fields["sampleRate"], "audio.sampleRate", at: member.value.offset)
        if let rate, rate <= 0, let node = fields["sampleRate"] {
            issue("\"audio.sampleRate\" must be a positive integer", at: node.value.offset)
        }
        let sha = string(fields["sha256"], "audio.sha256")
        if let sha, let node = fields["sha256"],
            sha.utf8.count != 64 || !sha.utf8.allSatisfy({ ($0 >= 48 && $0 <= 57) || ($0 >= 97 && $0 <= 102) })
        {
            issue("\"audio.sha256\" must be 64 lowercase hexadecimal digits", at: node.value.offset)
        }
        guard let duration else { return nil }
        return AudioReference(
            path: path, duration: duration, sampleRate: rate, sha256: sha,
            additionalFields: extras(list, known: ["path", "duration", "sampleRate", "sha256"]))
    }

    mutating func decodeTempo(_ member: JSONMember?) -> [TempoSegment]? {
        guard let member else { return nil }
        guard case .array(let elements) = member.value.kind else {
            issue(
                "\"tempo\" must be an array of segments, not \(member.value.typeDescription)", at: member.value.offset)
            return nil
        }
        var segments: [TempoSegment] = []
        for (index, element) in elements.enumerated() {
            source.tempoOffsets.append(element.offset)
            guard case .object(let list) = element.kind else {
                issue("tempo[\(index)] must be an object, not \(element.typeDescription)", at: element.offset)
                continue
            }
            let fields = members(of: element, list, context: "tempo[\(index)]")
            let time = number(fields["time"], "tempo[\(index)].time", required: true, at: element.offset)
            let bpm = number(fields["bpm"], "tempo[\(index)].bpm", required: true, at: element.offset)
            let perBar = integer(fields["beatsPerBar"], "tempo[\(index)].beatsPerBar", at: element.offset)
            if let time, let bpm {
                segments.append(
                    TempoSegment(
                        time: time, bpm: bpm, beatsPerBar: perBar,
                        additionalFields: extras(list, known: ["time", "bpm", "beatsPerBar"])))
            }
        }
        return segments
    }

    mutating func decodeBeats(_ member: JSONMember?, fallback: Int) -> [TimeInterval]? {
        guard let member else {
            issue("missing required member \"beats\"", at: fallback)
            return nil
        }
        guard case .array(let elements) = member.value.kind else {
            issue("\"beats\" must be an array of numbers, not \(member.value.typeDescription)", at: member.value.offset)
            return nil
        }
        var beats: [TimeInterval] = []
        beats.reserveCapacity(elements.count)
        source.beatOffsets.reserveCapacity(elements.count)
        var wrong = 0
        for (index, element) in elements.enumerated() {
            source.beatOffsets.append(element.offset)
            if case .number(let number) = element.kind {
                beats.append(number.value)
            } else {
                wrong += 1
                if wrong <= 20 {
                    issue(
                        "beats[\(index)] must be a number of seconds, not \(element.typeDescription)",
                        at: element.offset)
                }
            }
        }
        if wrong > 20 { issue("\(wrong - 20) more beats are not numbers", at: member.value.offset, count: wrong - 20) }
        return wrong == 0 ? beats : nil
    }
}
