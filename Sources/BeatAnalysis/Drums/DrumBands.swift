// SPDX-License-Identifier: GPL-3.0-or-later

import CAubio
import Foundation

/// The spectrum ``DrumDetector`` reads, accumulated during the streaming pass: per hop of the analysis
/// rate, the log level of 24 log-spaced bands (30 Hz – 11 kHz) of a 1024-sample Hann-windowed frame
/// centred on the hop's start, as `tools/learned/drums.py`'s `features` computes them, over the first
/// ``span`` seconds (the beats the check reads) and a little beyond (the shifted points past them).
///
/// A level is kept as a byte in steps of ``step`` from ``lowest``: 24 bytes a hop, 0.6 MB for the
/// span, until the span is over; then the drum detector's output (``frames``) replaces them.
final class DrumBands {
    /// Bands.
    static let bandCount = 24
    /// Samples per frame.
    static let frameSize = 1024
    /// Lower edge of the lowest band, in Hz.
    static let lowestFrequency = 30.0
    /// Upper edge of the highest band, in Hz.
    static let highestFrequency = 11_000.0
    /// Seconds of beats the check reads (``DrumDetector/betterShift(of:frames:frameDuration:)``).
    static let span = 300.0
    /// Seconds of frames kept beyond ``span``: a beat's shifted points and the network's context.
    static let margin = 3.0
    /// The lowest level a byte stands for: `log(1e-4)`, the floor `drums.py` adds.
    static let lowest: Float = -9.25
    /// The level one step of a byte stands for (the levels of a full-scale signal stay under 6.75).
    static let step: Float = 16 / 255

    /// ``bandCount`` levels per frame, in ``step``s above ``lowest``.
    private(set) var values: [UInt8] = []
    /// Seconds between frames.
    let frameDuration: Double

    private let fft: OpaquePointer
    private let frame: AubioVector
    private let weighted: AubioVector
    private let spectrum: AubioVector
    private let magnitudes: UnsafeMutablePointer<cvec_t>
    /// `magnitudes`' values (its `norm`).
    private let norm: UnsafeMutablePointer<Float>
    private let window: [Float]
    private let hop: Int
    /// For each band, its first bin and how many bins it averages.
    private let bands: [(first: Int, count: Int)]
    private let frameCap: Int
    private var hops = 0

    /// Bands for hops of `hop` samples at `sampleRate` (the analysis rate); `nil` if aubio cannot make
    /// the FFT.
    init?(hop: Int, sampleRate: Int, expectedHops: Int) {
        let size = Self.frameSize
        guard hop > 0, hop <= size, sampleRate > 0, let fft = new_aubio_fft(uint_t(size)) else { return nil }
        guard let frame = AubioVector(length: size), let weighted = AubioVector(length: size),
            let spectrum = AubioVector(length: size), let magnitudes = new_cvec(uint_t(size))
        else {
            del_aubio_fft(fft)
            return nil
        }
        guard let norm = magnitudes.pointee.norm else {
            del_aubio_fft(fft)
            del_cvec(magnitudes)
            return nil
        }
        self.norm = norm
        self.fft = fft
        self.frame = frame
        self.weighted = weighted
        self.spectrum = spectrum
        self.magnitudes = magnitudes
        self.hop = hop
        // numpy's `hanning`: symmetric, 0 at both ends.
        window = (0..<size).map { Float(0.5 - 0.5 * cos(2 * Double.pi * Double($0) / Double(size - 1))) }
        // Bins in [edge, next edge); a band narrower than a bin takes the bin nearest its centre.
        let binWidth = Double(sampleRate) / Double(size)
        let ratio = pow(Self.highestFrequency / Self.lowestFrequency, 1 / Double(Self.bandCount))
        bands = (0..<Self.bandCount).map { band in
            let low = Self.lowestFrequency * pow(ratio, Double(band))
            let high = low * ratio
            let first = Int((low / binWidth).rounded(.up))
            let last = Int((high / binWidth).rounded(.up)) - 1
            if last >= first, first <= size / 2 { return (first, min(last, size / 2) - first + 1) }
            return (min(size / 2, Int((sqrt(low * high) / binWidth).rounded())), 1)
        }
        frameDuration = Double(hop) / Double(sampleRate)
        frameCap = Int(((Self.span + Self.margin) / frameDuration).rounded(.up))
        values.reserveCapacity(Self.bandCount * min(frameCap, expectedHops + 1))
    }

    deinit {
        del_aubio_fft(fft)
        del_cvec(magnitudes)
    }

    /// Whether frames are still being kept: the span is not over and the song has not ended.
    var isCollecting: Bool { frames.count == 0 && values.count < frameCap * Self.bandCount }

    /// The detector's frames: the kept bands (``finish()``), or, once the span is over, the kick and
    /// the snare at every frame, after which the bands go (an hour's analysis holds 8 bytes a frame of
    /// the span from there on, not 24).
    private(set) var frames = DrumFrames()

    /// Ends the frames: the song ended before the span did, so the bands stay and the detector runs
    /// only where the check reads.
    func finish() {
        guard frames.count == 0, !values.isEmpty else { return }
        frames = DrumFrames(bands: values)
        values = []
    }

    /// Every frame computed, the bands let go: the span is over.
    private func computeAll() {
        var all = DrumFrames(bands: values)
        let computed = all.computedAll()
        frames = DrumFrames(kicks: computed.kicks, snares: computed.snares)
        values = []
    }

    /// Adds one hop of samples. Frame `k − 1` is complete once hop `k` has arrived: it spans the 1024
    /// samples centred on hop `k − 1`'s start (the first frame's left half is silence, as in `drums.py`).
    func add(_ samples: UnsafePointer<Float>) {
        guard isCollecting else { return }
        let size = Self.frameSize
        let data = frame.data
        data.update(from: data + hop, count: size - hop)
        (data + size - hop).update(from: samples, count: hop)
        hops += 1
        // Before the second hop, the frame centred on hop 0's start is still half in the future.
        guard hops >= 2 else { return }
        let windowed = weighted.data
        window.withUnsafeBufferPointer { window in
            for index in 0..<size { windowed[index] = data[index] * window[index] }
        }
        aubio_fft_do_complex(fft, weighted.vector, spectrum.vector)
        aubio_fft_get_norm(spectrum.vector, magnitudes)
        for (first, count) in bands {
            var sum: Float = 0
            for bin in first..<(first + count) { sum += norm[bin] }
            let level = log(1e-4 + sum / Float(count))
            values.append(UInt8(max(0, min(255, ((level - Self.lowest) / Self.step).rounded()))))
        }
        if !isCollecting { computeAll() }
    }
}
