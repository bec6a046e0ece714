// SPDX-License-Identifier: GPL-3.0-or-later

public import BeatMapKit
public import Foundation

/// The drum evidence of an analysed audio file, for `audio-misaligned`: the analyzer's learned kick
/// detector read at the beats asked about, as its drum check reads it
/// (``DrumDetector/pickupShift(of:frames:frameDuration:)``).
public struct AnalysisDrumEvidence: DrumEvidence {
    /// The detector's frames of the first five minutes.
    let frames: DrumFrames
    /// Seconds between frames (the onset envelope's hop).
    let frameDuration: Double

    /// Evidence from `analysis`.
    public init(_ analysis: AudioAnalysis) {
        frames = analysis.drums
        frameDuration = analysis.envelope.hopDuration
    }

    /// A quarter of a beat when the detector's kick puts `beats` on a pickup, as the drum check reads it.
    public func pickupShift(of beats: [TimeInterval]) -> Double? {
        var frames = frames
        return DrumDetector.pickupShift(of: beats, frames: &frames, frameDuration: frameDuration)
    }
}
