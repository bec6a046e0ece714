// SPDX-License-Identifier: GPL-3.0-or-later

import CAubio
public import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Why an aubio object could not be created.
public enum AubioError: Error, LocalizedError, Sendable, Equatable {
    /// aubio refused the method or the sizes.
    case cannotCreate(object: String, method: String, bufferSize: Int, hopSize: Int, sampleRate: Int)

    public var errorDescription: String? {
        switch self {
        case .cannotCreate(let object, let method, let bufferSize, let hopSize, let sampleRate):
            return
                "aubio could not create a \(object) object (method \(method), buffer \(bufferSize), hop \(hopSize), \(sampleRate) Hz)"
        }
    }
}

/// A hop-sized aubio sample vector, owned and freed by this object.
final class AubioVector {
    let vector: UnsafeMutablePointer<fvec_t>

    init?(length: Int) {
        guard length > 0, let created = new_fvec(uint_t(length)) else { return nil }
        vector = created
    }

    deinit { del_fvec(vector) }

    /// The vector's samples.
    var data: UnsafeMutablePointer<Float> { vector.pointee.data }
}

/// aubio's onset detector (`aubio_onset_t`): per hop, the onset detection function's value (the
/// *descriptor*, kept for grid fitting) and aubio's own peak-picked onsets.
///
/// One detector belongs to one task at a time (aubio objects are not thread-safe).
public final class AubioOnsetDetector {
    /// The detection method (e.g. `specflux`).
    public let method: String
    /// Samples per hop.
    public let hopSize: Int
    /// Samples per analysis window.
    public let bufferSize: Int
    /// Sample rate in Hz.
    public let sampleRate: Int

    private let object: OpaquePointer
    private let input: AubioVector
    private let output: AubioVector

    /// Creates a detector with aubio's default parameters for `method`.
    public init(method: String, bufferSize: Int, hopSize: Int, sampleRate: Int) throws(AubioError) {
        let failure = AubioError.cannotCreate(
            object: "onset", method: method, bufferSize: bufferSize, hopSize: hopSize, sampleRate: sampleRate)
        guard bufferSize >= hopSize, hopSize > 0, sampleRate > 0,
            let object = new_aubio_onset(method, uint_t(bufferSize), uint_t(hopSize), uint_t(sampleRate))
        else { throw failure }
        guard let input = AubioVector(length: hopSize), let output = AubioVector(length: 1) else {
            del_aubio_onset(object)
            throw failure
        }
        self.object = object
        self.input = input
        self.output = output
        self.method = method
        self.hopSize = hopSize
        self.bufferSize = bufferSize
        self.sampleRate = sampleRate
    }

    deinit { del_aubio_onset(object) }

    /// Analyses the next hop: `samples` must hold ``hopSize`` samples. Returns whether aubio detected
    /// an onset in this hop.
    @discardableResult
    public func process(_ samples: UnsafePointer<Float>) -> Bool {
        input.data.update(from: samples, count: hopSize)
        aubio_onset_do(object, input.vector, output.vector)
        return output.data[0] != 0
    }

    /// The detection function's value for the last hop processed.
    public var descriptor: Float { aubio_onset_get_descriptor(object) }

    /// Time of the last detected onset in seconds (aubio compensates its own delay here).
    public var lastOnsetSeconds: Double { Double(aubio_onset_get_last_s(object)) }

    /// The peak-picking threshold.
    public var threshold: Float {
        get { aubio_onset_get_threshold(object) }
        set { aubio_onset_set_threshold(object, newValue) }
    }

    /// The silence gate in dB (hops quieter than this give no onset).
    public var silence: Float {
        get { aubio_onset_get_silence(object) }
        set { aubio_onset_set_silence(object, newValue) }
    }

    /// Minimum interval between two onsets, in seconds.
    public var minimumInterval: Double {
        get { Double(aubio_onset_get_minioi_s(object)) }
        set { aubio_onset_set_minioi_s(object, Float(newValue)) }
    }
}

/// aubio's beat tracker (`aubio_tempo_t`). Its beats are reported as aubio reports them (no delay
/// compensation); ``AudioAnalyzer`` compensates them explicitly.
///
/// One tracker belongs to one task at a time (aubio objects are not thread-safe).
public final class AubioTempoTracker {
    /// Samples per hop.
    public let hopSize: Int
    /// Sample rate in Hz.
    public let sampleRate: Int

    private let object: OpaquePointer
    private let input: AubioVector
    private let output: AubioVector
    private var previousLast: UInt32 = 0

    /// Creates a tracker with aubio's default method (`specflux`).
    public init(method: String = "default", bufferSize: Int, hopSize: Int, sampleRate: Int) throws(AubioError) {
        let failure = AubioError.cannotCreate(
            object: "tempo", method: method, bufferSize: bufferSize, hopSize: hopSize, sampleRate: sampleRate)
        guard bufferSize >= hopSize, hopSize > 0, sampleRate > 0,
            let object = new_aubio_tempo(method, uint_t(bufferSize), uint_t(hopSize), uint_t(sampleRate))
        else { throw failure }
        guard let input = AubioVector(length: hopSize), let output = AubioVector(length: 2) else {
            del_aubio_tempo(object)
            throw failure
        }
        self.object = object
        self.input = input
        self.output = output
        self.hopSize = hopSize
        self.sampleRate = sampleRate
    }

    deinit { del_aubio_tempo(object) }

    /// Analyses the next hop (``hopSize`` samples). Returns the time in seconds of a beat aubio placed
    /// in this hop, uncompensated, or `nil`. A change of `aubio_tempo_get_last` is what marks a beat,
    /// so a beat at an exact hop boundary (output 0) is not missed.
    public func process(_ samples: UnsafePointer<Float>) -> Double? {
        input.data.update(from: samples, count: hopSize)
        aubio_tempo_do(object, input.vector, output.vector)
        let last = aubio_tempo_get_last(object)
        guard last != previousLast || output.data[0] != 0 else { return nil }
        previousLast = last
        return Double(last) / Double(sampleRate)
    }

    /// aubio's current tempo estimate in BPM (0 before it has one).
    public var bpm: Double { Double(aubio_tempo_get_bpm(object)) }

    /// aubio's confidence in its tempo (uncalibrated; 0 early on).
    public var confidence: Double { Double(aubio_tempo_get_confidence(object)) }
}

/// Facts about the linked aubio library.
public enum AubioLibrary {
    /// The file name of the aubio library this process loaded (e.g. `libaubio.so.5.4.8`); aubio 0.4 has
    /// no version function, so the library's file name is the best record of which aubio ran.
    /// `"aubio"` when the name cannot be found.
    public static let loadedLibrary: String = {
        #if os(Linux)
            // The dynamic loader's map of this process names every library file it loaded.
            // /proc files report a size of 0, so read to the end rather than by size.
            guard let handle = FileHandle(forReadingAtPath: "/proc/self/maps") else { return "aubio" }
            defer { try? handle.close() }
            let maps = String(decoding: handle.readDataToEndOfFile(), as: UTF8.self)
            for line in maps.split(separator: "\n") {
                guard let slash = line.firstIndex(of: "/") else { continue }
                let path = String(line[slash...])
                let name = URL(fileURLWithPath: path).lastPathComponent
                if name.hasPrefix("libaubio") { return name }
            }
            return "aubio"
        #else
            var info = Dl_info()
            guard let process = dlopen(nil, RTLD_NOW), let symbol = dlsym(process, "new_aubio_onset"),
                dladdr(symbol, &info) != 0, let name = info.dli_fname
            else { return "aubio" }
            return URL(fileURLWithPath: String(cString: name)).resolvingSymlinksInPath().lastPathComponent
        #endif
    }()
}

/// aubio's `specflux` onset detection function assembled from aubio's own parts — Hann window, FFT,
/// adaptive spectral whitening, log compression (λ = 10), spectral flux — exactly as `aubio_onset_t`
/// chains them in aubio 0.4.9, but without the phase vocoder's per-bin phase (`atan2f`), which the
/// flux never reads and which costs a fifth of the analysis. `OnsetDetectorTests` holds that its values
/// equal ``AubioOnsetDetector``'s `descriptor` for `specflux`.
///
/// One detector belongs to one task at a time (aubio objects are not thread-safe).
public final class AubioSpecfluxDetector {
    /// Samples per hop.
    public let hopSize: Int
    /// Samples per analysis window.
    public let bufferSize: Int
    /// The log-compression factor `aubio_onset_t` applies for `specflux`.
    public static let compression: Float = 10

    private let fft: OpaquePointer
    private let whitening: OpaquePointer
    private let flux: OpaquePointer
    private let window: UnsafeMutablePointer<fvec_t>
    private let frame: AubioVector
    private let weighted: AubioVector
    private let complexSpectrum: AubioVector
    private let grain: UnsafeMutablePointer<cvec_t>
    private let output: AubioVector

    /// A detector for `bufferSize`-sample windows (an even size) advancing `hopSize` samples at
    /// `sampleRate`.
    public init(bufferSize: Int, hopSize: Int, sampleRate: Int) throws(AubioError) {
        let failure = AubioError.cannotCreate(
            object: "specflux", method: "specflux", bufferSize: bufferSize, hopSize: hopSize, sampleRate: sampleRate)
        guard bufferSize >= hopSize, hopSize > 0, sampleRate > 0, bufferSize % 2 == 0,
            let fft = new_aubio_fft(uint_t(bufferSize))
        else { throw failure }
        guard let whitening = new_aubio_spectral_whitening(uint_t(bufferSize), uint_t(hopSize), uint_t(sampleRate))
        else {
            del_aubio_fft(fft)
            throw failure
        }
        let window = "hanningz".withCString { name in
            new_aubio_window(UnsafeMutablePointer(mutating: name), uint_t(bufferSize))
        }
        guard let flux = new_aubio_specdesc("specflux", uint_t(bufferSize)), let window,
            let grain = new_cvec(uint_t(bufferSize)), let frame = AubioVector(length: bufferSize),
            let weighted = AubioVector(length: bufferSize), let complexSpectrum = AubioVector(length: bufferSize),
            let output = AubioVector(length: 1)
        else {
            del_aubio_fft(fft)
            del_aubio_spectral_whitening(whitening)
            throw failure
        }
        // The whitening settings aubio_onset_t uses for specflux.
        aubio_spectral_whitening_set_relax_time(whitening, 100)
        aubio_spectral_whitening_set_floor(whitening, 1)
        self.fft = fft
        self.whitening = whitening
        self.flux = flux
        self.window = window
        self.grain = grain
        self.frame = frame
        self.weighted = weighted
        self.complexSpectrum = complexSpectrum
        self.output = output
        self.hopSize = hopSize
        self.bufferSize = bufferSize
    }

    deinit {
        del_aubio_fft(fft)
        del_aubio_spectral_whitening(whitening)
        del_aubio_specdesc(flux)
        del_fvec(window)
        del_cvec(grain)
    }

    /// The last hop's spectrum as the detection function saw it (whitened, log-compressed magnitudes,
    /// ``bufferSize`` / 2 + 1 bins), lent to `body`.
    func withSpectrum<Result>(_ body: (UnsafeBufferPointer<Float>) -> Result) -> Result {
        body(UnsafeBufferPointer(start: grain.pointee.norm, count: bufferSize / 2 + 1))
    }

    /// Analyses the next hop (``hopSize`` samples) and returns the detection function's value.
    public func process(_ samples: UnsafePointer<Float>) -> Float {
        // Slide the window by one hop and append the new samples (the phase vocoder's buffering).
        let data = frame.data
        let keep = bufferSize - hopSize
        if keep > 0 { data.update(from: data + hopSize, count: keep) }
        (data + keep).update(from: samples, count: hopSize)
        fvec_weighted_copy(frame.vector, window, weighted.vector)
        // Rotate by half a window so the frame's centre is at 0 (aubio's `fvec_shift`, for even sizes).
        let half = bufferSize / 2
        let values = weighted.data
        for index in 0..<half {
            let first = values[index]
            values[index] = values[index + half]
            values[index + half] = first
        }
        aubio_fft_do_complex(fft, weighted.vector, complexSpectrum.vector)
        aubio_fft_get_norm(complexSpectrum.vector, grain)
        aubio_spectral_whitening_do(whitening, grain)
        cvec_logmag(grain, Self.compression)
        aubio_specdesc_do(flux, grain, output.vector)
        return output.data[0]
    }
}
