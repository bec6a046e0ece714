// SPDX-License-Identifier: GPL-3.0-or-later

public import BeatAudio
public import BeatMapKit
import BeatPreview
public import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore

/// Settings of a studio launch.
public struct StudioOptions: Sendable, Equatable {
    /// The loopback port to listen on; 0 lets the system choose a free one.
    public var port: Int
    /// The token the page must send with every API request (header `X-Beatmap-Token`).
    public var token: String

    /// Port `port` (0: any free one) with a new random token.
    public init(port: Int = 0, token: String = StudioOptions.newToken()) {
        self.port = port
        self.token = token
    }

    /// 32 random bytes from the system's secure generator, as 64 hex digits.
    public static func newToken() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
    }
}

/// What a studio run did, once the server has stopped.
public struct StudioReport: Sendable, Equatable {
    /// The page's address, token included.
    public var url: String
    /// The saves, in order.
    public var saves: [SaveOutcome]

    /// One line per save.
    public var text: String {
        guard !saves.isEmpty else { return "no changes saved\n" }
        return saves.map { save in
            "saved \(save.path)" + (save.backupPath.map { "; the previous file is kept as \($0)" } ?? "") + "\n"
        }.joined()
    }

    /// `{"url":…,"saves":[{"path":…,"backup":…}]}`.
    public var json: String {
        let saves: [JSONValue] = saves.map { save in
            var object = JSONObject([("path", .string(save.path))])
            object["backup"] = save.backupPath.map(JSONValue.string) ?? .null
            return .object(object)
        }
        return JSONWriter.string(.object(JSONObject([("url", .string(url)), ("saves", .array(saves))]))) + "\n"
    }
}

/// The studio's HTTP server: it listens on 127.0.0.1 only and serves the page's assets, the one audio
/// file (with range requests), the one map, its waveform peaks, the validator's findings and edits, and
/// saves the map (`PUT /api/map`) when the request carries the launch's token and comes from the
/// studio's own origin.
public struct StudioServer: Sendable {
    /// The header that carries the launch token.
    public static let tokenHeader = "X-Beatmap-Token"
    /// The largest request body accepted: a map file's size limit.
    public static let maximumBodySize = BeatMapCodec.maximumFileSize

    /// The state served.
    public let session: StudioSession
    /// Port and token.
    public let options: StudioOptions
    private let assets: PageAssets

    /// A server for `session`.
    public init(session: StudioSession, options: StudioOptions = StudioOptions()) throws(StudioError) {
        self.session = session
        self.options = options
        assets = try PageAssets.load()
    }

    /// Opens the map at `map` with `audio` (default: the map's `audio.path`) and serves it until SIGINT
    /// or SIGTERM (or, without `stopOnSignals`, until the task is cancelled). `ready` gets the page's
    /// address once the server listens. The findings read the audio through `audioInspector` (an onset
    /// detector checks the beats against the music, as `validate --audio` does; its facts are kept for
    /// the session, ``CachedAudioInspector``).
    public static func serve(
        map: URL, audio: URL?, options: StudioOptions = StudioOptions(), stopOnSignals: Bool = true,
        audioInspector: any AudioInspector = SndfileAudioInspector(),
        ready: @escaping @Sendable (_ url: String, _ port: Int) async -> Void
    ) async throws(StudioError) -> StudioReport {
        let session = try StudioSession(
            document: try StudioSession.document(map: map, audio: audio),
            validator: Validator(audioInspector: CachedAudioInspector(audioInspector)))
        return try await StudioServer(session: session, options: options).run(
            stopOnSignals: stopOnSignals, ready: ready)
    }

    /// The page's address for `port`: the token rides in the fragment, which browsers never send.
    public func url(port: Int) -> String { "http://127.0.0.1:\(port)/#token=\(options.token)" }

    /// Runs until the task is cancelled or, with `stopOnSignals`, SIGINT or SIGTERM arrives. `ready` gets
    /// the page's address once the server listens.
    public func run(
        stopOnSignals: Bool = true, ready: @escaping @Sendable (_ url: String, _ port: Int) async -> Void
    ) async throws(StudioError) -> StudioReport {
        let origin = StudioOrigin()
        let router = Router(context: BasicRequestContext.self)
        let publicPaths = Set(["/"] + assets.names.filter { $0 != "index.html" }.map { "/" + $0 })
        router.add(middleware: StudioGuard(token: options.token, origin: origin, publicPaths: publicPaths))
        routes(router)
        let url = URLBox()
        let app = Application(
            router: router,
            configuration: .init(address: .hostname("127.0.0.1", port: options.port), serverName: nil),
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? 0
                await origin.set(port: port)
                let address = self.url(port: port)
                await url.set(address)
                await ready(address, port)
            },
            logger: StudioServer.quietLogger()
        )
        do {
            if stopOnSignals {
                try await app.runService()
            } else {
                try await app.runService(gracefulShutdownSignals: [])
            }
        } catch let error as IOError where error.errnoCode == EADDRINUSE {
            throw .listen("127.0.0.1:\(options.port) is in use; choose another port, or 0 for any free one")
        } catch {
            throw .listen(String(describing: error))
        }
        return StudioReport(url: await url.value ?? "", saves: await session.saves)
    }

    private static func quietLogger() -> Logger {
        var logger = Logger(label: "beatmap-studio")
        logger.logLevel = .critical
        return logger
    }

    // MARK: Routes

    private func routes(_ router: Router<BasicRequestContext>) {
        let assets = assets
        let session = session
        router.get("/") { _, _ in assets.response(for: "index.html") }
        for name in assets.names where name != "index.html" {
            router.get(RouterPath(stringLiteral: "/" + name)) { _, _ in assets.response(for: name) }
        }
        router.get("/api/info") { _, _ in
            let document = session.document
            let info = JSONObject([
                ("map", .string(document.mapURL.lastPathComponent)),
                ("audio", .string(document.audioURL.lastPathComponent)),
                ("metricRatios", .array(session.editor.metricRatios.map(JSONValue.string))),
                ("version", .string(BeatMapKitInfo.version)),
            ])
            return Self.json(JSONWriter.compactString(.object(info)))
        }
        router.get("/api/map") { _, _ in
            do { return Self.json(try await session.mapText()) } catch {
                return Self.problem(.internalServerError, error.localizedDescription)
            }
        }
        router.get("/api/audio") { request, context in
            try await Self.audio(session.document.audioURL, request: request, context: context)
        }
        router.head("/api/audio") { request, context in
            try await Self.audio(session.document.audioURL, request: request, context: context, headOnly: true)
        }
        router.get("/api/peaks") { _, _ in
            switch await session.waveform() {
            case .success(let peaks): return Self.json(peaks.json)
            case .failure(let error): return Self.problem(.unprocessableContent, error.localizedDescription)
            }
        }
        router.post("/api/validate") { request, _ in
            let bytes = try await Self.body(request)
            return Self.json(Self.findings(session.check(bytes)))
        }
        router.post("/api/edit") { request, _ in
            let bytes = try await Self.body(request)
            let edit: MapEdit
            let query = request.uri.queryParameters
            do { edit = try MapEditQuery.parse { query.get($0) } } catch {
                return Self.problem(.badRequest, error.localizedDescription)
            }
            do {
                let map = try session.edit(bytes, edit)
                let text = try BeatMapCodec.encode(map)
                return Self.json(text)
            } catch let error as MapEditError {
                return Self.problem(.unprocessableContent, error.localizedDescription)
            } catch {
                return Self.problem(.unprocessableContent, error.localizedDescription)
            }
        }
        router.put("/api/map") { request, _ in
            let bytes = try await Self.body(request)
            switch await session.save(bytes) {
            case .saved(let outcome, let report):
                var object = JSONObject([("saved", .string(outcome.path))])
                object["backup"] = outcome.backupPath.map(JSONValue.string) ?? .null
                object["findings"] = Self.findingsValue(report)
                return Self.json(JSONWriter.compactString(.object(object)))
            case .invalid(let report):
                let object = JSONObject([
                    ("error", .string("not saved: the map fails validation")), ("findings", Self.findingsValue(report)),
                ])
                return Self.json(JSONWriter.compactString(.object(object)), status: .unprocessableContent)
            case .unreadable(let reason):
                return Self.problem(.badRequest, "not saved: the body is not a beat map (\(reason))")
            case .failed(let reason):
                return Self.problem(.internalServerError, reason)
            }
        }
    }

    // MARK: Responses

    static func body(_ request: Request) async throws -> [UInt8] {
        do {
            let buffer = try await request.body.collect(upTo: maximumBodySize)
            return Array(buffer.readableBytesView)
        } catch {
            throw HTTPError(.contentTooLarge, message: "the request body is over \(maximumBodySize) bytes")
        }
    }

    static func json(_ text: String, status: HTTPResponse.Status = .ok) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "application/json; charset=utf-8"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: text)))
    }

    static func problem(_ status: HTTPResponse.Status, _ message: String) -> Response {
        json(JSONWriter.compactString(.object(JSONObject([("error", .string(message))]))), status: status)
    }

    static func findingsValue(_ report: FileReport) -> JSONValue {
        let findings: [JSONValue] = report.findings.map { finding in
            var object = JSONObject([
                ("rule", .string(finding.ruleID)), ("severity", .string(finding.severity.rawValue)),
                ("message", .string(finding.message)),
            ])
            if let index = finding.beatIndex { object["index"] = .int(index) }
            if let time = finding.time, time.isFinite { object["time"] = .double(time) }
            if finding.count != 1 { object["count"] = .int(finding.count) }
            if let fix = finding.fix.flatMap(fixValue) { object["fix"] = fix }
            return .object(object)
        }
        return .object(
            JSONObject([
                ("errors", .int(report.errorCount)), ("warnings", .int(report.warningCount)),
                ("findings", .array(findings)), ("notes", .array(report.notes.map(JSONValue.string))),
            ]))
    }

    static func findings(_ report: FileReport) -> String { JSONWriter.compactString(findingsValue(report)) }

    /// A finding's fix as the page offers it: the query of `POST /api/edit` that makes it (`query`, its
    /// parameters) and what it does (`label`); `nil` for an edit the page does not make from a finding.
    static func fixValue(_ fix: BeatMapEdit) -> JSONValue? {
        var query = JSONObject()
        switch fix {
        case .nudge(let seconds):
            query["op"] = .string("nudge")
            query["ms"] = .double(NumberFormatting.roundedToMicroseconds(seconds) * 1000)
        case .metricLevel(let level):
            query["op"] = .string("metric")
            query["ratio"] = .string(level.label)
        case .shiftBeats(let fraction):
            query["op"] = .string("shiftBeats")
            query["fraction"] = .double(fraction)
        case .shiftBars(let beats, .all):
            query["op"] = .string("barPhase")
            query["beats"] = .int(beats)
        default:
            return nil
        }
        return .object(JSONObject([("query", .object(query)), ("label", .string(fix.summary))]))
    }

    static func audio(
        _ url: URL, request: Request, context: BasicRequestContext, headOnly: Bool = false
    ) async throws -> Response {
        let attributes = try? FileManager.default.attributesOfItem(atPath: url.path)
        guard let size = (attributes?[.size] as? NSNumber)?.intValue else {
            return problem(.notFound, "the audio file is gone")
        }
        var headers = HTTPFields()
        headers[.contentType] = AudioMediaType.of(url)
        headers[.acceptRanges] = "bytes"
        var status = HTTPResponse.Status.ok
        var range = size > 0 ? ByteRange(first: 0, last: size - 1) : nil
        if let header = request.headers[.range] {
            switch ByteRange.resolve(header, length: size) {
            case .whole: break
            case .partial(let part):
                range = part
                status = .partialContent
                headers[.contentRange] = "bytes \(part.first)-\(part.last)/\(size)"
            case .unsatisfiable:
                headers[.contentRange] = "bytes */\(size)"
                return Response(status: .rangeNotSatisfiable, headers: headers, body: .init())
            }
        }
        headers[.contentLength] = String(range?.count ?? 0)
        guard let range, !headOnly else { return Response(status: status, headers: headers, body: .init()) }
        let body = try await FileIO().loadFile(path: url.path, range: range.first...range.last, context: context)
        return Response(status: status, headers: headers, body: body)
    }
}

/// The port the server listens on, known once it runs; the guard reads it for every request.
actor StudioOrigin {
    private(set) var port: Int?

    func set(port: Int) { self.port = port }
}

/// A value set once the server runs.
private actor URLBox {
    private(set) var value: String?

    func set(_ value: String) { self.value = value }
}

/// The media type of an audio file, by its extension.
enum AudioMediaType {
    static func of(_ url: URL) -> String {
        switch url.pathExtension.lowercased() {
        case "ogg", "oga": return "audio/ogg"
        case "opus": return "audio/ogg"
        case "flac": return "audio/flac"
        case "wav", "wave": return "audio/wav"
        case "mp3": return "audio/mpeg"
        case "aif", "aiff": return "audio/aiff"
        default: return "application/octet-stream"
        }
    }
}
