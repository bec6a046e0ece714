// SPDX-License-Identifier: GPL-3.0-or-later

import CSoxr
public import Foundation

/// Why a ``Resampler`` could not be created or failed.
public enum ResamplerError: Error, LocalizedError, Sendable, Equatable {
    /// A rate is not finite, or the ratio of the rates is beyond ``Resampler/maximumRatio`` either way
    /// (checked before libsoxr sees them: libsoxr 0.1.3 never returns from `soxr_create` for a NaN rate
    /// or a ratio of about 10¹⁰).
    case invalidRate(inputRate: Double, outputRate: Double)
    /// libsoxr refused to create the resampler (e.g. a rate of 0 or below: "I/O ratio out-of-range").
    case cannotCreate(inputRate: Double, outputRate: Double, reason: String)
    /// libsoxr reported an error while resampling.
    case processFailed(reason: String)

    public var errorDescription: String? {
        switch self {
        case .invalidRate(let input, let output):
            return
                "cannot resample from \(Self.hertz(input)) to \(Self.hertz(output)): rates must be finite and within a ratio of \(Int(Resampler.maximumRatio))"
        case .cannotCreate(let input, let output, let reason):
            return "libsoxr cannot resample from \(Self.hertz(input)) to \(Self.hertz(output)): \(reason)"
        case .processFailed(let reason):
            return "libsoxr failed while resampling: \(reason)"
        }
    }

    private static func hertz(_ rate: Double) -> String {
        rate.isFinite && rate == rate.rounded() && abs(rate) < 1e15 ? "\(Int64(rate)) Hz" : "\(rate) Hz"
    }
}

/// A streaming resampler: libsoxr behind a small API, interleaved Float32 frames in and out (one or
/// more channels), constant memory. The analyzer resamples mono audio to its analysis rate with it; the
/// preview and the renderer resample the music to an output device's rate.
///
/// Feed input with ``process(_:count:into:capacity:)`` in blocks of any size, then drain what the
/// filter still holds with ``flush(into:capacity:)``. Counts are in frames (one sample per channel).
/// libsoxr trims its own filter delay from the stream: output frame `k` is at time `k / outputRate`, so
/// a click at `t` seconds in the input is at `t` seconds in the output (`ResamplerTests` holds it to ±1
/// output sample), and an input of `n` frames gives `n × outputRate / inputRate` frames, rounded.
///
/// One resampler belongs to one thread at a time (libsoxr's objects are not shared).
public final class Resampler {
    /// libsoxr's quality recipes (`soxr_quality_spec`), all linear phase, so an onset is not moved.
    public enum Quality: String, Sendable, CaseIterable {
        /// `SOXR_QQ`: cubic interpolation, no anti-alias filter.
        case quick = "QQ"
        /// `SOXR_LQ`: 16-bit precision, large roll-off.
        case low = "LQ"
        /// `SOXR_MQ`: 16-bit precision, medium roll-off.
        case medium = "MQ"
        /// `SOXR_HQ`: 20-bit precision, pass band to 91 % of the lower Nyquist frequency (libsoxr's
        /// default).
        case high = "HQ"
        /// `SOXR_VHQ`: 28-bit precision.
        case veryHigh = "VHQ"

        var recipe: UInt {
            switch self {
            case .quick: return UInt(SOXR_QQ)
            case .low: return UInt(SOXR_LQ)
            case .medium: return UInt(SOXR_MQ)
            case .high: return UInt(SOXR_HQ)
            case .veryHigh: return UInt(SOXR_VHQ)
            }
        }
    }

    /// Input samples per second.
    public let inputRate: Double
    /// Output samples per second.
    public let outputRate: Double
    /// The quality recipe.
    public let quality: Quality
    /// Interleaved channels per frame.
    public let channels: Int

    private let handle: OpaquePointer
    /// Input samples per output sample. A call hands libsoxr at most the input that fills half the
    /// output room, so libsoxr's internal buffer never grows beyond a block: memory stays constant.
    private let inputPerOutput: Double
    /// Whether the last call filled the whole output room: libsoxr may hold more output, which is
    /// drained before more input goes in.
    private var backlogged = false
    private var flushed = false

    /// The largest ratio of the two rates accepted, either way (2²⁰).
    public static let maximumRatio = Double(1 << 20)

    /// A resampler of `channels` interleaved channels from `inputRate` to `outputRate` Hz with the
    /// quality recipe `quality`.
    public init(inputRate: Double, outputRate: Double, channels: Int = 1, quality: Quality = .high)
        throws(ResamplerError)
    {
        guard inputRate.isFinite, outputRate.isFinite else {
            throw .invalidRate(inputRate: inputRate, outputRate: outputRate)
        }
        // Rates of 0 or below go to libsoxr, which refuses them with its own reason.
        if inputRate > 0, outputRate > 0, max(inputRate / outputRate, outputRate / inputRate) > Self.maximumRatio {
            throw .invalidRate(inputRate: inputRate, outputRate: outputRate)
        }
        var ioSpec = soxr_io_spec(SOXR_FLOAT32_I, SOXR_FLOAT32_I)
        var qualitySpec = soxr_quality_spec(quality.recipe, 0)
        var error: soxr_error_t?
        let created = soxr_create(
            inputRate, outputRate, UInt32(max(1, min(channels, 64))), &error, &ioSpec, &qualitySpec, nil)
        guard error == nil, let created else {
            if let created { soxr_delete(created) }
            throw .cannotCreate(
                inputRate: inputRate, outputRate: outputRate,
                reason: error.map { String(cString: $0) } ?? "no resampler returned")
        }
        handle = created
        self.inputRate = inputRate
        self.outputRate = outputRate
        self.quality = quality
        self.channels = max(1, min(channels, 64))
        inputPerOutput = inputRate / outputRate
    }

    deinit { soxr_delete(handle) }

    /// Resamples up to `count` frames of `input` into `output`, which has room for `capacity`
    /// frames. Returns the input frames consumed (feed the rest again) and the output frames
    /// written. An output short of `capacity` means the resampler needs more input; a full one, that it
    /// may hold more output, which the next call returns first (consuming no input then).
    public func process(
        _ input: UnsafePointer<Float>, count: Int, into output: UnsafeMutablePointer<Float>, capacity: Int
    ) throws(ResamplerError) -> (consumed: Int, produced: Int) {
        guard capacity > 0, !flushed else { return (0, 0) }
        if backlogged {
            // Drain first; if libsoxr held nothing more, go on to feed input.
            let drained = try call(input, feed: 0, output, capacity)
            backlogged = drained.produced == capacity
            if drained.produced > 0 { return drained }
        }
        let feed = min(max(0, count), max(1, Int(Double(capacity) * inputPerOutput / 2)))
        let result = try call(input, feed: feed, output, capacity)
        backlogged = result.produced == capacity
        return result
    }

    private func call(
        _ input: UnsafePointer<Float>, feed: Int, _ output: UnsafeMutablePointer<Float>, _ capacity: Int
    ) throws(ResamplerError) -> (consumed: Int, produced: Int) {
        var consumed = 0
        var produced = 0
        let error = soxr_process(handle, input, feed, &consumed, output, capacity, &produced)
        if let error { throw .processFailed(reason: String(cString: error)) }
        return (consumed, produced)
    }

    /// After the last input: writes up to `capacity` of the frames the filter still holds into
    /// `output` and returns how many; 0 when all are out. No input can follow.
    public func flush(into output: UnsafeMutablePointer<Float>, capacity: Int) throws(ResamplerError) -> Int {
        guard capacity > 0 else { return 0 }
        flushed = true
        var produced = 0
        let error = soxr_process(handle, nil, 0, nil, output, capacity, &produced)
        if let error { throw .processFailed(reason: String(cString: error)) }
        return produced
    }

    /// Resamples all `count` frames of `input`, handing each run of output to `body` as it is made
    /// (`buffer`, room for `capacity` frames, is the scratch space the runs are written to).
    public func process(
        _ input: UnsafePointer<Float>, count: Int, buffer: UnsafeMutablePointer<Float>, capacity: Int,
        _ body: (UnsafePointer<Float>, Int) -> Void
    ) throws(ResamplerError) {
        var offset = 0
        while true {
            let (consumed, produced) = try process(
                input + offset * channels, count: count - offset, into: buffer, capacity: capacity)
            offset += consumed
            if produced > 0 { body(buffer, produced) }
            if offset >= count && produced < capacity { return }
            if consumed == 0 && produced == 0 { throw .processFailed(reason: "libsoxr made no progress") }
        }
    }

    /// After the last input: hands the frames the filter still holds to `body`, in runs written to
    /// `buffer` (room for `capacity` frames).
    public func flush(
        buffer: UnsafeMutablePointer<Float>, capacity: Int, _ body: (UnsafePointer<Float>, Int) -> Void
    ) throws(ResamplerError) {
        while true {
            let produced = try flush(into: buffer, capacity: capacity)
            if produced == 0 { return }
            body(buffer, produced)
        }
    }

    /// Makes the resampler ready for a fresh signal (after a seek): the filter's history and whatever it
    /// held are dropped, the rates and recipe kept.
    public func reset() throws(ResamplerError) {
        if let error = soxr_clear(handle) { throw .processFailed(reason: String(cString: error)) }
        backlogged = false
        flushed = false
    }

    /// Output frames the filter holds at the moment (libsoxr's `soxr_delay`): the stream's latency,
    /// not an offset of its times, which libsoxr keeps aligned.
    public var latency: Double { soxr_delay(handle) }

    /// libsoxr's engine for this resampler (e.g. `cr32s`: single precision, SIMD).
    public var engine: String { soxr_engine(handle).map { String(cString: $0) } ?? "" }

    /// What this resampler is, for a map's provenance: library, version and recipe, e.g.
    /// `libsoxr-0.1.3 HQ`.
    public var summary: String { "\(Self.libraryVersion) \(quality.rawValue)" }

    /// The version string of the linked libsoxr (e.g. `libsoxr-0.1.3`).
    public static var libraryVersion: String { String(cString: soxr_version()) }
}
