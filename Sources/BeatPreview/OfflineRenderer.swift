// SPDX-License-Identifier: GPL-3.0-or-later

public import BeatAudio
public import BeatMapKit
public import Foundation

/// Why a preview or render could not be made.
public enum PreviewError: Error, LocalizedError, Sendable, Equatable {
    /// The audio could not be decoded.
    case audio(AudioDecodeError)
    /// The map could not be read.
    case map(BeatMapError)
    /// The click sample could not be used.
    case click(ClickError)
    /// The requested span is empty or outside the track.
    case span(SpanProblem)
    /// The output file could not be written.
    case output(path: String, reason: String)
    /// The output file exists and overwriting was not allowed.
    case exists(path: String)
    /// No output device could be used.
    case noDevice(String)
    /// The output device failed.
    case device(String)
    /// The map names no audio file and none was given.
    case noAudio(mapPath: String)
    /// The audio file is not the one the map was made for.
    case audioMismatch(AudioMismatch)
    /// The output file's extension names a format the renderer does not write.
    case unsupportedOutput(path: String, fileExtension: String)
    /// The output could not be encoded.
    case encode(AudioEncodeError)

    public var errorDescription: String? {
        switch self {
        case .audio(let error): return error.localizedDescription
        case .map(let error): return error.localizedDescription
        case .click(let error): return error.localizedDescription
        case .span(let problem): return problem.description
        case .output(let path, let reason): return "\(path): cannot write: \(reason)"
        case .exists(let path): return "\(path) already exists"
        case .noDevice(let reason): return reason
        case .device(let reason): return reason
        case .noAudio(let mapPath): return "\(mapPath) names no audio file (audio.path)"
        case .audioMismatch(let mismatch): return mismatch.description
        case .unsupportedOutput(let path, let fileExtension):
            let named = fileExtension.isEmpty ? "no extension" : "the extension .\(fileExtension)"
            return
                "\(path): \(named) names no format the renderer writes; it writes \(AudioContainer.supportedExtensions)"
        case .encode(let error): return error.localizedDescription
        }
    }

    /// What the user can do about it, if anything.
    public var remedy: Remedy? {
        switch self {
        case .exists: return .allowOverwrite
        case .span(.tooLongForWAV): return .shortenSpan
        case .audioMismatch: return .useMismatchedAudio
        case .noAudio: return .giveAudioFile
        default: return nil
        }
    }
}

/// What is wrong with a requested time span (seconds).
public enum SpanProblem: Sendable, Equatable, CustomStringConvertible {
    /// The start is negative or not a number.
    case invalidStart(Double)
    /// The end is not after 0 s or not a number.
    case invalidEnd(Double)
    /// The start is at or past the end of the audio (its duration, when known).
    case startPastEnd(start: Double, duration: Double?)
    /// The span holds no audio.
    case empty(start: Double, end: Double)
    /// The span is too long for a WAV file (over 4 GiB).
    case tooLongForWAV

    /// A sentence for users.
    public var description: String {
        switch self {
        case .invalidStart: return "the start must be a time ≥ 0 in seconds"
        case .invalidEnd: return "the end must be a time > 0 in seconds"
        case .startPastEnd(let start, let duration):
            return "the start, \(start) s, is at or past the end of the audio"
                + (duration.map { " (\(String(format: "%.3f", $0)) s)" } ?? "")
        case .empty(let start, let end): return "the span from \(start) s to \(end) s is empty"
        case .tooLongForWAV: return "the rendered span is too long for a WAV file (over 4 GiB)"
        }
    }
}

/// The sample format of a rendered WAV file (FLAC and Ogg files are 16-bit and lossy respectively).
public typealias RenderSampleFormat = AudioSampleEncoding

/// How the audio file given for a map differs from the one the map was made for.
public struct AudioMismatch: Sendable, Equatable, CustomStringConvertible {
    /// What differs.
    public enum Difference: Sendable, Equatable {
        /// The file's SHA-256 is `actual`; the map's `audio.sha256` says `stated`.
        case hash(actual: String, stated: String)
        /// The file lasts `actual` seconds; the map's `audio.duration` says `stated`.
        case duration(actual: TimeInterval, stated: TimeInterval)
    }

    /// The audio file.
    public var audioPath: String
    /// The map file.
    public var mapPath: String
    /// What differs.
    public var difference: Difference

    /// The difference for users, naming both files.
    public var description: String {
        let what: String
        switch difference {
        case .hash(let actual, let stated):
            what = "its SHA-256 is \(actual.prefix(12))…, the map's audio.sha256 is \(stated.prefix(12))…"
        case .duration(let actual, let stated):
            what =
                "it lasts \(String(format: "%.3f", actual)) s, the map's audio.duration is \(String(format: "%.3f", stated)) s"
        }
        return "\(audioPath) is not the audio \(mapPath) was made for: \(what)"
    }
}

/// What a preview or render plays: the map, its beats, the audio file and the clicks.
public struct PreviewMaterial: Sendable {
    /// The map file.
    public let mapURL: URL
    /// The map as read.
    public let map: BeatMap
    /// The audio file.
    public let audioURL: URL
    /// The beats as played.
    public let schedule: BeatSchedule
    /// The beats moved half a beat later, as `beatmap edit --shift-beats ½` moves them
    /// (``BeatMapEditor``), for the preview's `h`; `nil` when the map cannot take that shift.
    public let laterSchedule: BeatSchedule?
    /// The audio file's own sample rate.
    public let sourceRate: Int
    /// Channels played: the file's for mono and stereo, 1 (a mix-down) for more.
    public let channels: Int
    /// The audio's duration from its header, in seconds (`nil` when the header does not say).
    public let headerDuration: TimeInterval?
    /// The user's click sample, or `nil` for the built-in click.
    public let clickURL: URL?

    /// How far the audio's duration may differ from the map's `audio.duration` (the validator's
    /// `audio-mismatch` tolerance).
    public static let durationTolerance = ValidationConfiguration().audioDurationTolerance

    /// Reads `mapURL` and opens the audio: `audioURL`, or the file the map's `audio.path` names
    /// (relative to the map's folder) when `audioURL` is `nil`. The audio must be the one the map was
    /// made for — the same SHA-256 when the map records one, otherwise the same duration within
    /// ``durationTolerance`` — unless `acceptMismatch`. A click sample at `clickURL` is checked here.
    public static func load(
        audio audioURL: URL? = nil, map mapURL: URL, click clickURL: URL? = nil, acceptMismatch: Bool = false
    ) throws(PreviewError) -> PreviewMaterial {
        let map: BeatMap
        do { map = try BeatMapCodec.read(from: mapURL) } catch { throw .map(error) }
        guard let audio = audioURL ?? map.audio.resolvedURL(relativeTo: mapURL) else {
            throw .noAudio(mapPath: mapURL.path)
        }
        let reader: AudioFileReader
        do { reader = try AudioFileReader(url: audio) } catch { throw .audio(error) }
        let header: TimeInterval? =
            reader.declaredFrames > 0 && reader.declaredFrames < Int64(Int32.max) * 64
            ? Double(reader.declaredFrames) / Double(reader.sampleRate) : nil
        if !acceptMismatch {
            if let mismatch = try mismatch(of: audio, reader: reader, header: header, map: map, mapURL: mapURL) {
                throw .audioMismatch(mismatch)
            }
        }
        if let clickURL {
            do { _ = try ClickSound.sample(at: clickURL, sampleRate: reader.sampleRate) } catch { throw .click(error) }
        }
        return PreviewMaterial(
            mapURL: mapURL, map: map, audioURL: audio, schedule: BeatSchedule(map: map), sourceRate: reader.sampleRate,
            channels: reader.channels <= 2 ? reader.channels : 1, headerDuration: header, clickURL: clickURL)
    }

    /// How `audio` differs from what `map` says, if it does: the hash when the map records one (a match
    /// settles it), else the duration — the header's, or for MP3 and headers without one the frames
    /// counted by decoding.
    private static func mismatch(
        of audio: URL, reader: AudioFileReader, header: TimeInterval?, map: BeatMap, mapURL: URL
    ) throws(PreviewError) -> AudioMismatch? {
        if let stated = map.audio.sha256?.lowercased() {
            guard let actual = try? FileDigest.sha256Hex(ofFileAt: audio) else {
                throw .audio(.cannotOpen(path: audio.path, reason: "cannot read it to compute its SHA-256"))
            }
            if actual == stated { return nil }
            return AudioMismatch(
                audioPath: audio.path, mapPath: mapURL.path, difference: .hash(actual: actual, stated: stated))
        }
        var duration = header
        if duration == nil || reader.majorFormat == AudioFileReader.mpegFormat {
            do {
                let counter = try AudioFileReader(url: audio)
                duration = Double(try counter.countRemainingFrames()) / Double(counter.sampleRate)
            } catch {
                throw .audio(error)
            }
        }
        guard let actual = duration, abs(actual - map.audio.duration) > durationTolerance else { return nil }
        return AudioMismatch(
            audioPath: audio.path, mapPath: mapURL.path,
            difference: .duration(actual: actual, stated: map.audio.duration))
    }

    /// A material from its parts.
    public init(
        mapURL: URL, map: BeatMap, audioURL: URL, schedule: BeatSchedule, sourceRate: Int, channels: Int,
        headerDuration: TimeInterval?, clickURL: URL?
    ) {
        self.mapURL = mapURL
        self.map = map
        self.audioURL = audioURL
        self.schedule = schedule
        laterSchedule = (try? BeatMapEditor.apply(.shiftBeats(fraction: 0.5), to: map)).map {
            BeatSchedule(map: $0.map)
        }
        self.sourceRate = sourceRate
        self.channels = channels
        self.headerDuration = headerDuration
        self.clickURL = clickURL
    }

    /// The music at `sampleRate` Hz (default: the file's own), resampled with libsoxr if need be.
    public func stream(sampleRate: Int? = nil) throws(PreviewError) -> AudioStream {
        do { return try AudioStream(url: audioURL, sampleRate: sampleRate) } catch { throw .audio(error) }
    }

    /// The clicks for `sampleRate` Hz: the built-in ones, or the user's sample resampled to it.
    public func clicks(sampleRate: Int) throws(PreviewError) -> ClickSound {
        guard let clickURL else { return .synthesized(sampleRate: sampleRate) }
        do { return try ClickSound.sample(at: clickURL, sampleRate: sampleRate) } catch { throw .click(error) }
    }

    /// A mixer of this map's clicks at `sampleRate` Hz.
    @available(macOS 15, iOS 18, tvOS 18, visionOS 2, *)
    public func mixer(sampleRate: Int) throws(PreviewError) -> Mixer {
        Mixer(
            schedule: schedule, clicks: try clicks(sampleRate: sampleRate), channels: channels,
            laterSchedule: laterSchedule)
    }
}

/// A rendered stretch of the mix, in memory (for short spans and tests; files are streamed).
public struct RenderedAudio: Sendable, Equatable {
    /// Interleaved samples.
    public var samples: [Float]
    /// Channels per frame.
    public var channels: Int
    /// Frames per second.
    public var sampleRate: Int
    /// The output frame the first rendered frame corresponds to.
    public var startFrame: Int

    /// Frames rendered.
    public var frames: Int { channels > 0 ? samples.count / channels : 0 }
}

/// Where a rendered span lies: its first frame, its length, its rate and channels.
public struct RenderedSpan: Sendable, Equatable {
    /// The output frame the first rendered frame corresponds to.
    public var startFrame: Int
    /// Frames rendered.
    public var frames: Int
    /// Frames per second.
    public var sampleRate: Int
    /// Channels per frame.
    public var channels: Int
}

/// Renders the mix offline, block by block (decode → resample → mix clicks → encode), with the same
/// ``Mixer`` the realtime preview uses. Memory stays constant whatever the track's length.
public enum OfflineRenderer {
    /// Output frames mixed at a time.
    public static let blockFrames = 4_096

    /// The first output frame of the span starting at `from` seconds (default 0) and its end
    /// (exclusive; `nil`: the end of the audio), at `sampleRate`. `duration` is the audio's length as
    /// far as known, for refusing a start past it before any work.
    public static func frameSpan(
        from: TimeInterval?, to: TimeInterval?, sampleRate: Int, duration: TimeInterval?
    ) throws(PreviewError) -> (start: Int, end: Int?) {
        if let from, !(from.isFinite && from >= 0) { throw .span(.invalidStart(from)) }
        if let to, !(to.isFinite && to > 0) { throw .span(.invalidEnd(to)) }
        let start = Mixer.frame(of: from ?? 0, sampleRate: sampleRate)
        if let duration, start >= Mixer.frame(of: duration, sampleRate: sampleRate) {
            throw .span(.startPastEnd(start: from ?? 0, duration: duration))
        }
        let end = to.map { Mixer.frame(of: $0, sampleRate: sampleRate) }
        if let end, end <= start { throw .span(.empty(start: from ?? 0, end: to ?? 0)) }
        return (start, end)
    }

    /// Mixes the span `from`–`to` (seconds) of `material` at `sampleRate` Hz (default: the audio's own)
    /// and hands each block (interleaved frames) to `body` as it is made. A `to` past the end stops at
    /// the end. Returns the span rendered.
    @available(macOS 15, iOS 18, tvOS 18, visionOS 2, *)
    public static func stream(
        _ material: PreviewMaterial, sampleRate: Int? = nil, from: TimeInterval? = nil, to: TimeInterval? = nil,
        settings: MixSettings = MixSettings(), _ body: (UnsafePointer<Float>, Int) throws(PreviewError) -> Void
    ) throws(PreviewError) -> RenderedSpan {
        let stream = try material.stream(sampleRate: sampleRate)
        let rate = stream.sampleRate
        let span = try frameSpan(from: from, to: to, sampleRate: rate, duration: material.headerDuration)
        let mixer = try material.mixer(sampleRate: rate)
        let channels = stream.channels
        let music = UnsafeMutablePointer<Float>.allocate(capacity: blockFrames * channels)
        let mixed = UnsafeMutablePointer<Float>.allocate(capacity: blockFrames * channels)
        defer {
            music.deallocate()
            mixed.deallocate()
        }
        do { try stream.seek(toFrame: span.start) } catch { throw .audio(error) }
        var frame = span.start
        while span.end.map({ frame < $0 }) ?? true {
            let want = min(blockFrames, (span.end ?? Int.max) - frame)
            let count: Int
            do { count = try stream.read(into: music, frames: want) } catch { throw .audio(error) }
            if count == 0 { break }
            mixer.render(from: frame, frames: count, music: music, settings: settings, into: mixed)
            try body(mixed, count)
            frame += count
        }
        if frame == span.start {
            let known = stream.estimatedFrames.map { Double($0) / Double(rate) } ?? material.headerDuration
            throw .span(.startPastEnd(start: from ?? 0, duration: known))
        }
        return RenderedSpan(startFrame: span.start, frames: frame - span.start, sampleRate: rate, channels: channels)
    }

    /// The span `from`–`to` of `material` mixed in memory (for short spans; files are streamed).
    @available(macOS 15, iOS 18, tvOS 18, visionOS 2, *)
    public static func render(
        _ material: PreviewMaterial, sampleRate: Int? = nil, from: TimeInterval? = nil, to: TimeInterval? = nil,
        settings: MixSettings = MixSettings()
    ) throws(PreviewError) -> RenderedAudio {
        var samples: [Float] = []
        let span = try stream(material, sampleRate: sampleRate, from: from, to: to, settings: settings) {
            block, frames in
            samples.append(contentsOf: UnsafeBufferPointer(start: block, count: frames * material.channels))
        }
        return RenderedAudio(
            samples: samples, channels: span.channels, sampleRate: span.sampleRate, startFrame: span.startFrame)
    }

    /// Streams the span `from`–`to` of `material` into a new audio file at `url` (not published: the
    /// caller makes it atomic).
    @available(macOS 15, iOS 18, tvOS 18, visionOS 2, *)
    static func encode(
        _ material: PreviewMaterial, into url: URL, container: AudioContainer, format: RenderSampleFormat,
        sampleRate: Int?, from: TimeInterval?, to: TimeInterval?, settings: MixSettings
    ) throws(PreviewError) -> RenderedSpan {
        let rate = sampleRate ?? material.sourceRate
        if container == .wav, let duration = material.headerDuration {
            let startSeconds = from ?? 0
            let seconds = min(to ?? duration, duration) - startSeconds
            let bytes = seconds * Double(rate) * Double(material.channels) * (format == .pcm16 ? 2 : 4)
            if bytes > Double(UInt32.max) - 1_024 { throw .span(.tooLongForWAV) }
        }
        let writer: AudioFileWriter
        do {
            writer = try AudioFileWriter(
                url: url, container: container, encoding: format, sampleRate: rate, channels: material.channels)
        } catch {
            throw .encode(error)
        }
        let span = try stream(material, sampleRate: rate, from: from, to: to, settings: settings) {
            block, frames throws(PreviewError) in
            do throws(AudioEncodeError) { try writer.write(block, frames: frames) } catch { throw .encode(error) }
        }
        do { try writer.close() } catch { throw .encode(error) }
        return span
    }
}
