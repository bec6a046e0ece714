// SPDX-License-Identifier: GPL-3.0-or-later

public import Foundation

/// An audio file read block by block at a chosen sample rate: the file's own, or any other through
/// libsoxr (``Resampler``). Mono and stereo files keep their channels; files with more are mixed down
/// to mono. Memory is constant whatever the file's length, and the stream can seek.
///
/// The resampler is always fed the same fixed-size blocks of the file and asked for the same amount of
/// output, whatever the caller reads at a time, so two streams that start at the same frame deliver
/// bit-identical samples (the preview's ring and the offline renderer read in different sizes).
///
/// A seek to output frame `f` restarts the resampler a little earlier, at a frame where the two rates'
/// grids meet exactly (a multiple of `outputRate / gcd` output frames, so the file frame is a whole
/// number), and drops the output before `f`: the music after a seek is where it belongs to the sample,
/// and the filter has settled by the time `f` comes.
///
/// One stream belongs to one thread at a time.
public final class AudioStream {
    /// The file's path, for messages.
    public let path: String
    /// Frames per second delivered.
    public let sampleRate: Int
    /// The file's own frames per second.
    public let sourceRate: Int
    /// Interleaved channels per delivered frame: the file's for mono and stereo, 1 (a mix-down) for more.
    public let channels: Int
    /// The number of frames the file will deliver at ``sampleRate``, from its header (`nil` when the
    /// header does not say). Compressed streams' headers can be off; the stream's end is where
    /// ``read(into:frames:)`` returns 0.
    public let estimatedFrames: Int?
    /// The next frame ``read(into:frames:)`` delivers.
    public private(set) var position = 0
    /// Whether libsoxr converts the rate (`false`: the file's samples pass unchanged).
    public var isResampling: Bool { resampler != nil }

    /// File frames read (and resampled) at a time.
    public static let blockFrames = 2_048
    /// Output frames a seek starts ahead of its target, at least, so the resampler's filter has settled.
    public static let settleFrames = 4_096

    private let reader: AudioFileReader
    private let sourceChannels: Int
    private let resampler: Resampler?
    private let raw: UnsafeMutablePointer<Float>
    private let input: UnsafeMutablePointer<Float>
    private var inputOffset = 0
    private var inputCount = 0
    private let outputCapacity: Int
    private let output: UnsafeMutablePointer<Float>
    private var outputOffset = 0
    private var outputCount = 0
    private var skip = 0
    private var sourceEnded = false
    private var drained = false

    /// Opens `url` to be read at `sampleRate` Hz (default: the file's rate) with the resampling recipe
    /// `quality`.
    public init(url: URL, sampleRate: Int? = nil, quality: Resampler.Quality = .high) throws(AudioDecodeError) {
        let reader = try AudioFileReader(url: url)
        self.reader = reader
        path = url.path
        sourceRate = reader.sampleRate
        sourceChannels = reader.channels
        channels = reader.channels <= 2 ? reader.channels : 1
        let rate = sampleRate ?? reader.sampleRate
        guard rate > 0, rate <= AudioFileReader.maximumSampleRate else {
            throw .unsupported(path: url.path, reason: "cannot play or render at \(rate) Hz")
        }
        self.sampleRate = rate
        if rate != reader.sampleRate {
            do {
                resampler = try Resampler(
                    inputRate: Double(reader.sampleRate), outputRate: Double(rate), channels: channels, quality: quality
                )
            } catch {
                throw .unsupported(path: url.path, reason: error.localizedDescription)
            }
        } else {
            resampler = nil
        }
        let declared = reader.declaredFrames
        if declared > 0, declared < Int64(Int32.max) * 64 {
            estimatedFrames = Int((Double(declared) * Double(rate) / Double(reader.sampleRate)).rounded())
        } else {
            estimatedFrames = nil
        }
        raw = .allocate(capacity: Self.blockFrames * reader.channels)
        input = .allocate(capacity: Self.blockFrames * channels)
        outputCapacity = Int((Double(Self.blockFrames) * Double(rate) / Double(reader.sampleRate)).rounded(.up)) + 16
        output = .allocate(capacity: outputCapacity * channels)
    }

    deinit {
        raw.deallocate()
        input.deallocate()
        output.deallocate()
    }

    /// Moves so that the next read delivers frame `frame` (at ``sampleRate``). A frame past the end
    /// leaves the stream at its end.
    public func seek(toFrame frame: Int) throws(AudioDecodeError) {
        let target = max(frame, 0)
        inputOffset = 0
        inputCount = 0
        outputOffset = 0
        outputCount = 0
        drained = false
        position = target
        guard let resampler else {
            skip = 0
            sourceEnded = !reader.seek(toFrame: Int64(target))
            return
        }
        let common = gcd(sampleRate, sourceRate)
        let outputPeriod = sampleRate / common
        let sourcePeriod = sourceRate / common
        let periods = max(0, target - Self.settleFrames) / outputPeriod
        let start = periods * outputPeriod
        skip = target - start
        do { try resampler.reset() } catch { throw .readFailed(path: path, reason: error.localizedDescription) }
        sourceEnded = !reader.seek(toFrame: Int64(periods) * Int64(sourcePeriod))
    }

    /// Reads up to `capacity` frames (interleaved, ``channels`` per frame) into `buffer`. Returns the
    /// frames read; 0 at the end.
    public func read(into buffer: UnsafeMutablePointer<Float>, frames capacity: Int) throws(AudioDecodeError) -> Int {
        var done = 0
        while done < capacity {
            if outputCount > 0 {
                let run = min(outputCount, capacity - done)
                (buffer + done * channels).update(from: output + outputOffset * channels, count: run * channels)
                outputOffset += run
                outputCount -= run
                done += run
                continue
            }
            if !(try refill()) { break }
        }
        position += done
        return done
    }

    /// Makes more output; `false` at the end.
    private func refill() throws(AudioDecodeError) -> Bool {
        outputOffset = 0
        outputCount = 0
        guard let resampler else {
            guard try readBlock() else { return false }
            output.update(from: input, count: inputCount * channels)
            outputCount = inputCount
            inputCount = 0
            return true
        }
        while outputCount == 0 {
            if drained { return false }
            let produced: Int
            do {
                if inputCount == 0 && !sourceEnded {
                    if !(try readBlock()) { continue }
                }
                if inputCount > 0 {
                    let step = try resampler.process(
                        input + inputOffset * channels, count: inputCount, into: output, capacity: outputCapacity)
                    inputOffset += step.consumed
                    inputCount -= step.consumed
                    produced = step.produced
                } else {
                    produced = try resampler.flush(into: output, capacity: outputCapacity)
                    if produced == 0 { drained = true }
                }
            } catch {
                throw .readFailed(path: path, reason: error.localizedDescription)
            }
            // Output before a seek's target is the filter settling: drop it.
            let dropped = min(skip, produced)
            skip -= dropped
            outputOffset = dropped
            outputCount = produced - dropped
        }
        return true
    }

    /// Reads the next block of the file into `input` (mixed down when it has more than two channels);
    /// `false` at the end of the file.
    private func readBlock() throws(AudioDecodeError) -> Bool {
        inputOffset = 0
        inputCount = 0
        guard !sourceEnded else { return false }
        let frames = try reader.readInterleaved(into: raw, frames: Self.blockFrames)
        if frames == 0 {
            sourceEnded = true
            return false
        }
        if channels == sourceChannels {
            input.update(from: raw, count: frames * channels)
        } else {
            let scale = 1 / Float(sourceChannels)
            for frame in 0..<frames {
                var sum: Float = 0
                for channel in 0..<sourceChannels { sum += raw[frame * sourceChannels + channel] }
                input[frame] = sum * scale
            }
        }
        inputCount = frames
        return true
    }

    private func gcd(_ a: Int, _ b: Int) -> Int {
        var (x, y) = (a, b)
        while y != 0 { (x, y) = (y, x % y) }
        return max(x, 1)
    }
}
