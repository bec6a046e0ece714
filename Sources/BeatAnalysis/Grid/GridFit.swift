// SPDX-License-Identifier: GPL-3.0-or-later

public import BeatMapKit
import Foundation

/// How the beats of a map are laid out.
public enum GridMode: String, Sendable, CaseIterable {
    /// One tempo, or several segments when the music really changes tempo.
    case auto
    /// One tempo over the whole track.
    case constant
    /// Tempo segments wherever the local tempo changes (like `auto`, but reports every change found).
    case segments
    /// Beats that follow the music beat by beat, for music played without a click: each interval its
    /// own tempo segment.
    case follow
    /// aubio's own beats, delay-compensated, each interval its own tempo.
    case free
}

/// Settings of the grid fit.
public struct GridFitOptions: Sendable, Equatable {
    /// The layout.
    public var mode: GridMode = .auto
    /// A tempo to use instead of estimating one (constant grid).
    public var forcedBPM: Double?
    /// The slowest tempo the metric level may be set to (a hint).
    public var minimumBPM: Double = 60
    /// The fastest tempo the metric level may be set to (a hint).
    public var maximumBPM: Double = 200

    /// Default options.
    public init() {}
}

/// A metric level other than the chosen one, with the score it got.
public struct MetricAlternative: Sendable, Equatable {
    /// The level's tempo relative to the chosen level's (`×2`, `½`, `⅔` or `3⁄2` as its label).
    public var ratio: MetricLevel
    /// Its tempo in BPM (of the first segment).
    public var bpm: Double
    /// Its score (mean onset strength at its grid points over the mean onset strength).
    public var score: Double
}

/// One segment of a fitted grid.
public struct FittedSegment: Sendable, Equatable {
    /// The segment's tempo.
    public var bpm: Double
    /// Its first beat.
    public var firstBeat: Double
    /// Its beats.
    public var beats: [Double]
}

/// What the analysis made of the beats, for the map's provenance.
public enum FitMethod: String, Sendable, Equatable, CaseIterable {
    /// One grid.
    case gridConstant = "grid-constant"
    /// Grids with tempo changes between them.
    case gridSegments = "grid-segments"
    /// A tempo that changes steadily (a ramp): beats on one smooth tempo curve, each interval its own
    /// tempo segment.
    case ramp
    /// The tracked beats, followed one by one.
    case follow
    /// One grid at a tempo the user gave.
    case forcedBPM = "forced-bpm"
    /// aubio's own beats (`free`).
    case aubioTempo = "aubio-tempo"

    /// Whether the beats lie on grids (with a tempo and metric alternatives to report).
    public var isGrid: Bool { self != .follow && self != .ramp && self != .aubioTempo }
}

/// Why a map whose beats barely stand out from the rest of the audio was made all the same.
public struct WeakBeat: Sendable, Equatable {
    /// How clearly the tracked beats stand out: their mean onset novelty, each placed by its neighbours,
    /// over the music's mean (music usually 3.5 or more; noise about 1).
    public var salience: Double
    /// How much the onset novelty repeats one beat later: its autocorrelation at the beat, or, where
    /// one lag does not hold through the song (a drifting tempo), the same read beat by beat along the
    /// tracked beats (0…1; onsets at random times about 0).
    public var periodicity: Double

    /// A weak beat with its two readings.
    public init(salience: Double, periodicity: Double) {
        self.salience = salience
        self.periodicity = periodicity
    }
}

/// The result of fitting a grid to an onset envelope.
public struct GridFit: Sendable, Equatable {
    /// The segments in time order (one for a constant grid; one per beat interval for `free`).
    public var segments: [FittedSegment]
    /// All beats in time order.
    public var beats: [Double]
    /// The method, for the map's provenance.
    public var method: FitMethod
    /// Fraction of beats with an onset within 50 ms (0…1).
    public var confidence: Double
    /// The chosen level's score (see ``MetricAlternative/score``).
    public var score: Double
    /// Other metric levels of the first segment, best first.
    public var alternatives: [MetricAlternative]
    /// The first and last musical onset: the span the beats cover.
    public var span: ClosedRange<Double>

    /// Set when the tracked beats stood out less than music's usually do and the map was made because
    /// the onsets repeat one beat later (a dense mix whose every eighth is as loud as its beat).
    public var weakBeat: WeakBeat?

    /// Set when the audio changes less for its loudness than music does, though enough to be tracked (a
    /// drone, a held chord): its mean onset novelty over the span per unit of its RMS level, under
    /// ``GridFitter/steadySound``.
    public var steadySound: Double?

    /// Where the audio sounds, if it was read (``GridFitter/soundingSpan(_:hopDuration:readingNoise:risingWithin:)``:
    /// from where the rise of its first sound within 30 dB of the loud level begins, to its last such
    /// sound before any noise after the music): with ``span``, where step 7 lays a grid's first beat
    /// (``GridFitter/layoutStart(span:sounding:firstPeriod:)``), and where followed and ramped beats
    /// reach back to (``reachingTheStart()``).
    public var sounding: ClosedRange<Double>?

    /// Whether the map deserves a second look: under half its beats meet an onset, or its beats barely
    /// stand out from the rest of the audio, or the audio barely changes.
    public var isLowConfidence: Bool {
        method != .aubioTempo && (confidence < 0.5 || score < 3 || weakBeat != nil || steadySound != nil)
    }

    /// The fewest beats whose standing out (the tracker's salience, each beat placed by four neighbours
    /// either side) tells a beat from chance onsets: nine.
    public static let fewestSureBeats = 2 * GridFitter.salienceRadius + 1

    /// Whether the map has too few beats for its beat to be told from chance onsets
    /// (``fewestSureBeats``): a short clip, mapped all the same unless a tempo was given.
    public var hasFewBeats: Bool {
        method != .aubioTempo && method != .forcedBPM && beats.count < Self.fewestSureBeats
    }

    /// The tempo map of the fit.
    public var tempo: [TempoSegment] { segments.map { TempoSegment(time: $0.firstBeat, bpm: $0.bpm) } }
}

/// Why no grid could be fitted.
public enum GridFitError: Error, Sendable, Equatable {
    /// Too few onsets to find a beat.
    case tooFewOnsets(Int)
    /// No periodicity in the tempo range.
    case noPeriodicity
    /// The best grid's points are barely stronger than the rest of the audio.
    case noRegularBeat(score: Double)
    /// The tracker found `count` beats, too few (under five) to tell a beat from chance onsets.
    case tooFewBeats(count: Int)
    /// The audio barely changes for its loudness (a steady tone): its mean onset novelty is only
    /// `change` times its RMS level, under ``GridFitter/steadyTone``.
    case steadyTone(change: Double)
    /// `free` mode without aubio tracker beats, or too few of them.
    case tooFewTrackerBeats(Int)

    /// A sentence for users.
    public var reason: String {
        switch self {
        case .tooFewOnsets(let count): return "only \(count) onsets found; the audio has no regular beat"
        case .noPeriodicity: return "no periodicity between the tempo limits"
        case .noRegularBeat(let score):
            return
                "no regular beat: the beats a tracker finds stand out only \(String(format: "%.1f", score))× from the rest of the audio (noise, a drone or speech?)"
        case .tooFewBeats(let count):
            return
                "the audio is too short to tell a beat from chance onsets: a tracker finds \(count) beat\(count == 1 ? "" : "s"), and at least \(GridFitter.fewestScoredBeats) are needed"
        case .steadyTone(let change):
            return
                "no regular beat: the audio barely changes (its onset novelty is only \(String(format: "%.2f", change))× its level; a steady tone or a drone?)"
        case .tooFewTrackerBeats(let count): return "aubio's beat tracker found only \(count) beats"
        }
    }
}
