// SPDX-License-Identifier: GPL-3.0-or-later

public import BeatAudio
public import BeatMapKit
public import Foundation

/// Why a file could not be analysed.
public enum AnalysisError: Error, LocalizedError, Sendable, Equatable {
    /// The file could not be decoded.
    case decode(AudioDecodeError)
    /// aubio refused its settings.
    case aubio(path: String, AubioError)
    /// libsoxr could not resample the audio to the analysis rate.
    case resample(path: String, ResamplerError)
    /// The file holds no audio frames.
    case empty(path: String)
    /// The file is too short to find a beat in.
    case tooShort(path: String, duration: Double)
    /// The audio is silent (its peak is below the silence level).
    case silent(path: String, peakDecibels: Double)
    /// No regular beat could be found.
    case noBeat(path: String, GridFitError)
    /// The tempo to force (``GridFitOptions/forcedBPM``) is outside ``TempoLimits``.
    case forcedTempoOutOfRange(bpm: Double)
    /// The analysis made a map that its own validator rejects: a defect of the analyzer, reported
    /// instead of writing the map.
    case internalError(path: String, findings: [String])

    public var errorDescription: String? {
        switch self {
        case .decode(let error): return error.errorDescription
        case .aubio(let path, let error): return "\(path): \(error.errorDescription ?? "aubio failed")"
        case .resample(let path, let error): return "\(path): \(error.errorDescription ?? "resampling failed")"
        case .empty(let path): return "\(path): the file holds no audio frames"
        case .tooShort(let path, let duration):
            return
                "\(path): the audio lasts \(String(format: "%.3f", duration)) s, too short to find a beat (at least 2 s needed)"
        case .silent(let path, let peak):
            return "\(path): the audio is silent (peak \(String(format: "%.1f", peak)) dBFS); there is no beat to map"
        case .noBeat(let path, let error): return "\(path): no beat found: \(error.reason)"
        case .forcedTempoOutOfRange(let bpm):
            return
                "the tempo to force (\(bpm) BPM) must be between \(Int(TempoLimits.minimumBPM)) and \(Int(TempoLimits.maximumBPM)) BPM"
        case .internalError(let path, let findings):
            return
                "\(path): internal error: the analysis made a map that does not validate (\(findings.joined(separator: "; "))); no map was written — please report this with the audio file"
        }
    }

    /// What the user can do about it, if anything: a song without a regular beat can still be mapped at
    /// a tempo the user gives.
    public var remedy: Remedy? {
        switch self {
        case .noBeat(_, .noRegularBeat), .noBeat(_, .tooFewBeats), .noBeat(_, .steadyTone): return .forceTempo
        default: return nil
        }
    }
}

/// An analysis frame: a sample rate, a hop of about 11.6 ms (512 samples at 44.1 kHz) and a window of
/// two hops. The analyzer runs every file at one frame, ``analysis`` (22 050 Hz, hop 256, window 512),
/// whatever the file's rate: the audio is resampled to it, so the same song at 22.05, 44.1 or 48 kHz
/// gives the same detection function. The hop's duration keeps aubio's beat tracker, whose period
/// limits are counted in hops (the "206 BPM" halving limit is 206 BPM at 44.1 kHz / hop 512, and so at
/// 22.05 kHz / hop 256), at the tempo limits aubio was tuned for.
public struct AnalysisFrame: Sendable, Equatable {
    /// Sample rate in Hz.
    public var sampleRate: Int
    /// Samples per hop.
    public var hopSize: Int
    /// Samples per window.
    public var bufferSize: Int

    /// The reference hop: 512 samples at 44 100 Hz.
    public static let referenceHopDuration = 512.0 / 44_100.0

    /// The rate every file is analysed at, in Hz: half of 44.1 kHz, so a 44.1 kHz file (the commonest)
    /// is resampled by a ratio of 2, and the FFTs are half as long as at 44.1 kHz.
    public static let analysisSampleRate = 22_050

    /// The frame the analyzer uses for every file: 22 050 Hz, hop 256, window 512.
    public static let analysis = AnalysisFrame(sampleRate: analysisSampleRate)

    /// The frame for `sampleRate`: a hop of the 7-smooth size nearest 11.6 ms (so FFTW stays fast) and a
    /// window of two hops.
    public init(sampleRate: Int) {
        self.sampleRate = sampleRate
        let target = Double(sampleRate) * Self.referenceHopDuration
        hopSize = Self.nearestSmooth(to: target)
        bufferSize = 2 * hopSize
    }

    /// Seconds per hop.
    public var hopDuration: Double { Double(hopSize) / Double(sampleRate) }

    /// The integer nearest `target` (≥ 16) whose prime factors are all ≤ 7.
    static func nearestSmooth(to target: Double) -> Int {
        let centre = max(16, Int(target.rounded()))
        func isSmooth(_ value: Int) -> Bool {
            var n = value
            for p in [2, 3, 5, 7] { while n % p == 0 { n /= p } }
            return n == 1
        }
        for distance in 0..<centre {
            if isSmooth(centre - distance) { return centre - distance }
            if isSmooth(centre + distance) { return centre + distance }
        }
        return centre
    }
}

/// What one streaming pass over an audio file produced.
public struct AudioAnalysis: Sendable {
    /// The analysed file's path.
    public var path: String
    /// The file's sample rate in Hz (the analysis runs at ``AnalysisFrame/analysis``'s).
    public var sampleRate: Int
    /// Channels in the file (they are mixed down to mono).
    public var channels: Int
    /// Whether the file's two channels cancelled in their mean (one is the other inverted) and were
    /// mixed as their difference instead (``AudioFileReader/channelsCancel``).
    public var secondChannelInverted = false
    /// Frames decoded (at the file's rate).
    public var frames: Int64
    /// The analysis frame (``AnalysisFrame/analysis``).
    public var frame: AnalysisFrame
    /// The resampler that brought the audio to the analysis rate (library, version and quality recipe,
    /// e.g. `libsoxr-0.1.3 HQ`), or `nil` when the file is at that rate already.
    public var resampler: String?
    /// The onset detection function per hop, delay-compensated.
    public var envelope: OnsetEnvelope
    /// aubio's beat-tracker beats in seconds, delay-compensated, when the tracker ran.
    public var trackerBeats: [Double]?
    /// aubio's final tempo estimate in BPM, when the tracker ran.
    public var trackerBPM: Double?
    /// Peak absolute sample value (after mixdown, at the file's rate).
    public var peak: Float
    /// The onset detection method.
    public var onsetMethod: String
    /// Mean square of the mono signal at the analysis rate in each hop (hop `i` spans `i × hopDuration`
    /// onwards): where the audio is sounding.
    public var levels: [Float]
    /// Mean square of the mono signal low-passed at 150 Hz in each hop: the kick drum and the bass, which
    /// tell the beat's metric level and phase (see ``LowBand``).
    public var lowLevels: [Float] = []
    /// The pitch-class profile of the detection function's spectrum, 12 values per frame of
    /// ``ChromaProfile/hopsPerFrame`` hops (see ``ChromaProfile``): where the harmony changes, for the
    /// bars. Empty unless the onset method is `specflux`.
    public var chroma = CompactFloats()
    /// The level of eight log-spaced bands (30 Hz – 11 kHz) of the detection function's spectrum,
    /// 8 bytes per frame of two hops (each a level in steps of 2.4⁄255), over the first ten minutes
    /// (see `BandLevels`): what a beat sounds like, band by band. Empty unless the onset method is
    /// `specflux`.
    public var bandLevels: [UInt8] = []
    /// The learned drum detector's frames, one per hop from 0 s over the first five minutes and a few
    /// seconds (see `DrumFrames`): where the kick and the snare are, from which the beats may move
    /// onto the drums.
    public var drums = DrumFrames()
    /// Mean square of the mono signal's second difference (a high-pass: the attacks, not the bass) at the
    /// analysis rate in blocks of ``blockSize`` samples (0.73 ms; block `i` spans `i × blockDuration`
    /// onwards), over the first ``blockLevelsSpan`` seconds only: where the beats' transients start (see
    /// `TransientAlignment`).
    public var blockLevels = CompactFloats()
    /// Samples per block of ``blockLevels`` at the analysis rate.
    public static let blockSize = TransientAlignment.blockSize
    /// Seconds of audio ``blockLevels`` covers at most: five minutes hold hundreds of beats, enough to
    /// place one shift for the whole map, and keep the blocks' memory to 0.85 MB (bfloat16) whatever
    /// the length.
    public static let blockLevelsSpan = 300.0
    /// Seconds per block of ``blockLevels``.
    public var blockDuration: Double { Double(Self.blockSize) / Double(frame.sampleRate) }
    /// Seconds subtracted from the onset envelope's raw times (the measured detection delay).
    public var envelopeDelay: Double
    /// Seconds subtracted from aubio's raw beat times.
    public var trackerDelay: Double

    /// Duration in seconds (frames decoded / sample rate).
    public var duration: Double { Double(frames) / Double(sampleRate) }
}

/// Settings of the streaming pass.
public struct AudioAnalysisSettings: Sendable, Equatable {
    /// aubio onset method whose detection function is kept (default `specflux`).
    public var onsetMethod = "specflux"
    /// Whether aubio's beat tracker runs too (needed for `--grid free`).
    public var runTracker = false
    /// Peak level in dBFS below which the audio counts as silent.
    public var silenceDecibels = -60.0
    /// Shortest audio analysed, in seconds.
    public var minimumDuration = 2.0
    /// Whether the file is decoded and mixed down a few blocks ahead on a thread of its own
    /// (``DecodingPipeline``) rather than on the analysing thread (which resamples and runs aubio either
    /// way). The blocks, and so the results, are the same either way.
    public var decodeAhead = true
    /// libsoxr's quality recipe for resampling to the analysis rate (see ``AudioAnalyzer`` for the
    /// choice).
    public var resamplerQuality = Resampler.Quality.high

    /// Default settings.
    public init() {}
}

/// Measured detection delays: how late the analysis reports an onset, in hops. They were measured on
/// synthetic click tracks (see `DelayCompensationTests`) and are subtracted explicitly. Re-measured with
/// every file analysed at 22.05 kHz through libsoxr (which keeps times aligned): unchanged.
public enum DetectionDelay {
    /// Delay of the `specflux` detection function's peak after the onset, in hops: negative, because
    /// with a window of two hops the descriptor of hop `n` peaks for onsets at `n + 0.174` hops.
    public static let envelopeHops = -0.174
    /// Delay of aubio's beat-tracker beats (as `aubio_tempo_get_last` reports them), in hops: negative,
    /// because on click tracks aubio 0.4.9 reports its beats about 1.1 hop *before* the clicks (the
    /// per-track median wanders from 0.5 to 2 hops early as aubio's phase drifts).
    public static let trackerHops = -1.1
}

/// Streams an audio file through libsndfile, libsoxr and aubio, block by block, keeping only the onset
/// detection function (a few bytes per hop) and the tracker's beats: memory does not grow with the
/// audio beyond that. The file is mixed down to mono at its own rate, then resampled to
/// ``AnalysisFrame/analysisSampleRate`` (22 050 Hz) with libsoxr's `HQ` recipe (linear phase, so onsets
/// keep their times; libsoxr trims its own filter delay) unless it is at that rate already, and aubio
/// runs at hop 256, window 512. One analyzer per task; aubio objects and the resampler are created per
/// file.
public struct AudioAnalyzer: Sendable {
    /// The settings.
    public var settings: AudioAnalysisSettings

    /// An analyzer with `settings`.
    public init(settings: AudioAnalysisSettings = AudioAnalysisSettings()) {
        self.settings = settings
    }

    /// Lowest sample rate analysed, in Hz. Below it a file is refused as unsupported: resampling it to
    /// 22 050 Hz would make every frame cost many (a 1 Hz header turns each frame into a second of
    /// analysis), and no audio codec stores music that way.
    public static let minimumSampleRate = 4_000

    /// Refuses a file below ``minimumSampleRate``.
    static func checkSampleRate(of reader: AudioFileReader) throws(AudioDecodeError) {
        guard reader.sampleRate >= minimumSampleRate else {
            throw .unsupported(
                path: reader.path,
                reason: "sample rate \(reader.sampleRate) Hz (the analysis needs at least \(minimumSampleRate) Hz)")
        }
    }

    /// Analysis hops per block: a block of the file holds about as many frames as 32 hops at the
    /// analysis rate (0.37 s).
    static let hopsPerBlock = 32

    /// Frames of a file at `sampleRate` decoded per block: about ``hopsPerBlock`` hops at the analysis
    /// rate (16 384 at 44.1 kHz, as before the analysis had one rate), within 1 024…16 384.
    static func blockFrames(sampleRate: Int) -> Int {
        let frame = AnalysisFrame.analysis
        let frames = Double(frame.hopSize * hopsPerBlock) * Double(sampleRate) / Double(frame.sampleRate)
        return min(1 << 14, max(1 << 10, Int(frames.rounded(.up))))
    }

    /// Analyses the file at `url`. `progress` is called now and then with the fraction decoded (0…1).
    ///
    /// A stereo file whose channels cancel in their mean (one is the other inverted: a channel in
    /// opposite polarity, a tracker module played in surround) would be all but silent mixed down as
    /// that mean; it is analysed again, mixed as the channels' difference, and says so
    /// (``AudioAnalysis/secondChannelInverted``). Only a file read to its end can tell, so such a file
    /// is decoded twice.
    public func analyze(_ url: URL, progress: (@Sendable (Double) -> Void)? = nil) throws(AnalysisError)
        -> AudioAnalysis
    {
        if let analysis = try pass(url, progress: progress, invertingSecondChannel: false) { return analysis }
        guard let analysis = try pass(url, progress: progress, invertingSecondChannel: true) else {
            // Not reached: only a pass that mixes the mean stops for cancelling channels.
            throw .empty(path: url.path)
        }
        return analysis
    }

    /// One streaming pass over `url`, mixing a stereo file's second channel inverted when
    /// `invertingSecondChannel`; `nil` when, mixing the mean, the channels cancelled.
    private func pass(
        _ url: URL, progress: (@Sendable (Double) -> Void)?, invertingSecondChannel: Bool
    ) throws(AnalysisError) -> AudioAnalysis? {
        let reader: AudioFileReader
        do { reader = try AudioFileReader(url: url) } catch { throw .decode(error) }
        reader.invertsSecondChannel = invertingSecondChannel
        let path = url.path
        do { try Self.checkSampleRate(of: reader) } catch { throw .decode(error) }
        let frame = AnalysisFrame.analysis
        let hop = frame.hopSize
        // The file is mixed down to mono at its own rate, then resampled to the analysis rate (unless
        // it is at that rate already: libsoxr would pass the samples through unchanged).
        let resampler: Resampler?
        do {
            resampler = try Resampler.toAnalysisRate(from: reader.sampleRate, quality: settings.resamplerQuality)
        } catch { throw .resample(path: path, error) }
        // specflux (the default) runs through the phase-free chain of aubio's parts; other methods
        // through aubio_onset_t.
        var specflux: AubioSpecfluxDetector?
        var onset: AubioOnsetDetector?
        var tracker: AubioTempoTracker?
        do {
            if settings.onsetMethod == "specflux" {
                specflux = try AubioSpecfluxDetector(
                    bufferSize: frame.bufferSize, hopSize: hop, sampleRate: frame.sampleRate)
            } else {
                onset = try AubioOnsetDetector(
                    method: settings.onsetMethod, bufferSize: frame.bufferSize, hopSize: hop,
                    sampleRate: frame.sampleRate)
            }
            if settings.runTracker {
                tracker = try AubioTempoTracker(
                    bufferSize: frame.bufferSize, hopSize: hop, sampleRate: frame.sampleRate)
            }
        } catch { throw .aubio(path: path, error) }

        let analysisFrames = Double(reader.declaredFrames) * Double(frame.sampleRate) / Double(reader.sampleRate)
        let estimatedHops =
            reader.declaredFrames > 0 ? Int(min(analysisFrames / Double(hop) + 2, Double(1 << 22))) : 4096
        var values: [Float] = []
        values.reserveCapacity(estimatedHops)
        var levels: [Float] = []
        levels.reserveCapacity(estimatedHops)
        var lowLevels: [Float] = []
        lowLevels.reserveCapacity(estimatedHops)
        var lowPass = LowBand(sampleRate: Double(frame.sampleRate))
        var chroma = ChromaProfile(frame: frame, expectedHops: estimatedHops)
        var bands = BandLevels(frame: frame, expectedHops: estimatedHops)
        let drumBands = DrumBands(hop: hop, sampleRate: frame.sampleRate, expectedHops: estimatedHops)
        let blockSize = AudioAnalysis.blockSize
        let blockCap = Int(AudioAnalysis.blockLevelsSpan * Double(frame.sampleRate)) / blockSize
        var blockLevels = CompactFloats()
        var previous: (Float, Float) = (0, 0)
        blockLevels.reserveCapacity(min(blockCap, estimatedHops * hop / blockSize))
        var rawBeats: [Double] = []
        var peak: Float = 0
        let blockFrames = Self.blockFrames(sampleRate: reader.sampleRate)
        let resampledCapacity = hop * Self.hopsPerBlock
        let resampled = UnsafeMutablePointer<Float>.allocate(capacity: resampledCapacity)
        defer { resampled.deallocate() }
        var resampleFailure: ResamplerError?
        let framer = HopFramer(hop: hop)
        var blocksRead = 0
        var framesDecoded: Int64 = 0
        let declared = Double(max(reader.declaredFrames, 1))

        func consume(_ hopSamples: UnsafePointer<Float>) {
            var energy: Float = 0
            for index in 0..<hop { energy += hopSamples[index] * hopSamples[index] }
            levels.append(energy / Float(hop))
            if blockLevels.count < blockCap {
                // The captured state is read into locals for the per-sample loops and written back
                // after: each access to a variable these closures capture is checked for exclusivity
                // at run time, which per sample cost about a tenth of the analysis's CPU.
                var last = previous
                for start in stride(from: 0, to: hop, by: blockSize) {
                    var sum: Float = 0
                    for index in start..<(start + blockSize) {
                        let sample = hopSamples[index]
                        let curvature = sample - 2 * last.0 + last.1
                        last = (sample, last.0)
                        sum += curvature * curvature
                    }
                    blockLevels.append(sum / Float(blockSize))
                }
                previous = last
            }
            lowLevels.append(lowPass.meanSquare(hopSamples, count: hop))
            drumBands?.add(hopSamples)
            if let specflux {
                values.append(max(0, specflux.process(hopSamples)))
                specflux.withSpectrum { spectrum in
                    chroma.add(spectrum)
                    bands.add(spectrum)
                }
            } else if let onset {
                onset.process(hopSamples)
                values.append(max(0, onset.descriptor))
            }
            if let tracker, let beat = tracker.process(hopSamples) { rawBeats.append(beat) }
        }

        func feed(_ samples: UnsafePointer<Float>, _ count: Int) { framer.feed(samples, count: count, consume) }

        func analyse(_ block: UnsafeMutablePointer<Float>, _ read: Int) {
            var blockPeak = peak
            for index in 0..<read { blockPeak = max(blockPeak, abs(block[index])) }
            peak = blockPeak
            // Resampling runs here, on the analysing thread, not on the decoding thread: with Ogg
            // Vorbis, decoding is the longer of the two threads' work, and aubio at 22 050 Hz leaves
            // this one room (docs/analyze.md, "Resampling").
            if let resampler {
                if resampleFailure == nil {
                    do throws(ResamplerError) {
                        try resampler.process(block, count: read, buffer: resampled, capacity: resampledCapacity, feed)
                    } catch { resampleFailure = error }
                }
            } else {
                feed(block, read)
            }
            framesDecoded += Int64(read)
            blocksRead += 1
            if let progress, blocksRead % 64 == 0 {
                progress(min(1, Double(framesDecoded) / declared))
            }
        }

        if settings.decodeAhead {
            // Decoding and mixdown run a few blocks ahead on a second thread.
            let pipeline = DecodingPipeline(reader: reader, blockFrames: blockFrames)
            do { try pipeline.forEachBlock(analyse) } catch { throw .decode(error) }
        } else {
            let block = UnsafeMutablePointer<Float>.allocate(capacity: blockFrames)
            defer { block.deallocate() }
            while true {
                let read: Int
                do { read = try reader.readMono(into: block, frames: blockFrames) } catch { throw .decode(error) }
                if read == 0 { break }
                analyse(block, read)
            }
        }
        if let resampler, resampleFailure == nil {
            do throws(ResamplerError) {
                try resampler.flush(buffer: resampled, capacity: resampledCapacity, feed)
            } catch { resampleFailure = error }
        }
        if let resampleFailure { throw .resample(path: path, resampleFailure) }
        framer.finish(consume)
        drumBands?.finish()
        progress?(1)

        let frames = framesDecoded
        if let reason = reader.truncation() { throw .decode(.readFailed(path: path, reason: reason)) }
        guard frames > 0 else { throw .empty(path: path) }
        if !invertingSecondChannel, reader.channelsCancel { return nil }
        let duration = Double(frames) / Double(reader.sampleRate)
        guard duration >= settings.minimumDuration else { throw .tooShort(path: path, duration: duration) }
        let peakDecibels = peak > 0 ? 20 * log10(Double(peak)) : -Double.infinity
        guard peakDecibels >= settings.silenceDecibels else {
            throw .silent(path: path, peakDecibels: max(peakDecibels, -200))
        }

        let envelope = OnsetEnvelope(
            values: values, hopDuration: frame.hopDuration, startTime: -DetectionDelay.envelopeHops * frame.hopDuration)
        let trackerDelay = DetectionDelay.trackerHops * frame.hopDuration
        let beats = tracker.map { _ in rawBeats.map { $0 - trackerDelay }.filter { $0 >= 0 && $0 < duration } }
        return AudioAnalysis(
            path: path, sampleRate: reader.sampleRate, channels: reader.channels,
            secondChannelInverted: invertingSecondChannel, frames: frames, frame: frame,
            resampler: resampler?.summary, envelope: envelope, trackerBeats: beats, trackerBPM: tracker?.bpm,
            peak: peak,
            onsetMethod: settings.onsetMethod, levels: levels, lowLevels: lowLevels, chroma: chroma.values,
            bandLevels: bands.values, drums: drumBands?.frames ?? DrumFrames(), blockLevels: blockLevels,
            envelopeDelay: DetectionDelay.envelopeHops * frame.hopDuration,
            trackerDelay: trackerDelay)
    }
}
