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
        }
    }

    /// What the user can do about it, if anything.
    public var remedy: Remedy? {
        switch self {
        case .exists: return .allowOverwrite
        case .span(.tooLongForWAV): return .shortenSpan
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

/// The sample format of a rendered WAV file.
public enum RenderSampleFormat: String, Sendable, CaseIterable {
    /// 16-bit integer PCM (plays everywhere).
    case pcm16
    /// 32-bit IEEE float (the mixer's exact samples).
    case float32
}

/// What a preview plays: the map, its schedule, the decoded track and the mixer over them.
@available(macOS 15, iOS 18, tvOS 18, visionOS 2, *)
public struct PreviewMaterial: Sendable {
    /// The map file.
    public let mapURL: URL
    /// The map as read.
    public let map: BeatMap
    /// The mixer (track, schedule and clicks).
    public let mixer: Mixer

    /// Reads `mapURL`, decodes `audioURL` (all of it, or ahead of playback with `decodeAhead`) and
    /// prepares the clicks: the built-in ones or the sample at `clickURL`.
    public static func load(
        audio audioURL: URL, map mapURL: URL, click clickURL: URL? = nil, decodeAhead: Bool = false
    ) throws(PreviewError) -> PreviewMaterial {
        let map: BeatMap
        do { map = try BeatMapCodec.read(from: mapURL) } catch { throw .map(error) }
        let track: TrackBuffer
        do {
            track = decodeAhead ? try TrackBuffer.decodeAhead(audioURL) : try TrackBuffer.decode(audioURL)
        } catch {
            throw .audio(error)
        }
        let clicks: ClickSound
        if let clickURL {
            do { clicks = try ClickSound.sample(at: clickURL, sampleRate: track.sampleRate) } catch {
                throw .click(error)
            }
        } else {
            clicks = .synthesized(sampleRate: track.sampleRate)
        }
        return PreviewMaterial(
            mapURL: mapURL, map: map, mixer: Mixer(track: track, schedule: BeatSchedule(map: map), clicks: clicks))
    }

    /// A preview of `map` over an already prepared mixer's track and clicks.
    public init(mapURL: URL, map: BeatMap, mixer: Mixer) {
        self.mapURL = mapURL
        self.map = map
        self.mixer = mixer
    }
}

/// A rendered stretch of the mix.
public struct RenderedAudio: Sendable, Equatable {
    /// Interleaved samples.
    public var samples: [Float]
    /// Channels per frame.
    public var channels: Int
    /// Frames per second.
    public var sampleRate: Int
    /// The track frame the first rendered frame corresponds to.
    public var startFrame: Int

    /// Frames rendered.
    public var frames: Int { channels > 0 ? samples.count / channels : 0 }
}

/// Renders the mix offline, with the same ``Mixer`` the realtime preview uses.
public enum OfflineRenderer {
    /// The frames `[round(from × rate), round(to × rate))` of the track (`from` defaults to 0, `to`
    /// to the end of the track; a `to` past the end stops at the end).
    @available(macOS 15, iOS 18, tvOS 18, visionOS 2, *)
    public static func frameSpan(of mixer: Mixer, from: TimeInterval?, to: TimeInterval?) throws(PreviewError) -> Range<
        Int
    > {
        mixer.track.waitUntilComplete()
        let total = mixer.track.availableFrames
        let duration = Double(total) / Double(mixer.sampleRate)
        if let from, !(from.isFinite && from >= 0) { throw .span(.invalidStart(from)) }
        if let to, !(to.isFinite && to > 0) { throw .span(.invalidEnd(to)) }
        let start = Mixer.frame(of: from ?? 0, sampleRate: mixer.sampleRate)
        let end = min(to.map { Mixer.frame(of: $0, sampleRate: mixer.sampleRate) } ?? total, total)
        guard start < total else {
            throw .span(.startPastEnd(start: from ?? 0, duration: duration))
        }
        guard start < end else { throw .span(.empty(start: from ?? 0, end: to ?? duration)) }
        return start..<end
    }

    /// Renders `span` (track frames) of `mixer`'s mix.
    @available(macOS 15, iOS 18, tvOS 18, visionOS 2, *)
    public static func render(_ mixer: Mixer, span: Range<Int>, settings: MixSettings) -> RenderedAudio {
        let channels = mixer.channels
        let block = 4_096
        var samples = [Float](repeating: 0, count: span.count * channels)
        samples.withUnsafeMutableBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return }
            var frame = span.lowerBound
            while frame < span.upperBound {
                let count = min(block, span.upperBound - frame)
                mixer.render(
                    from: frame, frames: count, settings: settings, into: base + (frame - span.lowerBound) * channels)
                frame += count
            }
        }
        return RenderedAudio(
            samples: samples, channels: channels, sampleRate: mixer.sampleRate, startFrame: span.lowerBound)
    }

    /// A WAV file of `audio` in `format` (little-endian RIFF; float files carry a `fact` chunk).
    public static func wav(_ audio: RenderedAudio, format: RenderSampleFormat) throws(PreviewError) -> Data {
        let bytesPerSample = format == .pcm16 ? 2 : 4
        let dataBytes = audio.samples.count * bytesPerSample
        let headerBytes = format == .pcm16 ? 44 : 58
        guard dataBytes + headerBytes - 8 <= Int(UInt32.max) else {
            throw .span(.tooLongForWAV)
        }
        var data = Data(capacity: headerBytes + dataBytes)
        func append32(_ value: UInt32) { withUnsafeBytes(of: value.littleEndian) { data.append(contentsOf: $0) } }
        func append16(_ value: UInt16) { withUnsafeBytes(of: value.littleEndian) { data.append(contentsOf: $0) } }
        data.append(contentsOf: Array("RIFF".utf8))
        append32(UInt32(headerBytes - 8 + dataBytes))
        data.append(contentsOf: Array("WAVEfmt ".utf8))
        append32(format == .pcm16 ? 16 : 18)
        append16(format == .pcm16 ? 1 : 3)
        append16(UInt16(audio.channels))
        append32(UInt32(audio.sampleRate))
        append32(UInt32(audio.sampleRate * audio.channels * bytesPerSample))
        append16(UInt16(audio.channels * bytesPerSample))
        append16(UInt16(bytesPerSample * 8))
        if format == .float32 {
            append16(0)
            data.append(contentsOf: Array("fact".utf8))
            append32(4)
            append32(UInt32(audio.frames))
        }
        data.append(contentsOf: Array("data".utf8))
        append32(UInt32(dataBytes))
        switch format {
        case .pcm16:
            var pcm = [Int16](repeating: 0, count: audio.samples.count)
            for (index, sample) in audio.samples.enumerated() {
                pcm[index] = Int16((max(-1, min(1, sample)) * 32_767).rounded()).littleEndian
            }
            pcm.withUnsafeBytes { data.append(contentsOf: $0) }
        case .float32:
            var bits = [UInt32](repeating: 0, count: audio.samples.count)
            for (index, sample) in audio.samples.enumerated() { bits[index] = sample.bitPattern.littleEndian }
            bits.withUnsafeBytes { data.append(contentsOf: $0) }
        }
        return data
    }

    /// Renders the span `from`–`to` of `material` and writes it atomically to `output` as WAV.
    /// An existing `output` is replaced only with `overwrite`. Returns what was rendered.
    @available(macOS 15, iOS 18, tvOS 18, visionOS 2, *)
    @discardableResult
    public static func write(
        _ material: PreviewMaterial, to output: URL, from: TimeInterval? = nil, to: TimeInterval? = nil,
        settings: MixSettings = MixSettings(), format: RenderSampleFormat = .pcm16, overwrite: Bool = false
    ) throws(PreviewError) -> RenderedAudio {
        if !overwrite && FileManager.default.fileExists(atPath: output.path) { throw .exists(path: output.path) }
        let span = try frameSpan(of: material.mixer, from: from, to: to)
        let audio = render(material.mixer, span: span, settings: settings)
        let data = try wav(audio, format: format)
        do {
            try AtomicFile.write(data, to: output, overwrite: overwrite)
        } catch .exists(let path) {
            throw .exists(path: path)
        } catch {
            throw .output(path: output.path, reason: error.localizedDescription)
        }
        return audio
    }
}
