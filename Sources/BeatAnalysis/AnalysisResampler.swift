// SPDX-License-Identifier: GPL-3.0-or-later

import BeatAudio

extension Resampler {
    /// The resampler that brings audio at `sampleRate` Hz to the analysis rate
    /// (``AnalysisFrame/analysisSampleRate``), or `nil` when it is at that rate already (libsoxr would
    /// pass the samples through unchanged).
    static func toAnalysisRate(from sampleRate: Int, quality: Quality) throws(ResamplerError) -> Resampler? {
        let target = AnalysisFrame.analysisSampleRate
        guard sampleRate != target else { return nil }
        return try Resampler(inputRate: Double(sampleRate), outputRate: Double(target), quality: quality)
    }
}
