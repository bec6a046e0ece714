// SPDX-License-Identifier: GPL-3.0-or-later

import BeatAnalysis
import BeatAudio
import BeatMapKit
import BeatStudio
import Foundation
import Testing

/// A studio server on an ephemeral loopback port over a copy of the shipped demo map and audio.
final class RunningStudio: Sendable {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    let folder: URL
    let mapURL: URL
    let audioURL: URL
    let token = StudioOptions.newToken()
    let port: Int
    let origin: String
    private let task: Task<StudioReport, any Error>

    init(audioInspector: any AudioInspector = SndfileAudioInspector()) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("studio-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        self.folder = folder
        mapURL = folder.appendingPathComponent("demo-120.beatmap.json")
        audioURL = folder.appendingPathComponent("demo-120.ogg")
        var map = try BeatMapCodec.read(from: Self.root.appendingPathComponent("BeatMaps/demo-120.beatmap.json"))
        map.audio.path = "demo-120.ogg"
        try BeatMapCodec.write(map, to: mapURL, overwrite: false)
        try FileManager.default.copyItem(at: Self.root.appendingPathComponent("Audio/demo-120.ogg"), to: audioURL)
        let (stream, continuation) = AsyncStream.makeStream(of: Int.self)
        let options = StudioOptions(port: 0, token: token)
        let mapFile = mapURL
        task = Task {
            try await StudioServer.serve(
                map: mapFile, audio: nil, options: options, stopOnSignals: false, audioInspector: audioInspector
            ) { _, port in
                continuation.yield(port)
                continuation.finish()
            }
        }
        var found: Int?
        for await port in stream { found = port }
        port = try #require(found)
        origin = "http://127.0.0.1:\(port)"
    }

    var client: LoopbackHTTP { LoopbackHTTP(port: port) }

    func mapBytes() throws -> Data { try Data(contentsOf: mapURL) }

    func stop() async {
        task.cancel()
        _ = try? await task.value
        try? FileManager.default.removeItem(at: folder)
    }
}

@Suite("studio server", .serialized)
struct StudioServerTests {
    @Test("serves the page without a token and the API only with it")
    func tokenRequired() async throws {
        let studio = try await RunningStudio()
        defer { Task { await studio.stop() } }
        let page = try await studio.client.send("GET", "/")
        #expect(page.status == 200)
        #expect(page.text.contains("<canvas id=\"detail\""))
        #expect(page.headers["content-security-policy"]?.contains("default-src 'none'") == true)
        let without = try await studio.client.send("GET", "/api/map")
        #expect(without.status == 401)
        let wrong = try await studio.client.send(
            "GET", "/api/map", headers: [("X-Beatmap-Token", String(repeating: "0", count: 64))])
        #expect(wrong.status == 401)
        let with = try await studio.client.send("GET", "/api/map", headers: [("X-Beatmap-Token", studio.token)])
        #expect(with.status == 200)
        #expect(with.body == Array(try studio.mapBytes()))
    }

    @Test("a save without the token, from another origin or with no origin is refused and changes nothing")
    func refusedSaves() async throws {
        let studio = try await RunningStudio()
        defer { Task { await studio.stop() } }
        let before = try studio.mapBytes()
        var map = try BeatMapCodec.read(from: studio.mapURL)
        map.beats = map.beats.map { $0 + 0.01 }
        map.tempo = map.tempo?.map {
            var s = $0; s.time += 0.01; return s
        }
        let body = Array(try BeatMapCodec.encode(map).utf8)
        let attempts: [[(String, String)]] = [
            [("Origin", studio.origin)],
            [("Origin", "http://evil.example"), ("X-Beatmap-Token", studio.token)],
            [("Origin", "http://127.0.0.1:1"), ("X-Beatmap-Token", studio.token)],
            [("X-Beatmap-Token", studio.token)],
            [("Origin", studio.origin), ("X-Beatmap-Token", studio.token), ("Sec-Fetch-Site", "cross-site")],
        ]
        for headers in attempts {
            let response = try await studio.client.send("PUT", "/api/map", headers: headers, body: body)
            #expect(response.status == 401 || response.status == 403, "\(headers)")
        }
        let rebound = try await studio.client.send(
            "PUT", "/api/map",
            headers: [("Origin", "http://evil.example:\(studio.port)"), ("X-Beatmap-Token", studio.token)],
            body: body, host: "evil.example:\(studio.port)")
        #expect(rebound.status == 421)
        #expect(try studio.mapBytes() == before)
        #expect(!FileManager.default.fileExists(atPath: studio.mapURL.path + ".bak"))
    }

    @Test("a save that fails validation is refused with its findings and changes nothing")
    func invalidSave() async throws {
        let studio = try await RunningStudio()
        defer { Task { await studio.stop() } }
        let before = try studio.mapBytes()
        var map = try BeatMapCodec.read(from: studio.mapURL)
        map.beats.swapAt(3, 4)
        let body = Array(try BeatMapCodec.encode(map).utf8)
        let headers = [("Origin", studio.origin), ("X-Beatmap-Token", studio.token)]
        let response = try await studio.client.send("PUT", "/api/map", headers: headers, body: body)
        #expect(response.status == 422)
        #expect(response.text.contains("non-monotonic"))
        let garbage = try await studio.client.send(
            "PUT", "/api/map", headers: headers, body: Array("{\"version\": 1".utf8))
        #expect(garbage.status == 400)
        #expect(try studio.mapBytes() == before)
        #expect(!FileManager.default.fileExists(atPath: studio.mapURL.path + ".bak"))
    }

    @Test("a good save keeps the original as .bak and writes the new map")
    func goodSave() async throws {
        let studio = try await RunningStudio()
        defer { Task { await studio.stop() } }
        let before = try studio.mapBytes()
        let headers = [("Origin", studio.origin), ("X-Beatmap-Token", studio.token)]
        let edited = try await studio.client.send(
            "POST", "/api/edit?op=nudge&ms=12", headers: headers, body: Array(before))
        #expect(edited.status == 200)
        let saved = try await studio.client.send("PUT", "/api/map", headers: headers, body: edited.body)
        #expect(saved.status == 200)
        #expect(try Data(contentsOf: URL(fileURLWithPath: studio.mapURL.path + ".bak")) == before)
        let map = try BeatMapCodec.read(from: studio.mapURL)
        let first = try #require(map.beats.first)
        #expect(abs(first - 0.512) < 1e-9)
        let again = try await studio.client.send("GET", "/api/map", headers: [("X-Beatmap-Token", studio.token)])
        #expect(again.body == edited.body)
    }

    @Test("no request path reaches the file system")
    func pathTraversal() async throws {
        let studio = try await RunningStudio()
        defer { Task { await studio.stop() } }
        let token = [("X-Beatmap-Token", studio.token)]
        let targets = [
            "/../../../../etc/passwd", "/%2e%2e/%2e%2e/etc/passwd", "/api/../../etc/passwd",
            "/api/audio/../../etc/passwd",
            "/studio.js/../../Package.swift", "/..%2f..%2fetc%2fpasswd", "//etc/passwd", "/Page/studio.js",
            "/demo-120.beatmap.json", "/demo-120.ogg", "/api/map/../../demo-120.beatmap.json", "/index.html/..",
        ]
        for target in targets {
            for headers in [[], token] {
                let response = try await studio.client.send("GET", target, headers: headers)
                #expect((400..<500).contains(response.status), "\(target)")
                #expect(!response.text.contains("root:"), "\(target)")
                #expect(!response.text.contains("\"beats\""), "\(target)")
            }
        }
    }

    @Test("audio is served whole and by byte ranges")
    func rangeRequests() async throws {
        let studio = try await RunningStudio()
        defer { Task { await studio.stop() } }
        let audio = Array(try Data(contentsOf: studio.audioURL))
        let token = ("X-Beatmap-Token", studio.token)
        let whole = try await studio.client.send("GET", "/api/audio", headers: [token])
        #expect(whole.status == 200)
        #expect(whole.headers["accept-ranges"] == "bytes")
        #expect(whole.headers["content-type"] == "audio/ogg")
        #expect(whole.body == audio)
        let part = try await studio.client.send("GET", "/api/audio", headers: [token, ("Range", "bytes=100-199")])
        #expect(part.status == 206)
        #expect(part.headers["content-range"] == "bytes 100-199/\(audio.count)")
        #expect(part.body == Array(audio[100...199]))
        let tail = try await studio.client.send("GET", "/api/audio", headers: [token, ("Range", "bytes=-10")])
        #expect(tail.status == 206)
        #expect(tail.body == Array(audio[(audio.count - 10)...]))
        let open = try await studio.client.send(
            "GET", "/api/audio", headers: [token, ("Range", "bytes=\(audio.count - 5)-")])
        #expect(open.body == Array(audio[(audio.count - 5)...]))
        let past = try await studio.client.send(
            "GET", "/api/audio", headers: [token, ("Range", "bytes=\(audio.count)-")])
        #expect(past.status == 416)
        #expect(past.headers["content-range"] == "bytes */\(audio.count)")
        let noToken = try await studio.client.send("GET", "/api/audio", headers: [("Range", "bytes=0-9")])
        #expect(noToken.status == 401)
    }

    @Test("peaks come from the decoder; findings and edits from the library")
    func peaksFindingsEdits() async throws {
        let studio = try await RunningStudio()
        defer { Task { await studio.stop() } }
        let headers = [("Origin", studio.origin), ("X-Beatmap-Token", studio.token)]
        let peaks = try await studio.client.send("GET", "/api/peaks", headers: headers)
        #expect(peaks.status == 200)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(peaks.body)) as? [String: Any])
        #expect(object["sampleRate"] as? Int == 44100)
        let values = try #require(object["peaks"] as? [Int])
        #expect(values.count > 2 * 6000)
        #expect(values.contains { abs($0) > 20 })
        let map = try studio.mapBytes()
        let findings = try await studio.client.send("POST", "/api/validate", headers: headers, body: Array(map))
        #expect(findings.status == 200)
        let report = try #require(try JSONSerialization.jsonObject(with: Data(findings.body)) as? [String: Any])
        #expect(report["errors"] as? Int == 0)
        let doubled = try await studio.client.send(
            "POST", "/api/edit?op=metric&ratio=%C3%972", headers: headers, body: Array(map))
        #expect(doubled.status == 200)
        let twice = try #require(BeatMapCodec.decodedMap(doubled.body))
        let original = try BeatMapCodec.read(from: studio.mapURL)
        #expect(twice.beats.count == 2 * original.beats.count)
        #expect(twice.tempo?.first?.bpm == 240)
        let half = try await studio.client.send(
            "POST", "/api/edit?op=shiftBeats&fraction=0.5", headers: headers, body: Array(map))
        #expect(half.status == 200)
        let later = try #require(BeatMapCodec.decodedMap(half.body))
        let firstBefore = try #require(original.beats.first)
        let firstAfter = try #require(later.beats.first)
        #expect(abs(firstAfter - firstBefore - 0.25) < 1e-6)
        let unknown = try await studio.client.send("POST", "/api/edit?op=explode", headers: headers, body: Array(map))
        #expect(unknown.status == 400)
    }
}

/// Counts the inspections the studio asks of the real inspector it wraps.
final class CountingInspector: AudioInspector, @unchecked Sendable {
    // `@unchecked Sendable` is safe: `count` is only touched while `lock` is held.
    private let inner: any AudioInspector
    private let lock = NSLock()
    private var count = 0
    init(_ inner: any AudioInspector) { self.inner = inner }
    var calls: Int { lock.withLock { count } }
    func inspect(_ url: URL, computeHash: Bool) throws -> AudioFacts {
        lock.withLock { count += 1 }
        return try inner.inspect(url, computeHash: computeHash)
    }
}

@Suite("studio findings against the audio", .serialized)
struct StudioAudioFindingsTests {
    @Test(
        "a map half a beat out gets audio-offbeat with its fix; the fix's edit puts it back; the onsets are read once")
    func offbeatFix() async throws {
        let inspector = CountingInspector(OnsetAudioInspector())
        let studio = try await RunningStudio(audioInspector: inspector)
        defer { Task { await studio.stop() } }
        let headers = [("Origin", studio.origin), ("X-Beatmap-Token", studio.token)]
        let original = try BeatMapCodec.read(from: studio.mapURL)
        let late = try BeatMapEditor.apply(.shiftBeats(fraction: 0.5), to: original).map
        let body = Array(try BeatMapCodec.encode(late).utf8)
        let response = try await studio.client.send("POST", "/api/validate", headers: headers, body: body)
        #expect(response.status == 200)
        let report = try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
        let findings = try #require(report["findings"] as? [[String: Any]])
        let offbeat = try #require(findings.first { $0["rule"] as? String == "audio-offbeat" })
        let fix = try #require(offbeat["fix"] as? [String: Any])
        #expect(fix["label"] as? String == "every beat half a beat earlier")
        let query = try #require(fix["query"] as? [String: Any])
        #expect(query["op"] as? String == "shiftBeats")
        #expect(query["fraction"] as? Double == -0.5)
        let edited = try await studio.client.send(
            "POST", "/api/edit?op=shiftBeats&fraction=-0.5", headers: headers, body: body)
        #expect(edited.status == 200)
        let back = try #require(BeatMapCodec.decodedMap(edited.body))
        let first = try #require(back.beats.first)
        let originalFirst = try #require(original.beats.first)
        #expect(abs(first - originalFirst) < 1e-6)
        // A second validation reads the audio from the session's cache.
        let calls = inspector.calls
        _ = try await studio.client.send("POST", "/api/validate", headers: headers, body: body)
        #expect(inspector.calls == calls)
    }
}

extension BeatMapCodec {
    static func decodedMap(_ bytes: [UInt8]) -> BeatMap? {
        if case .map(let map, _) = decode(bytes) { return map }
        return nil
    }
}
