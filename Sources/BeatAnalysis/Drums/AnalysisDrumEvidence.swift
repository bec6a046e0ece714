// SPDX-License-Identifier: GPL-3.0-or-later

public import BeatMapKit
public import Foundation

/// The drum evidence of an analysed audio file, for `audio-misaligned`, `audio-offbeat` and
/// `audio-metric-level`: the analyzer's learned kick and snare detector read at the beats asked about,
/// as its drum check reads it (``DrumDetector/pickupShift(of:frames:frameDuration:distance:)``,
/// ``DrumDetector/betterShift(of:frames:frameDuration:phaseUnchosen:)``,
/// ``DrumDetector/oneInFourOrFewer(_:)``).
public struct AnalysisDrumEvidence: DrumEvidence {
    /// The detector's frames of the first five minutes, shared by every copy of this evidence, so
    /// that a frame the detector computed for one question is not computed again for the next (the
    /// analyzer's own audio check asks both rules, then asks again after a fix).
    private let frames: SharedDrumFrames
    /// Seconds between frames (the onset envelope's hop).
    let frameDuration: Double

    /// Evidence from `analysis`.
    public init(_ analysis: AudioAnalysis) {
        self.init(analysis, frames: SharedDrumFrames(analysis.drums))
    }

    /// Evidence from `analysis`, whose detector frames are `frames` (shared with whoever else reads them).
    init(_ analysis: AudioAnalysis, frames: SharedDrumFrames) {
        self.frames = frames
        frameDuration = analysis.envelope.hopDuration
    }

    /// A quarter of a beat when the detector's kick puts `beats` on a pickup, as the drum check reads it.
    public func pickupShift(of beats: [TimeInterval]) -> Double? {
        frames.reading { DrumDetector.pickupShift(of: beats, frames: &$0, frameDuration: frameDuration) }
    }

    /// The drum check's shift of `beats` (⅓, ½ or ⅔ of a beat, where the kick and snare sit clearly
    /// more than on the beats), as it reads the analyzer's own beats.
    public func drumShift(of beats: [TimeInterval]) -> Double? {
        frames.reading { DrumDetector.betterShift(of: beats, frames: &$0, frameDuration: frameDuration) }
    }

    /// Whether the detector's snare falls on one beat in four of `beats`, as the analyzer reads it
    /// before halving a grid (``DrumDetector/oneInFourOrFewer(_:)``: on one beat of each four, or on
    /// every other beat of one parity, section by section).
    public func snareOnOneInFour(of beats: [TimeInterval]) -> Bool {
        frames.reading {
            DrumDetector.oneInFourOrFewer(DrumDetector.snares(of: beats, frames: &$0, frameDuration: frameDuration))
                != nil
        }
    }
}

/// ``DrumFrames`` read under a lock by whoever holds this box, each frame computed once for all of them.
///
/// `@unchecked Sendable` is safe: `frames` is only read or written inside `reading`, while `lock` is
/// held, and nothing else is stored.
final class SharedDrumFrames: @unchecked Sendable {
    private let lock = NSLock()
    private var frames: DrumFrames

    /// A box holding `frames`.
    init(_ frames: DrumFrames) {
        self.frames = frames
    }

    /// `body`'s result on the frames, which it may fill in as it reads them.
    func reading<Result>(_ body: (inout DrumFrames) -> Result) -> Result {
        lock.withLock { body(&frames) }
    }
}
