// SPDX-License-Identifier: GPL-3.0-or-later

public import BeatAudio
public import BeatMapKit
public import Foundation

/// Why the series for a plot could not be read.
public enum PlotSeriesError: Error, LocalizedError, Sendable, Equatable {
    /// The audio could not be decoded.
    case decode(AudioDecodeError)
    /// aubio refused its settings.
    case aubio(path: String, AubioError)
    /// libsoxr could not resample the audio to the analysis rate.
    case resample(path: String, ResamplerError)
    /// The file holds no audio.
    case empty(path: String)
    /// The requested time range is empty or outside the audio.
    case range(path: String, from: Double, to: Double, duration: Double)
    /// No audio file was given and the map names none (`audio.path`).
    case noAudio(mapPath: String)

    public var errorDescription: String? {
        switch self {
        case .decode(let error): return error.localizedDescription
        case .aubio(let path, let error): return "\(path): \(error.localizedDescription)"
        case .resample(let path, let error): return "\(path): \(error.localizedDescription)"
        case .empty(let path): return "\(path): the file holds no audio frames"
        case .range(let path, let from, let to, let duration):
            return "\(path): nothing to plot from \(BeatMapSummary.clock(from)) to \(BeatMapSummary.clock(to)) "
                + "(the audio is \(BeatMapSummary.clock(duration)) long)"
        case .noAudio(let mapPath): return "\(mapPath) names no audio file (audio.path)"
        }
    }
}

/// Reads what `beatmap plot` draws from an audio file in one streaming pass: the waveform's minimum and
/// maximum per column and the onset-strength curve (aubio's detection function, delay-compensated as in
/// ``AudioAnalyzer``). The waveform is the mono mixdown at the file's rate; the curve is computed as the
/// analyzer computes it, on the audio resampled to ``AnalysisFrame/analysis``'s rate. Samples are never
/// all in memory: a block is decoded at a time and folded into small per-bucket summaries (8 bytes per
/// bucket of ≥ 256 samples, 4 bytes per hop).
public struct PlotSeriesReader: Sendable {
    /// Waveform columns (and onset-curve points) across the plotted range.
    public var columns: Int
    /// The aubio onset method of the curve (default `specflux`, as the analysis uses).
    public var onsetMethod: String

    /// A reader producing `columns` points.
    public init(columns: Int = 1600, onsetMethod: String = "specflux") {
        self.columns = max(1, columns)
        self.onsetMethod = onsetMethod
    }

    /// Reads `url` between `from` and `to` seconds (`to` defaults to the end of the audio). A stereo
    /// file whose channels cancel in their mean over what was read is read again mixed as their
    /// difference, as ``AudioAnalyzer`` analyses it (``AudioFileReader/channelsCancel``).
    public func read(_ url: URL, from: Double = 0, to: Double? = nil) throws(PlotSeriesError) -> PlotSeries {
        if let series = try read(url, from: from, to: to, invertingSecondChannel: false) { return series }
        guard let series = try read(url, from: from, to: to, invertingSecondChannel: true) else {
            // Not reached: only a pass that mixes the mean stops for cancelling channels.
            throw .empty(path: url.path)
        }
        return series
    }

    /// One pass over `url`, mixing a stereo file's second channel inverted when
    /// `invertingSecondChannel`; `nil` when, mixing the mean, the channels cancelled.
    private func read(
        _ url: URL, from: Double, to: Double?, invertingSecondChannel: Bool
    ) throws(PlotSeriesError) -> PlotSeries? {
        let reader: AudioFileReader
        do { reader = try AudioFileReader(url: url) } catch { throw .decode(error) }
        reader.invertsSecondChannel = invertingSecondChannel
        let path = url.path
        do { try AudioAnalyzer.checkSampleRate(of: reader) } catch { throw .decode(error) }
        let rate = Double(reader.sampleRate)
        let frame = AnalysisFrame.analysis
        let hop = frame.hopSize
        let onset: AubioOnsetDetector
        do {
            onset = try AubioOnsetDetector(
                method: onsetMethod, bufferSize: frame.bufferSize, hopSize: hop, sampleRate: frame.sampleRate)
        } catch { throw .aubio(path: path, error) }
        let resampler: Resampler?
        do {
            resampler = try Resampler.toAnalysisRate(
                from: reader.sampleRate, quality: AudioAnalysisSettings().resamplerQuality)
        } catch { throw .resample(path: path, error) }

        // Buckets: the columns of the range `from`…`to`, or, without `to`, of the length the header
        // announces. Should the audio turn out longer, more buckets are added; should the layout not
        // match the real range, the buckets are folded into columns afterwards.
        let start = max(0, from)
        let declaredEnd = reader.declaredFrames > 0 ? Double(reader.declaredFrames) / rate : nil
        let layoutEnd = to.map { end in declaredEnd.map { min(end, $0) } ?? end } ?? declaredEnd
        let bucketFrames: Double
        if let layoutEnd, layoutEnd > start {
            bucketFrames = (layoutEnd - start) * rate / Double(columns)
        } else {
            bucketFrames = 256
        }
        let growable = to == nil || (layoutEnd ?? 0) < (to ?? 0)
        let startFrame = start * rate
        let endFrame = to.map { $0 * rate } ?? Double.infinity
        var minima = [Float](repeating: .infinity, count: layoutEnd == nil ? 0 : columns)
        var maxima = [Float](repeating: -.infinity, count: layoutEnd == nil ? 0 : columns)
        var descriptors: [Float] = []

        let blockFrames = AudioAnalyzer.blockFrames(sampleRate: reader.sampleRate)
        let block = UnsafeMutablePointer<Float>.allocate(capacity: blockFrames)
        defer { block.deallocate() }
        let resampledCapacity = hop * AudioAnalyzer.hopsPerBlock
        let resampled = UnsafeMutablePointer<Float>.allocate(capacity: resampledCapacity)
        defer { resampled.deallocate() }
        let framer = HopFramer(hop: hop)
        func detect(_ hopSamples: UnsafePointer<Float>) {
            onset.process(hopSamples)
            descriptors.append(max(0, onset.descriptor))
        }
        func feed(_ samples: UnsafePointer<Float>, _ count: Int) { framer.feed(samples, count: count, detect) }
        var position = 0.0  // frame index of block[0]
        // The onset detector needs the audio before `from` (its memory) but nothing long after `to`.
        // Infinite without `to`: read to the end.
        let stopFrame = endFrame + Double(frame.bufferSize * 4) / Double(frame.sampleRate) * rate

        while position < stopFrame {
            let read: Int
            do { read = try reader.readMono(into: block, frames: blockFrames) } catch { throw .decode(error) }
            if read == 0 { break }
            // Waveform buckets.
            let first = max(0, Int((startFrame - position).rounded(.up)))
            let last = min(read, Int(min(endFrame - position, Double(read)).rounded(.up)))
            if first < last {
                for index in first..<last {
                    var bucket = Int(((position + Double(index)) - startFrame) / bucketFrames)
                    if bucket >= minima.count {
                        if growable {
                            while minima.count <= bucket {
                                minima.append(.infinity)
                                maxima.append(-.infinity)
                            }
                        } else {
                            bucket = minima.count - 1
                        }
                    }
                    let sample = block[index]
                    if sample < minima[bucket] { minima[bucket] = sample }
                    if sample > maxima[bucket] { maxima[bucket] = sample }
                }
            }
            // Onset detection, hop by hop, at the analysis rate.
            if let resampler {
                do {
                    try resampler.process(block, count: read, buffer: resampled, capacity: resampledCapacity, feed)
                } catch { throw .resample(path: path, error) }
            } else {
                feed(block, read)
            }
            position += Double(read)
        }
        if let resampler {
            do { try resampler.flush(buffer: resampled, capacity: resampledCapacity, feed) } catch {
                throw .resample(path: path, error)
            }
        }
        framer.finish(detect)
        guard position > 0 else { throw .empty(path: path) }
        if !invertingSecondChannel, reader.channelsCancel { return nil }

        let readDuration = position / rate
        // When reading stopped at `to`, the audio's own length is the header's (libsndfile's frame count).
        let duration =
            position >= stopFrame && reader.declaredFrames > 0 ? Double(reader.declaredFrames) / rate : readDuration
        let end = min(to ?? duration, duration)
        guard end > start else { throw .range(path: path, from: start, to: to ?? duration, duration: duration) }

        let bucketSeconds = bucketFrames / rate
        if minima.count != columns || abs(bucketSeconds * Double(columns) - (end - start)) > 0.5 / rate {
            // Fold the buckets into the real range's columns, each by its centre.
            var foldedMin = [Float](repeating: .infinity, count: columns)
            var foldedMax = [Float](repeating: -.infinity, count: columns)
            for bucket in 0..<minima.count {
                let centre = (Double(bucket) + 0.5) * bucketSeconds
                let column = min(columns - 1, max(0, Int(centre / (end - start) * Double(columns))))
                foldedMin[column] = min(foldedMin[column], minima[bucket])
                foldedMax[column] = max(foldedMax[column], maxima[bucket])
            }
            minima = foldedMin
            maxima = foldedMax
        }
        // Columns no sample fell into (a range finer than a sample) take their neighbour's values.
        for column in 0..<columns where minima[column] > maxima[column] {
            minima[column] = column > 0 ? minima[column - 1] : 0
            maxima[column] = column > 0 ? maxima[column - 1] : 0
        }

        let envelope = OnsetEnvelope(
            values: descriptors, hopDuration: frame.hopDuration,
            startTime: -DetectionDelay.envelopeHops * frame.hopDuration)
        var strength = [Float](repeating: 0, count: columns)
        let columnSeconds = (end - start) / Double(columns)
        for (index, value) in descriptors.enumerated() {
            let time = envelope.time(ofIndex: index)
            guard time >= start, time < end else { continue }
            let column = min(columns - 1, Int((time - start) / columnSeconds))
            strength[column] = max(strength[column], value)
        }
        // A column narrower than a hop gets the curve interpolated at its centre.
        if columnSeconds < frame.hopDuration {
            for column in 0..<columns {
                strength[column] = envelope.value(at: start + (Double(column) + 0.5) * columnSeconds)
            }
        }
        return PlotSeries(
            from: start, to: end, duration: duration, sampleRate: reader.sampleRate, minima: minima, maxima: maxima,
            onsetStrength: strength, onsetMethod: onsetMethod)
    }
}

extension BeatPlot {
    /// Draws the map at `map` over the audio at `audio` (`nil`: the file the map's `audio.path` names,
    /// relative to the map) from `start` to `end` seconds (`nil`: the end of the audio), reading the audio
    /// in one streaming pass, and writes the SVG to `output` atomically. An existing `output` (named
    /// `shownAs` in the error) is replaced only when `overwrite`. `title` names the two files (default:
    /// their file names).
    public static func write(
        audio: URL?, map: URL, to output: URL, shownAs: String, from start: Double = 0, to end: Double? = nil,
        layout: Layout = Layout(), title: String? = nil, overwrite: Bool = false
    ) throws {
        if !overwrite && FileManager.default.fileExists(atPath: output.path) {
            _ = try BeatMapCodec.read(from: map)
            throw BeatMapError.exists(path: shownAs)
        }
        let svg = try svg(audio: audio, map: map, from: start, to: end, layout: layout, title: title)
        try AtomicFile.write(Data(svg.utf8), to: output, overwrite: overwrite)
    }

    /// The SVG of the map at `map` drawn over the audio at `audio` (`nil`: the file the map's `audio.path`
    /// names) from `start` to `end` seconds (`nil`: the end of the audio), for a caller that writes it elsewhere (standard output). `title` names the
    /// two files (default: their file names).
    public static func svg(
        audio given: URL?, map: URL, from start: Double = 0, to end: Double? = nil, layout: Layout = Layout(),
        title: String? = nil
    ) throws -> String {
        let beatMap = try BeatMapCodec.read(from: map)
        guard let audio = given ?? beatMap.audio.resolvedURL(relativeTo: map) else {
            throw PlotSeriesError.noAudio(mapPath: map.path)
        }
        let series = try PlotSeriesReader(columns: layout.plotWidth).read(audio, from: start, to: end)
        let title = title ?? "\(map.lastPathComponent) over \(audio.lastPathComponent)"
        return BeatPlot(map: beatMap, series: series, title: title, layout: layout).svg
    }
}
