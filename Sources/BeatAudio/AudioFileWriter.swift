// SPDX-License-Identifier: GPL-3.0-or-later

import CSndfile
public import Foundation

/// A file format the toolkit writes audio in, through libsndfile.
public enum AudioContainer: String, Sendable, CaseIterable {
    /// RIFF WAVE: 16-bit PCM or 32-bit float.
    case wav
    /// FLAC: lossless, 16-bit.
    case flac
    /// Ogg Vorbis: lossy.
    case ogg

    /// The container a file name's extension names (case-insensitive), or `nil`.
    public init?(fileExtension: String) {
        switch fileExtension.lowercased() {
        case "wav", "wave": self = .wav
        case "flac": self = .flac
        case "ogg", "oga": self = .ogg
        default: return nil
        }
    }

    /// The extensions written, as a list for messages: `.wav, .flac or .ogg`.
    public static var supportedExtensions: String {
        let names = allCases.map { ".\($0.rawValue)" }
        return names.dropLast().joined(separator: ", ") + " or " + (names.last ?? "")
    }

    /// Whether the container stores 32-bit float samples.
    public var holdsFloat: Bool { self == .wav }
}

/// How samples are stored in a written file.
public enum AudioSampleEncoding: String, Sendable, CaseIterable {
    /// 16-bit integer PCM (plays everywhere; what FLAC stores).
    case pcm16
    /// 32-bit IEEE float (the exact samples; WAV only).
    case float32
}

/// Why an audio file could not be written.
public enum AudioEncodeError: Error, LocalizedError, Sendable, Equatable {
    /// The container cannot store samples that way (float in FLAC or Ogg).
    case unsupportedEncoding(container: AudioContainer, encoding: AudioSampleEncoding)
    /// libsndfile could not create the file.
    case cannotCreate(path: String, reason: String)
    /// Writing failed part-way.
    case writeFailed(path: String, reason: String)

    public var errorDescription: String? {
        switch self {
        case .unsupportedEncoding(let container, let encoding):
            return
                "a .\(container.rawValue) file cannot hold \(encoding == .float32 ? "32-bit float" : "16-bit") samples; "
                + "float samples need .wav"
        case .cannotCreate(let path, let reason): return "\(path): cannot create audio file: \(reason)"
        case .writeFailed(let path, let reason): return "\(path): writing audio failed: \(reason)"
        }
    }
}

/// A streaming writer of an audio file through libsndfile: interleaved float frames in, block by block.
/// ``close()`` finishes the file (its header's lengths); one writer belongs to one thread at a time.
///
/// Output is deterministic: WAV files carry no `PEAK` chunk (libsndfile would stamp it with the time).
public final class AudioFileWriter {
    /// The file's path, for messages.
    public let path: String
    /// Interleaved channels per frame.
    public let channels: Int
    private var handle: OpaquePointer?

    /// Creates (or truncates) the file at `url`.
    public init(
        url: URL, container: AudioContainer, encoding: AudioSampleEncoding, sampleRate: Int, channels: Int
    ) throws(AudioEncodeError) {
        path = url.path
        self.channels = channels
        let major: Int32
        let minor: Int32
        switch (container, encoding) {
        case (.wav, .pcm16): (major, minor) = (Int32(SF_FORMAT_WAV), Int32(SF_FORMAT_PCM_16))
        case (.wav, .float32): (major, minor) = (Int32(SF_FORMAT_WAV), Int32(SF_FORMAT_FLOAT))
        case (.flac, .pcm16): (major, minor) = (Int32(SF_FORMAT_FLAC), Int32(SF_FORMAT_PCM_16))
        case (.ogg, .pcm16): (major, minor) = (Int32(SF_FORMAT_OGG), Int32(SF_FORMAT_VORBIS))
        default: throw .unsupportedEncoding(container: container, encoding: encoding)
        }
        var info = SF_INFO()
        info.samplerate = Int32(sampleRate)
        info.channels = Int32(channels)
        info.format = major | minor
        guard sf_format_check(&info) != 0 else {
            throw .cannotCreate(path: url.path, reason: "libsndfile cannot write this format at \(sampleRate) Hz")
        }
        let opened: OpaquePointer
        switch SndfileOpen.open(url.path, mode: Int32(SFM_WRITE), info: &info) {
        case .success(let handle): opened = handle
        case .failure(let failure): throw .cannotCreate(path: url.path, reason: failure.reason)
        }
        handle = opened
        _ = sf_command(opened, Int32(SFC_SET_ADD_PEAK_CHUNK), nil, Int32(SF_FALSE))
        _ = sf_command(opened, Int32(SFC_SET_CLIPPING), nil, Int32(SF_TRUE))
    }

    deinit { if let handle { sf_close(handle) } }

    /// Writes `frames` interleaved frames from `samples`.
    public func write(_ samples: UnsafePointer<Float>, frames: Int) throws(AudioEncodeError) {
        guard let handle else { throw .writeFailed(path: path, reason: "the file is closed") }
        let written = sf_writef_float(handle, samples, sf_count_t(frames))
        guard written == sf_count_t(frames) else {
            throw .writeFailed(path: path, reason: String(cString: sf_strerror(handle)))
        }
    }

    /// Finishes and closes the file.
    public func close() throws(AudioEncodeError) {
        guard let handle else { return }
        self.handle = nil
        let status = sf_close(handle)
        guard status == 0 else {
            throw .writeFailed(path: path, reason: String(cString: sf_error_number(status)))
        }
    }
}
