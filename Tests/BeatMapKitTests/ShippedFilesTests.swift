// SPDX-License-Identifier: GPL-3.0-or-later

import BeatMapKit
import Foundation
import Testing

/// Checks on files the repository ships: the demo maps and the JSON Schema.
@Suite("Shipped files")
struct ShippedFilesTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    @Test("every demo map is in the writer's canonical form (re-encoding gives the same bytes)")
    func demoMapsAreCanonical() throws {
        let folder = Self.root.appendingPathComponent("BeatMaps")
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter {
            $0.hasSuffix(BeatMap.fileExtension)
        }
        #expect(names.count >= 3)
        for name in names {
            let url = folder.appendingPathComponent(name)
            let text = try String(contentsOf: url, encoding: .utf8)
            let map = try BeatMapCodec.read(from: url)
            #expect(try BeatMapCodec.encode(map) == text, "\(name) is not canonical")
            #expect(map.tempo?.isEmpty == false)
            #expect(map.audio.sha256 != nil)
        }
    }

    @Test("the JSON Schema requires what the reader requires and its tempo bounds match invalid-tempo")
    func schemaAgreesWithReader() throws {
        let url = Self.root.appendingPathComponent("schema/beatmap-v1.schema.json")
        let schema = try JSONParser.parse(Array(try Data(contentsOf: url))).value
        let object = try #require(schema.objectValue)
        #expect(object["required"] == .array([.string("version"), .string("audio"), .string("beats")]))
        let properties = try #require(object["properties"]?.objectValue)
        #expect(properties["version"]?.objectValue?["const"]?.doubleValue == Double(BeatMap.formatVersion))
        let bpm = properties["tempo"]?.objectValue?["items"]?.objectValue?["properties"]?.objectValue?["bpm"]?
            .objectValue
        #expect(bpm?["minimum"]?.doubleValue == TempoLimits.minimumBPM)
        #expect(bpm?["maximum"]?.doubleValue == TempoLimits.maximumBPM)
    }
}
