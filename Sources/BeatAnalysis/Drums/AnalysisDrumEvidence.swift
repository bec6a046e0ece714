// SPDX-License-Identifier: GPL-3.0-or-later

public import BeatMapKit
public import Foundation

/// The drum evidence of an analysed audio file, for `audio-misaligned` and `audio-offbeat`: the
/// analyzer's learned kick and snare detector read at the beats asked about, as its drum check reads
/// it (``DrumDetector/pickupShift(of:frames:frameDuration:)``,
/// ``DrumDetector/betterShift(of:frames:frameDuration:phaseUnchosen:)``).
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

    /// The drum check's shift of `beats` (⅓, ½ or ⅔ of a beat, where the kick and snare sit clearly
    /// more than on the beats), as it reads the analyzer's own beats.
    public func drumShift(of beats: [TimeInterval]) -> Double? {
        var frames = frames
        return DrumDetector.betterShift(of: beats, frames: &frames, frameDuration: frameDuration)
    }
}
