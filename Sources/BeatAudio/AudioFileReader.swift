// SPDX-License-Identifier: GPL-3.0-or-later

import BeatMapKit
import CSndfile
public import Foundation

/// Why an audio file could not be decoded.
public enum AudioDecodeError: Error, LocalizedError, Sendable, Equatable {
    /// libsndfile could not open the file (missing, unreadable, or a format it does not know).
    case cannotOpen(path: String, reason: String)
    /// The header describes audio this toolkit refuses (no channels, an absurd sample rate).
    case unsupported(path: String, reason: String)
    /// Decoding failed part-way (a truncated or corrupt stream).
    case readFailed(path: String, reason: String)
    /// The file decodes to no audio at all.
    case empty(path: String)

    public var errorDescription: String? {
        switch self {
        case .cannotOpen(let path, let reason): return "\(path): cannot open audio: \(reason)"
        case .unsupported(let path, let reason): return "\(path): unsupported audio: \(reason)"
        case .readFailed(let path, let reason): return "\(path): audio decoding failed: \(reason)"
        case .empty(let path): return "\(path): the file holds no audio frames"
        }
    }
}

/// A streaming reader of an audio file through libsndfile (WAV, AIFF, FLAC, Ogg Vorbis/Opus, MP3, …).
/// It reads block by block and never holds the whole file; one reader belongs to one thread at a time.
public final class AudioFileReader {
    /// Highest sample rate accepted (768 kHz); anything above is treated as a corrupt header.
    public static let maximumSampleRate = 768_000
    /// Most channels accepted.
    public static let maximumChannels = 64

    /// The file's path, for messages.
    public let path: String
    /// Frames per second.
    public let sampleRate: Int
    /// Interleaved channels per frame.
    public let channels: Int
    /// Frames the header announces (unreliable for some compressed streams; see ``framesRead``).
    public let declaredFrames: Int64
    /// The libsndfile major format (e.g. `SF_FORMAT_WAV`).
    public let majorFormat: Int32
    /// libsndfile's major format of MP3 files (`SF_FORMAT_MPEG`), whose header length is an estimate.
    public static let mpegFormat = Int32(SF_FORMAT_MPEG)
    /// Frames delivered so far (after a seek: the frame it went to, plus those delivered since).
    public private(set) var framesRead: Int64 = 0
    /// Largest sample magnitude delivered (+24 dB over full scale); float files and lossy decoders can
    /// produce anything.
    public static let maximumSampleMagnitude: Float = 16
    /// Samples that decoded as NaN or infinity and were delivered as 0.
    public private(set) var nonFiniteSamples: Int64 = 0
    /// Samples beyond ±``maximumSampleMagnitude`` in the file, delivered clipped to it.
    public private(set) var clippedSamples: Int64 = 0

    /// Whether ``readMono(into:frames:)`` mixes a stereo file as the mean of its first channel and its
    /// second inverted (their half difference) rather than the mean of the two. Set it before reading,
    /// for a file whose channels cancel in their mean (``channelsCancel``).
    public var invertsSecondChannel = false
    /// Of a stereo file's frames mixed so far (every fourth one: enough for a ratio of energies), the
    /// energy of the channels' sum, and that of their difference.
    public private(set) var stereoEnergies: (sum: Double, difference: Double) = (0, 0)
    /// The fraction of the channels' difference's energy under which their sum's tells that one channel
    /// is the other inverted (a channel wired or encoded in opposite polarity, a mix made "wide" by
    /// inverting one side): a hundredth, 20 dB. Music mixed as music keeps more in its sum than in its
    /// difference; of the 513 stereo WAVs of the development corpus (its renders, Freedoom's songs,
    /// the tracker modules and the 240 composed songs), the least keeps 0.16 of it (a Freedoom song
    /// whose pads are rendered wide), and a tracker module whose every channel plays in surround (one
    /// side inverted) 2 × 10⁻⁷.
    public static let cancellingFraction = 0.01
    /// Whether the stereo frames read so far cancel in the channels' mean: its energy is under
    /// ``cancellingFraction`` of the difference's. Mixed as the mean, such a file is all but silent.
    public var channelsCancel: Bool {
        channels == 2 && stereoEnergies.difference > 0
            && stereoEnergies.sum < Self.cancellingFraction * stereoEnergies.difference
    }

    private let handle: OpaquePointer
    private var interleaved: [Float] = []

    /// Opens `url` for reading.
    public init(url: URL) throws(AudioDecodeError) {
        path = url.path
        // A FIFO or device would block or never end; only regular files (after symbolic links) are read.
        var status = stat()
        if stat(url.path, &status) == 0, status.st_mode & S_IFMT != S_IFREG {
            throw .cannotOpen(path: url.path, reason: "not a regular file")
        }
        var info = SF_INFO()
        let opened: OpaquePointer
        switch SndfileOpen.open(url.path, mode: Int32(SFM_READ), info: &info) {
        case .success(let handle): opened = handle
        case .failure(let failure):
            var reason = failure.reason
            if !FileManager.default.fileExists(atPath: url.path) {
                throw .cannotOpen(path: url.path, reason: "no such file")
            }
            // libsndfile says this when its MP3 decoder rejects the stream; the file exists and is
            // regular (checked above), so say what is really wrong.
            if reason.hasPrefix("File does not exist or is not a regular file") {
                reason = "not a readable audio stream (empty, damaged, or not audio)"
            }
            throw .cannotOpen(path: url.path, reason: reason)
        }
        guard info.channels > 0, Int(info.channels) <= Self.maximumChannels else {
            sf_close(opened)
            throw .unsupported(path: url.path, reason: "\(info.channels) channels")
        }
        guard info.samplerate > 0, Int(info.samplerate) <= Self.maximumSampleRate else {
            sf_close(opened)
            throw .unsupported(path: url.path, reason: "sample rate \(info.samplerate) Hz")
        }
        handle = opened
        sampleRate = Int(info.samplerate)
        channels = Int(info.channels)
        declaredFrames = Int64(info.frames)
        majorFormat = info.format & Int32(SF_FORMAT_TYPEMASK)
        // Integer files are read as float scaled to ±1.0 (libsndfile's default); float files are passed
        // through as stored. (SFC_SET_SCALE_FLOAT_INT_READ is not set: it only concerns reading float files
        // through the integer functions, and setting it makes libsndfile scan the whole file for its peak —
        // 150 ms for a 5-minute WAV before the first sample.)
    }

    deinit { sf_close(handle) }

    /// Reads up to `capacity` interleaved frames into `buffer` (which must hold `capacity × channels`
    /// samples). Returns the frames read; 0 at the end of the file. Every sample delivered is finite and
    /// within ±``maximumSampleMagnitude``: NaN and infinities (a hostile float file's) become 0 (counted
    /// in ``nonFiniteSamples``) and absurd values are clipped (``clippedSamples``), so nothing
    /// downstream (aubio works in single precision) sees them.
    public func readInterleaved(into buffer: UnsafeMutablePointer<Float>, frames capacity: Int) throws(AudioDecodeError)
        -> Int
    {
        let count = sf_readf_float(handle, buffer, sf_count_t(capacity))
        if count < 0 || (count == 0 && sf_error(handle) != 0) {
            throw .readFailed(path: path, reason: String(cString: sf_strerror(handle)))
        }
        framesRead += Int64(count)
        sanitize(buffer, count: Int(count) * channels)
        return Int(count)
    }

    private func sanitize(_ samples: UnsafeMutablePointer<Float>, count: Int) {
        let limit = Self.maximumSampleMagnitude
        for index in 0..<count {
            let sample = samples[index]
            if abs(sample) <= limit { continue }  // false for NaN
            if !sample.isFinite {
                samples[index] = 0
                nonFiniteSamples += 1
            } else {
                samples[index] = sample < 0 ? -limit : limit
                clippedSamples += 1
            }
        }
    }

    /// Moves to frame `frame` of the file (0 is the first), so that the next read starts there.
    /// Returns `false` when libsndfile cannot go there (past the end, or a stream it cannot seek in);
    /// the position is then unspecified.
    public func seek(toFrame frame: Int64) -> Bool {
        let result = sf_seek(handle, sf_count_t(max(frame, 0)), Int32(SEEK_SET))
        guard result >= 0 else { return false }
        framesRead = Int64(result)
        return true
    }

    /// Reads up to `capacity` frames mixed down to mono (the mean of the channels, or for stereo with
    /// ``invertsSecondChannel`` the half difference) into `mono`. Returns the frames read; 0 at the end
    /// of the file.
    public func readMono(into mono: UnsafeMutablePointer<Float>, frames capacity: Int) throws(AudioDecodeError) -> Int {
        if channels == 1 { return try readInterleaved(into: mono, frames: capacity) }
        if interleaved.count < capacity * channels { interleaved = [Float](repeating: 0, count: capacity * channels) }
        let channelCount = channels
        let frames = try interleaved.withUnsafeMutableBufferPointer { buffer throws(AudioDecodeError) -> Int in
            guard let base = buffer.baseAddress else { return 0 }
            return try readInterleaved(into: base, frames: capacity)
        }
        let scale = 1 / Float(channelCount)
        interleaved.withUnsafeBufferPointer { buffer in
            if channelCount == 2 {
                // Stereo, most files: a mix loop the compiler vectorises (the general one below does not).
                // The second channel's sign is exact (±1), so the mean is the same bits either way. The
                // channels' energies are summed in a loop of their own, every fourth frame: a float sum
                // kept in order, which the compiler does not vectorise, and so kept out of the mix loop.
                let sign: Float = invertsSecondChannel ? -1 : 1
                for frame in 0..<frames { mono[frame] = (buffer[2 * frame] + sign * buffer[2 * frame + 1]) * scale }
                var sum: Float = 0
                var difference: Float = 0
                for frame in stride(from: 0, to: frames, by: 4) {
                    let (left, right) = (buffer[2 * frame], buffer[2 * frame + 1])
                    sum += (left + right) * (left + right)
                    difference += (left - right) * (left - right)
                }
                stereoEnergies.sum += Double(sum)
                stereoEnergies.difference += Double(difference)
                return
            }
            for frame in 0..<frames {
                var sum: Float = 0
                let start = frame * channelCount
                for channel in 0..<channelCount { sum += buffer[start + channel] }
                mono[frame] = sum * scale
            }
        }
        return frames
    }

    /// Reads to the end and returns the total number of frames the file really holds.
    public func countRemainingFrames(blockSize: Int = 16_384) throws(AudioDecodeError) -> Int64 {
        var block = [Float](repeating: 0, count: blockSize * channels)
        while true {
            let frames = try block.withUnsafeMutableBufferPointer { buffer throws(AudioDecodeError) -> Int in
                guard let base = buffer.baseAddress else { return 0 }
                return try readInterleaved(into: base, frames: blockSize)
            }
            if frames == 0 { return framesRead }
        }
    }

    /// After reading to the end: why the file looks truncated, or `nil`. A FLAC stream that ends before
    /// the length its header announces, a WAV/AIFF/W64/RF64/CAF whose data chunk is shorter than its
    /// header says (libsndfile then reads what is there and notes "should be" in its log), or an Ogg
    /// file (Vorbis, Opus) whose last page is cut short or is not its stream's last (``OggTail``).
    public func truncation() -> String? {
        if majorFormat == Int32(SF_FORMAT_OGG) { return OggTail.truncation(ofFileAt: path) }
        if majorFormat == Int32(SF_FORMAT_FLAC), declaredFrames > 0, declaredFrames < Int64.max / 2,
            framesRead < declaredFrames
        {
            return
                "the stream ends after \(framesRead) of the \(declaredFrames) frames its header announces (truncated?)"
        }
        let chunked = [SF_FORMAT_WAV, SF_FORMAT_AIFF, SF_FORMAT_W64, SF_FORMAT_RF64, SF_FORMAT_CAF, SF_FORMAT_WAVEX]
        guard chunked.contains(where: { Int32($0) == majorFormat }) else { return nil }
        var log = [CChar](repeating: 0, count: 8192)
        let length = log.withUnsafeMutableBufferPointer { buffer in
            sf_command(handle, Int32(SFC_GET_LOG_INFO), buffer.baseAddress, Int32(buffer.count))
        }
        guard length > 0 else { return nil }
        let text = String(decoding: log.prefix(Int(length)).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        for line in text.split(separator: "\n") {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if (trimmed.hasPrefix("data") || trimmed.hasPrefix("SSND")) && trimmed.contains("(should be") {
                return "the audio data is shorter than its header says (\(trimmed)); the file is truncated"
            }
        }
        return nil
    }

    /// The version string of the linked libsndfile (e.g. `libsndfile-1.2.0`).
    public static var libraryVersion: String { String(cString: sf_version_string()) }
}
