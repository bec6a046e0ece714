// SPDX-License-Identifier: GPL-3.0-or-later

public import Foundation

/// JAMS, the JSON Annotated Music Specification (schema of jams 0.3): a `beat` annotation with one
/// observation per beat (`value` = position in the bar, or `null` when the map has no bar length) and,
/// when the map has a tempo map, a `tempo` annotation with one observation per segment.
/// `file_metadata.duration` is the audio's duration.
///
/// Import reads the first `beat` annotation (observation lists or the older dense column form) and the
/// file duration.
public struct JAMSFormat: BeatMapConverter {
    /// A converter.
    public init() {}

    public var identifier: String { "jams" }
    public var fileExtension: String { "jams" }
    public var impliedExtensions: [String] { ["jams"] }

    public func export(_ map: BeatMap, options: ExportOptions) throws(InterchangeError) -> [ExportedFile] {
        try FormatSupport.checkExportable(map, for: .jams)
        if let segment = map.tempo?.first(where: { !$0.time.isFinite || !$0.bpm.isFinite || $0.bpm < 0 }) {
            throw InterchangeError(
                path: nil, "cannot export to jams: tempo segment at \(segment.time) s has an unusable BPM")
        }
        let positions = BarPositions.positions(of: map)
        let duration = map.audio.duration
        let source = options.sourceName.map { "beatmap export of \($0)" } ?? "beatmap export"

        func metadata(_ rules: String) -> String {
            let object = JSONObject([
                ("curator", .object(JSONObject([("name", .string("")), ("email", .string(""))]))),
                ("annotator", .object(JSONObject())),
                ("version", .string("")), ("corpus", .string("")),
                ("annotation_tools", .string("beatmap (BeatMapKit)")),
                ("annotation_rules", .string(rules)), ("validation", .string("")), ("data_source", .string(source)),
            ])
            return JSONWriter.string(.object(object), indent: 3)
        }
        func annotation(namespace: String, rules: String, observations: [JSONValue]) -> String {
            var out = "    {\n      \"annotation_metadata\": " + metadata(rules) + ",\n"
            out += "      \"namespace\": \"\(namespace)\",\n      \"data\": "
            if observations.isEmpty {
                out += "[]"
            } else {
                out += "[\n"
                for (index, observation) in observations.enumerated() {
                    out += "        "
                    JSONWriter.writeCompact(observation, into: &out)
                    out += index + 1 < observations.count ? ",\n" : "\n"
                }
                out += "      ]"
            }
            out +=
                ",\n      \"sandbox\": {},\n      \"time\": 0,\n      \"duration\": \(NumberFormatting.decimal(duration))\n    }"
            return out
        }
        func observation(time: Double, duration: Double, value: JSONValue, confidence: JSONValue) -> JSONValue {
            .object(
                JSONObject([
                    ("time", .double(time)), ("duration", .double(duration)), ("value", value),
                    ("confidence", confidence),
                ]))
        }

        var annotations: [String] = []
        let beats = map.beats.enumerated().map { index, beat in
            observation(time: beat, duration: 0, value: positions[index].map { .int($0) } ?? .null, confidence: .null)
        }
        annotations.append(
            annotation(
                namespace: "beat", rules: "value: position of the beat in its bar (1 = downbeat), null when unknown",
                observations: beats))
        if let tempo = map.tempo, !tempo.isEmpty {
            var observations: [JSONValue] = []
            for (index, segment) in tempo.enumerated() {
                let start = max(0, index == 0 ? 0 : segment.time)
                let end = index + 1 < tempo.count ? max(start, tempo[index + 1].time) : duration
                observations.append(
                    observation(
                        time: start, duration: max(0, end - start), value: .double(segment.bpm), confidence: .double(1))
                )
            }
            annotations.append(
                annotation(
                    namespace: "tempo", rules: "value: beats per minute of the map's tempo segment",
                    observations: observations))
        }
        var out = "{\n  \"annotations\": [\n" + annotations.joined(separator: ",\n") + "\n  ],\n"
        let title = FormatSupport.title(map, options)
        var titleText = ""
        JSONWriter.writeString(title, into: &titleText)
        out += "  \"file_metadata\": {\n    \"title\": \(titleText),\n    \"artist\": \"\",\n    \"release\": \"\",\n"
        out +=
            "    \"duration\": \(NumberFormatting.decimal(duration)),\n    \"identifiers\": {},\n    \"jams_version\": \"0.3.4\"\n  },\n"
        out += "  \"sandbox\": {}\n}\n"
        return [ExportedFile(text: out)]
    }

    public func importMap(from url: URL, options: ImportOptions) throws(InterchangeError) -> ImportedMap {
        let file = try JSONFile(url: url)
        let root = try file.object(file.root, "a JAMS file")
        let annotationsNode = try file.required(root, "annotations", in: file.root, "a JAMS file")
        var beatData: JSONNode?
        for annotation in try file.array(annotationsNode, "annotations") {
            let members = try file.object(annotation, "an annotation")
            guard let namespace = members["namespace"], case .string("beat") = namespace.kind else { continue }
            beatData = try file.required(members, "data", in: annotation, "the beat annotation")
            break
        }
        guard let beatData else { throw file.error(annotationsNode, "no annotation in the \"beat\" namespace") }
        var times: [TimeInterval] = []
        switch beatData.kind {
        case .array(let observations):
            for observation in observations {
                let members = try file.object(observation, "a beat observation")
                times.append(
                    try file.number(try file.required(members, "time", in: observation, "a beat observation"), "time"))
            }
        case .object:
            let columns = try file.object(beatData, "data")
            let column = try file.required(columns, "time", in: beatData, "dense beat data")
            for element in try file.array(column, "data.time") { times.append(try file.number(element, "data.time")) }
        default:
            throw file.error(beatData, "the beat annotation's data must be a list of observations")
        }
        var fileDuration: Double?
        if let metadata = root["file_metadata"], case .object = metadata.kind,
            let node = try file.object(metadata, "file_metadata")["duration"],
            case .number = node.kind
        {
            fileDuration = try file.number(node, "file_metadata.duration")
        }
        return try TimeListReader.map(times, format: .jams, url: url, options: options, fileDuration: fileDuration)
    }
}

extension InterchangeFormat {
    /// JAMS (JSON Annotated Music Specification) file with a `beat` annotation.
    public static let jams = InterchangeFormat(JAMSFormat())
}
