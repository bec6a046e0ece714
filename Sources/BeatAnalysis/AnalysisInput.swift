// SPDX-License-Identifier: GPL-3.0-or-later

import Foundation

/// Why the analysis input failed: decoding (libsndfile) or resampling (libsoxr).
enum AnalysisInputError: Error, Sendable, Equatable {
    /// libsndfile failed.
    case decode(AudioDecodeError)
    /// libsoxr failed.
    case resample(ResamplerError)
}

/// The mono signal at the analysis rate, read from a file block by block: libsndfile decodes and mixes
/// down to mono at the file's rate, then libsoxr resamples to the analysis rate (a file already at that
/// rate is passed through). It also keeps the peak of the mono signal at the file's rate. Memory is a
/// block of each, whatever the audio's length. One input belongs to one thread at a time.
final class AnalysisInput {
    /// The file.
    let reader: AudioFileReader
    /// The resampler, or `nil` when the file is at the analysis rate.
    let resampler: Resampler?
    /// Peak absolute value of the mono signal at the file's rate, over what has been read.
    private(set) var peak: Float = 0

    private let fileBlock: UnsafeMutablePointer<Float>
    private let fileBlockFrames: Int
    private var pendingOffset = 0
    private var pendingCount = 0
    private var inputEnded = false
    private var ended = false

    /// Reads `reader` resampled to `outputRate` with `quality`; `outputBlock` is the number of output
    /// samples a call usually asks for (the file is decoded in blocks of about as long).
    init(reader: AudioFileReader, outputRate: Int, quality: Resampler.Quality, outputBlock: Int)
        throws(ResamplerError)
    {
        self.reader = reader
        if reader.sampleRate == outputRate {
            resampler = nil
            fileBlockFrames = 0
        } else {
            resampler = try Resampler(
                inputRate: Double(reader.sampleRate), outputRate: Double(outputRate), quality: quality)
            let frames = Double(outputBlock) * Double(reader.sampleRate) / Double(outputRate)
            fileBlockFrames = min(1 << 14, max(1 << 10, Int(frames.rounded(.up))))
        }
        fileBlock = .allocate(capacity: max(1, fileBlockFrames))
    }

    deinit { fileBlock.deallocate() }

    /// Fills `output` with up to `capacity` samples at the analysis rate and returns how many; fewer
    /// only at the end of the audio, 0 once it is all delivered.
    func read(into output: UnsafeMutablePointer<Float>, capacity: Int) throws(AnalysisInputError) -> Int {
        guard capacity > 0, !ended else { return 0 }
        guard let resampler else {
            var produced = 0
            while produced < capacity {
                let read: Int
                do { read = try reader.readMono(into: output + produced, frames: capacity - produced) } catch {
                    throw .decode(error)
                }
                if read == 0 {
                    ended = true
                    break
                }
                trackPeak(output + produced, read)
                produced += read
            }
            return produced
        }
        var produced = 0
        while produced < capacity {
            if pendingCount == 0 && !inputEnded {
                let read: Int
                do { read = try reader.readMono(into: fileBlock, frames: fileBlockFrames) } catch {
                    throw .decode(error)
                }
                trackPeak(fileBlock, read)
                pendingOffset = 0
                pendingCount = read
                inputEnded = read == 0
            }
            if pendingCount > 0 {
                let step: (consumed: Int, produced: Int)
                do {
                    step = try resampler.process(
                        fileBlock + pendingOffset, count: pendingCount, into: output + produced,
                        capacity: capacity - produced)
                } catch { throw .resample(error) }
                if step.consumed == 0 && step.produced == 0 {
                    throw .resample(.processFailed(reason: "libsoxr made no progress"))
                }
                pendingOffset += step.consumed
                pendingCount -= step.consumed
                produced += step.produced
            } else {
                let made: Int
                do { made = try resampler.flush(into: output + produced, capacity: capacity - produced) } catch {
                    throw .resample(error)
                }
                if made == 0 {
                    ended = true
                    break
                }
                produced += made
            }
        }
        return produced
    }

    private func trackPeak(_ samples: UnsafePointer<Float>, _ count: Int) {
        var peak = self.peak
        for index in 0..<count { peak = max(peak, abs(samples[index])) }
        self.peak = peak
    }
}
