// SPDX-License-Identifier: GPL-3.0-or-later

public import BeatAudio
import BeatMapKit
public import Foundation

/// What a render wrote: the file, its length, the clicks in it and its format.
public struct RenderReport: Sendable, Equatable {
    /// The file written, as the caller names it.
    public var path: String
    /// Seconds of audio written.
    public var seconds: Double
    /// Clicks in the rendered span.
    public var clicks: Int
    /// Frames per second.
    public var sampleRate: Int
    /// Channels per frame.
    public var channels: Int
    /// The container written.
    public var container: AudioContainer

    /// A report of `span` written to `path` as `container`, counting the beats of `schedule` it holds.
    public init(path: String, span: RenderedSpan, schedule: BeatSchedule, container: AudioContainer = .wav) {
        self.path = path
        seconds = Double(span.frames) / Double(span.sampleRate)
        let frames = span.startFrame..<(span.startFrame + span.frames)
        clicks = schedule.times.filter { frames.contains(Mixer.frame(of: $0, sampleRate: span.sampleRate)) }.count
        sampleRate = span.sampleRate
        channels = span.channels
        self.container = container
    }

    /// `out.wav: 32.000 s, 64 clicks, 44100 Hz, 2 channels`, and a newline.
    public var text: String {
        "\(path): \(String(format: "%.3f", seconds)) s, \(clicks) clicks, \(sampleRate) Hz, "
            + "\(channels) channel\(channels == 1 ? "" : "s")\n"
    }
}

/// Where a render goes.
public enum RenderDestination {
    /// A file, written atomically; its extension names the format (``AudioContainer``).
    case file(URL)
    /// An open file or pipe (standard output), written as WAV once the render is complete.
    case stream(FileHandle)
}

/// Everything a render needs, as the caller gives it.
public struct RenderRequest {
    /// The audio file; `nil`: the one the map's `audio.path` names.
    public var audio: URL?
    /// The map file.
    public var map: URL
    /// A click sample instead of the built-in click.
    public var click: URL?
    /// Where the mix goes.
    public var destination: RenderDestination
    /// The destination as the report names it.
    public var shownAs: String
    /// The span's start and end in seconds (`nil`: the audio's start and end).
    public var from: TimeInterval?
    /// The span's end in seconds.
    public var to: TimeInterval?
    /// Output frames per second (`nil`: the audio's own); the music is resampled with libsoxr.
    public var sampleRate: Int?
    /// Gains and mutes.
    public var settings: MixSettings
    /// Sample format of a WAV file.
    public var format: RenderSampleFormat
    /// Whether an existing file may be replaced.
    public var overwrite: Bool
    /// Whether audio that is not the map's (another hash or duration) is rendered anyway.
    public var acceptMismatch: Bool

    /// A request with the defaults: the whole track at its own rate, 16-bit, nothing replaced.
    public init(
        audio: URL?, map: URL, click: URL? = nil, destination: RenderDestination, shownAs: String,
        from: TimeInterval? = nil, to: TimeInterval? = nil, sampleRate: Int? = nil,
        settings: MixSettings = MixSettings(),
        format: RenderSampleFormat = .pcm16, overwrite: Bool = false, acceptMismatch: Bool = false
    ) {
        self.audio = audio
        self.map = map
        self.click = click
        self.destination = destination
        self.shownAs = shownAs
        self.from = from
        self.to = to
        self.sampleRate = sampleRate
        self.settings = settings
        self.format = format
        self.overwrite = overwrite
        self.acceptMismatch = acceptMismatch
    }
}

extension OfflineRenderer {
    /// Renders the audio with a click on every beat of the map, streaming block by block: the format
    /// (from a file's extension) and an existing file are checked before anything is decoded, the span
    /// against the track, then the mix is encoded into a temporary file that replaces the destination
    /// in one step (or is copied to the stream).
    @available(macOS 15, iOS 18, tvOS 18, visionOS 2, *)
    public static func render(_ request: RenderRequest) throws(PreviewError) -> RenderReport {
        let container: AudioContainer
        switch request.destination {
        case .file(let url):
            guard let named = AudioContainer(fileExtension: url.pathExtension) else {
                throw .unsupportedOutput(path: url.path, fileExtension: url.pathExtension)
            }
            container = named
            if !request.overwrite && FileManager.default.fileExists(atPath: url.path) {
                throw .exists(path: url.path)
            }
        case .stream:
            container = .wav
        }
        if request.format == .float32 && !container.holdsFloat {
            throw .encode(.unsupportedEncoding(container: container, encoding: request.format))
        }
        if let rate = request.sampleRate, !(1_000...AudioFileReader.maximumSampleRate).contains(rate) {
            throw .audio(.unsupported(path: request.shownAs, reason: "cannot render at \(rate) Hz"))
        }
        let material = try PreviewMaterial.load(
            audio: request.audio, map: request.map, click: request.click, acceptMismatch: request.acceptMismatch)
        let target: URL
        let overwrite: Bool
        switch request.destination {
        case .file(let url): (target, overwrite) = (url, request.overwrite)
        case .stream:
            let name = "beatmap-render-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).wav"
            (target, overwrite) = (FileManager.default.temporaryDirectory.appendingPathComponent(name), false)
        }
        let temporary: URL
        do { temporary = try AtomicFile.makeTemporary(for: target, overwrite: overwrite) } catch {
            if case .exists(let path) = error { throw .exists(path: path) }
            throw .output(path: request.shownAs, reason: error.localizedDescription)
        }
        let span: RenderedSpan
        do {
            span = try encode(
                material, into: temporary, container: container, format: request.format,
                sampleRate: request.sampleRate, from: request.from, to: request.to, settings: request.settings)
        } catch {
            AtomicFile.discard(temporary)
            throw error
        }
        switch request.destination {
        case .file(let url):
            do { try AtomicFile.commit(temporary, to: url, overwrite: request.overwrite) } catch {
                if case .exists(let path) = error { throw .exists(path: path) }
                throw .output(path: request.shownAs, reason: error.localizedDescription)
            }
        case .stream(let handle):
            defer { AtomicFile.discard(temporary) }
            try copy(temporary, to: handle, shownAs: request.shownAs)
        }
        return RenderReport(path: request.shownAs, span: span, schedule: material.schedule, container: container)
    }

    /// Copies the file at `url` to `handle` in blocks.
    private static func copy(_ url: URL, to handle: FileHandle, shownAs: String) throws(PreviewError) {
        do {
            let input = try FileHandle(forReadingFrom: url)
            defer { try? input.close() }
            while let block = try input.read(upToCount: 1 << 20), !block.isEmpty {
                try handle.write(contentsOf: block)
            }
        } catch {
            throw .output(path: shownAs, reason: FileSystemErrors.reason(error))
        }
    }
}
