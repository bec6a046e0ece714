// SPDX-License-Identifier: GPL-3.0-or-later

import BeatMapKit
import Foundation
import Testing

/// In a library laid out one song per folder every mix is `song.ogg`: exports take the title from the
/// folder instead.
@Suite("Export titles in song libraries")
struct LibraryTitleTests {
    /// Exports the map `text`, written at `mapPath` below a new folder, as osu! text.
    static func osuText(_ text: String, at mapPath: String, title: String? = nil) throws -> String {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("titles-\(UUID().uuidString)")
        let url = folder.appendingPathComponent(mapPath)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try Data(text.utf8).write(to: url)
        var options = ExportOptions()
        options.title = title
        let result = try Interchange.export(mapAt: url, format: .osu, options: options, to: nil, overwrite: false)
        return result.files.map(\.text).joined()
    }

    static func map(audioPath: String?) -> String {
        let path = audioPath.map { ", \"path\": \"\($0)\"" } ?? ""
        return "{ \"version\": 1, \"audio\": { \"duration\": 8\(path) }, \"beats\": [0.5, 1.0, 1.5, 2.0] }"
    }

    @Test("song.* takes its folder's name; other names stay; a title given wins")
    func titles() throws {
        let mirrored = try Self.osuText(
            Self.map(audioPath: "../../../Library/Artist/Through the Fire/song.ogg"),
            at: "Maps/Artist/Through the Fire/song.beatmap.json")
        #expect(mirrored.contains("Title:Through the Fire\n"))
        let beside = try Self.osuText(Self.map(audioPath: "Song.OGG"), at: "Lib/Other Song/song.beatmap.json")
        #expect(beside.contains("Title:Other Song\n"))
        let noAudio = try Self.osuText(Self.map(audioPath: nil), at: "Lib/Third/song.beatmap.json")
        #expect(noAudio.contains("Title:Third\n"))
        let named = try Self.osuText(Self.map(audioPath: "../Audio/demo-120.ogg"), at: "Maps/song.beatmap.json")
        #expect(named.contains("Title:demo-120\n"))
        let given = try Self.osuText(
            Self.map(audioPath: "song.ogg"), at: "Lib/Folder/song.beatmap.json", title: "My Title")
        #expect(given.contains("Title:My Title\n"))
    }
}
