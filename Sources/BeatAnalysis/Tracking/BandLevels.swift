// SPDX-License-Identifier: GPL-3.0-or-later

import Foundation

/// The level of eight frequency bands, frame by frame, accumulated during the streaming pass from the
/// spectrum the onset detection already computes (no FFT of its own): what a beat sounds like, band by
/// band, where the broadband onset curve sums every band into one number.
///
/// The bands are log-spaced from ``lowestFrequency`` to ``highestFrequency`` (about 1.3 octaves
/// each). A band's level is the mean of its bins' whitened, log-compressed magnitudes over a frame of
/// ``hopsPerFrame`` hops (23 ms), kept as a byte in steps of ``step``. The first ``span`` seconds are
/// kept: 8 bytes per frame, 0.2 MB for ten minutes whatever the file's length (as floats, an hour's
/// analysis went 0.3 MB over its 64 MB).
struct BandLevels: Sendable {
    /// Bands.
    static let bandCount = 8
    /// Hops averaged into one frame.
    static let hopsPerFrame = 2
    /// Lower edge of the lowest band, in Hz.
    static let lowestFrequency = 30.0
    /// Upper edge of the highest band, in Hz.
    static let highestFrequency = 11_000.0
    /// Seconds of audio kept at most.
    static let span = 600.0
    /// The level one step of a stored byte stands for. The detection function's magnitudes are
    /// whitened to at most 1 and compressed as `log(1 + 10 x)`, so a level lies between 0 and
    /// `log 11` ≈ 2.40: 255 steps of 0.0095, far finer than a beat's rise.
    static let step: Float = 2.4 / 255

    /// ``bandCount`` levels per finished frame, in ``step``s.
    private(set) var values: [UInt8] = []
    /// The band of each bin from ``firstBin`` on, up to ``highestFrequency``.
    private let bandOfBin: [Int]
    private let firstBin: Int
    private let binsPerBand: [Float]
    private let frameCap: Int
    private var current = [Float](repeating: 0, count: BandLevels.bandCount)
    private var hops = 0

    /// Levels for spectra of `frame`'s window.
    init(frame: AnalysisFrame, expectedHops: Int) {
        let binWidth = Double(frame.sampleRate) / Double(frame.bufferSize)
        let last = frame.bufferSize / 2
        let ratio = pow(Self.highestFrequency / Self.lowestFrequency, 1 / Double(Self.bandCount))
        var bands: [Int] = []
        var counts = [Float](repeating: 0, count: Self.bandCount)
        let first = max(1, Int((Self.lowestFrequency / binWidth).rounded(.up)))
        if first <= last {
            for bin in first...last {
                let frequency = Double(bin) * binWidth
                guard frequency < Self.highestFrequency else { break }
                let band = min(Self.bandCount - 1, Int(log(frequency / Self.lowestFrequency) / log(ratio)))
                bands.append(band)
                counts[band] += 1
            }
        }
        bandOfBin = bands
        firstBin = first
        binsPerBand = counts.map { max(1, $0) * Float(Self.hopsPerFrame) }
        frameCap = Int(Self.span / (frame.hopDuration * Double(Self.hopsPerFrame)))
        values.reserveCapacity(Self.bandCount * min(frameCap, expectedHops / Self.hopsPerFrame + 1))
    }

    /// Adds one hop's magnitudes.
    mutating func add(_ spectrum: UnsafeBufferPointer<Float>) {
        guard values.count < frameCap * Self.bandCount, let base = spectrum.baseAddress,
            firstBin + bandOfBin.count <= spectrum.count
        else { return }
        current.withUnsafeMutableBufferPointer { sums in
            bandOfBin.withUnsafeBufferPointer { bands in
                var bin = firstBin
                for band in bands {
                    sums[band] += base[bin]
                    bin += 1
                }
            }
        }
        hops += 1
        if hops == Self.hopsPerFrame {
            for band in 0..<Self.bandCount {
                let level = (current[band] / binsPerBand[band] / Self.step).rounded()
                values.append(UInt8(min(255, max(0, level))))
                current[band] = 0
            }
            hops = 0
        }
    }
}

/// Per band, how much its level rises at a time: the sound of a beat, band by band, read from
/// ``BandLevels``' frames (the rises are computed where they are read, so nothing the size of the
/// levels is made again).
struct BandRises: Sendable {
    /// Levels per frame and band (`frame * bandCount + band`), in ``BandLevels/step``s.
    let levels: [UInt8]
    /// Seconds per frame.
    let frameDuration: Double
    /// Time of frame 0's level.
    let startTime: Double

    /// The rises of `levels` (``BandLevels/values``), whose hops lie `hopDuration` apart with hop `i`'s
    /// onset value at `startTime + i × hopDuration` (the onset envelope's time axis); `nil` for fewer
    /// than two frames.
    init?(levels: [UInt8], hopDuration: Double, startTime: Double) {
        guard levels.count >= 2 * BandLevels.bandCount, hopDuration > 0 else { return nil }
        self.levels = levels
        frameDuration = hopDuration * Double(BandLevels.hopsPerFrame)
        // A frame's level is its hops' mean: it stands at the middle of its hops.
        self.startTime = startTime + 0.5 * hopDuration * Double(BandLevels.hopsPerFrame - 1)
    }

    /// Frames covered.
    var frameCount: Int { levels.count / BandLevels.bandCount }

    /// Seconds covered from `startTime`.
    var end: Double { startTime + Double(frameCount) * frameDuration }

    /// The rise of `band` at `frame` (at least 1): its level's increase from the frame before, or 0.
    func rise(_ band: Int, at frame: Int) -> Double {
        let bands = BandLevels.bandCount
        let step = Int(levels[frame * bands + band]) - Int(levels[(frame - 1) * bands + band])
        return Double(max(0, step)) * Double(BandLevels.step)
    }

    /// Per band, the strongest rise within a frame of `t`; `nil` outside the frames kept.
    func strongest(near t: Double) -> [Double]? {
        let centre = Int(((t - startTime) / frameDuration).rounded())
        guard centre >= 0, centre < frameCount else { return nil }
        var result = [Double](repeating: 0, count: BandLevels.bandCount)
        for frame in max(1, centre - 1)...max(1, min(frameCount - 1, centre + 1)) {
            for band in result.indices { result[band] = max(result[band], rise(band, at: frame)) }
        }
        return result
    }
}
