// SPDX-License-Identifier: GPL-3.0-or-later

public import BeatMapKit
public import Foundation

/// Reads the facts of an audio file with libsndfile for the validator's `audio-mismatch` rule: the
/// duration is measured by decoding every frame, because compressed headers can be wrong. (The onsets
/// that `audio-misaligned`, `audio-offbeat` and `audio-metric-level` need come from `BeatAnalysis`'s
/// `OnsetAudioInspector`, which runs aubio.)
public struct SndfileAudioInspector: AudioInspector {
    /// An inspector.
    public init() {}

    public func inspect(_ url: URL, computeHash: Bool) throws -> AudioFacts {
        let reader = try AudioFileReader(url: url)
        let frames = try reader.countRemainingFrames()
        guard frames > 0 else { throw AudioDecodeError.empty(path: url.path) }
        let hash = computeHash ? try FileDigest.sha256Hex(ofFileAt: url) : nil
        return AudioFacts(
            duration: Double(frames) / Double(reader.sampleRate), sampleRate: reader.sampleRate, sha256: hash)
    }

    /// The length of the audio file at `url` in seconds, measured by decoding it, or `nil` when it cannot
    /// be decoded or holds no frames (what an import uses for a file that does not store its duration).
    public static func measuredDuration(of url: URL) -> TimeInterval? {
        guard let reader = try? AudioFileReader(url: url), let frames = try? reader.countRemainingFrames(),
            frames > 0
        else { return nil }
        return Double(frames) / Double(reader.sampleRate)
    }
}
