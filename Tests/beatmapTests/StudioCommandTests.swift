// SPDX-License-Identifier: GPL-3.0-or-later

import Foundation
import Testing

@Suite("beatmap studio")
struct StudioCommandTests {
    /// Starts `beatmap studio arguments…` and returns it with the first line of its standard output.
    static func start(_ arguments: [String]) throws -> (Process, Pipe, String) {
        let process = Process()
        process.executableURL = CLI.binary
        process.arguments = ["studio"] + arguments
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        var line = Data()
        let deadline = Date().addingTimeInterval(60)
        while !line.contains(UInt8(ascii: "\n")), Date() < deadline {
            let chunk = out.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            line += chunk
        }
        let text = String(decoding: line, as: UTF8.self)
        return (process, out, text.split(separator: "\n").first.map(String.init) ?? "")
    }

    @Test("prints its address first, refuses a port in use, and stops cleanly on SIGINT")
    func addressAndPort() throws {
        let map = CLI.packageRoot.appendingPathComponent("BeatMaps/demo-120.beatmap.json").path
        let (server, out, url) = try Self.start([map, "--no-open"])
        defer { if server.isRunning { server.terminate() } }
        #expect(url.hasPrefix("http://127.0.0.1:"))
        #expect(url.contains("/#token="))
        let port = try #require(url.split(separator: ":").dropFirst(2).first?.split(separator: "/").first)
        let busy = try CLI.run(["studio", map, "--no-open", "--port", String(port)])
        #expect(busy.status == 2)
        #expect(busy.stderr.contains("is in use"))
        server.interrupt()
        server.waitUntilExit()
        #expect(server.terminationStatus == 0)
        let rest = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(rest.contains("no changes saved"))
    }

    @Test("a map or audio it cannot read is an error naming the file")
    func unreadable() throws {
        let folder = try CLI.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let missing = try CLI.run(["studio", folder.appendingPathComponent("none.beatmap.json").path, "--no-open"])
        #expect(missing.status == 2)
        #expect(missing.stderr.contains("none.beatmap.json"))
        let bare = folder.appendingPathComponent("bare.beatmap.json")
        try Data(#"{"version": 1, "audio": {"duration": 2}, "beats": [0.5, 1]}"#.utf8).write(to: bare)
        let noAudio = try CLI.run(["studio", bare.path, "--no-open"])
        #expect(noAudio.status == 2)
        #expect(noAudio.stderr.contains("names no audio file"))
        let text = folder.appendingPathComponent("notes.txt")
        try Data("not audio".utf8).write(to: text)
        let notAudio = try CLI.run(["studio", bare.path, text.path, "--no-open"])
        #expect(notAudio.status == 2)
        #expect(notAudio.stderr.contains("notes.txt"))
    }
}
