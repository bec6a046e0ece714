// SPDX-License-Identifier: GPL-3.0-or-later

import BeatAudio
public import BeatMapKit
public import Foundation

/// Reads the facts of an audio file and its onsets, for `audio-misaligned` (with its drum evidence),
/// `audio-offbeat`, `audio-metric-level` and `bar-phase` (its bar evidence): one aubio pass over the
/// decoded audio, which measures the duration as well.
public struct OnsetAudioInspector: AudioInspector {
    /// An inspector.
    public init() {}

    public func inspect(_ url: URL, computeHash: Bool) throws -> AudioFacts {
        var settings = AudioAnalysisSettings()
        settings.minimumDuration = 0
        settings.silenceDecibels = -.infinity
        let analysis: AudioAnalysis
        do {
            analysis = try AudioAnalyzer(settings: settings).analyze(url)
        } catch .decode(let error) {
            throw error
        }
        let hash = computeHash ? try FileDigest.sha256Hex(ofFileAt: url) : nil
        return Self.facts(of: analysis, sha256: hash)
    }

    /// The facts an analysis pass measured: duration, sample rate, the onsets with their strengths, and
    /// the bar and drum evidence.
    /// (A function of its own: more locals after `inspect`'s typed `catch` crash Swift 6.3.1's SILGen.)
    static func facts(of analysis: AudioAnalysis, sha256: String?) -> AudioFacts {
        let peaks = analysis.envelope.peaks()
        // One box of the drum detector's frames for both: each frame computed once.
        let drums = SharedDrumFrames(analysis.drums)
        return AudioFacts(
            duration: analysis.duration, sampleRate: analysis.sampleRate, sha256: sha256,
            onsets: peaks.map(\.time), onsetStrengths: peaks.map(\.strength),
            barEvidence: AnalysisBarEvidence(analysis, drums: drums),
            drumEvidence: AnalysisDrumEvidence(analysis, frames: drums))
    }
}
