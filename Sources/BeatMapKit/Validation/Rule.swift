// SPDX-License-Identifier: GPL-3.0-or-later

public import Foundation

/// A rule's identity, documentation and the examples that are its tests.
public struct RuleDescription: Sendable {
    /// Stable id used in output, flags and configuration files, e.g. `off-grid`.
    public var id: String
    /// Severity when not configured otherwise.
    public var defaultSeverity: Severity
    /// One line saying what the rule finds.
    public var summary: String
    /// Maps the rule must report (each with the beat indices it must report, where given).
    public var triggeringExamples: [RuleExample]
    /// Maps the rule must not report.
    public var nonTriggeringExamples: [RuleExample]
    /// Whether the rule needs the audio's onsets (``AudioFacts/onsets``), which only an inspector that
    /// detects them provides: without them it stays silent.
    public var needsOnsets: Bool

    /// A description.
    public init(
        id: String, defaultSeverity: Severity, summary: String, needsOnsets: Bool = false,
        triggeringExamples: [RuleExample], nonTriggeringExamples: [RuleExample]
    ) {
        self.id = id
        self.defaultSeverity = defaultSeverity
        self.summary = summary
        self.triggeringExamples = triggeringExamples
        self.nonTriggeringExamples = nonTriggeringExamples
        self.needsOnsets = needsOnsets
    }
}

/// A map text used as a rule example, with the settings and audio facts it is checked under.
public struct RuleExample: Sendable {
    /// The map file's text.
    public var text: String
    /// Settings for this example.
    public var configuration: ValidationConfiguration
    /// What the map's audio file turns out to be, for rules that compare the map with its audio.
    public var audio: AudioFacts?
    /// For triggering examples: the beat indices the rule must report, in order (`nil`: not checked).
    public var beatIndices: [Int]?

    /// An example map text.
    public init(
        _ text: String, configuration: ValidationConfiguration = ValidationConfiguration(), audio: AudioFacts? = nil,
        beatIndices: [Int]? = nil
    ) {
        self.text = text
        self.configuration = configuration
        self.audio = audio
        self.beatIndices = beatIndices
    }

    /// A map with `beats` (written as given), an optional `tempo` array text and a duration.
    public static func map(
        beats: String, tempo: String? = nil, duration: String = "8.0", extraAudio: String = "",
        configuration: ValidationConfiguration = ValidationConfiguration(), audio: AudioFacts? = nil,
        beatIndices: [Int]? = nil
    ) -> RuleExample {
        let tempoText = tempo.map { ",\n  \"tempo\": \($0)" } ?? ""
        let text = """
            {
              "version": 1,
              "audio": { "duration": \(duration)\(extraAudio) }\(tempoText),
              "beats": \(beats)
            }
            """
        return RuleExample(text, configuration: configuration, audio: audio, beatIndices: beatIndices)
    }
}

/// Something that has a rule description (every rule, including the two that the reader applies).
public protocol DescribedRule {
    /// The rule's description and examples.
    static var description: RuleDescription { get }
}

/// What a content rule found, before the validator stamps the rule id and severity on it.
public struct Violation: Sendable, Equatable {
    /// What is wrong.
    public var message: String
    /// Where.
    public var location: SourceLocation
    /// The beat concerned, if any.
    public var beatIndex: Int?
    /// The beat's time, if any.
    public var time: Double?
    /// How many violations this one stands for (more than 1 only for a summary of those not listed).
    public var count: Int
    /// The edit that fixes it, when one does (the map's beats half a beat later, another metric level, a
    /// nudge): ``BeatMapEditor`` makes it.
    public var fix: BeatMapEdit?

    /// A violation at `location`, fixed by `fix` when one is given.
    public init(
        _ message: String, at location: SourceLocation, beatIndex: Int? = nil, time: Double? = nil, count: Int = 1,
        fix: BeatMapEdit? = nil
    ) {
        self.message = message
        self.location = location
        self.beatIndex = beatIndex
        self.time = time
        self.count = count
        self.fix = fix
    }
}

/// Where a rule reports its violations. It keeps the first `limit` and only counts the rest, without
/// building them: a hostile map of a million identical beats costs a counter, not a million messages.
public struct ViolationSink {
    /// Violations kept at most (`nil`: all).
    public let limit: Int?
    /// The violations kept, in the order reported.
    public private(set) var violations: [Violation] = []
    /// How many were reported beyond the limit.
    public private(set) var omitted = 0
    /// The first violation beyond the limit (where the summary of the omitted ones points).
    public private(set) var firstOmitted: Violation?

    /// A sink keeping at most `limit` violations (`nil`: all).
    public init(limit: Int? = nil) {
        self.limit = limit.map { max(0, $0) }
    }

    /// Reports a violation standing for `count` violations; `violation` is only evaluated if it is
    /// kept or is the first omitted.
    public mutating func report(_ violation: @autoclosure () -> Violation, count: Int = 1) {
        if let limit, violations.count >= limit {
            if omitted == 0 { firstOmitted = violation() }
            omitted += count
        } else {
            var kept = violation()
            kept.count = count
            violations.append(kept)
        }
    }
}

/// A rule that checks a decoded map.
public protocol ValidationRule: DescribedRule, Sendable {
    /// Creates the rule.
    init()
    /// Reports the rule's violations in `context` to `sink`, in file order.
    func check(_ context: ValidationContext, into sink: inout ViolationSink)
    /// Why the rule cannot check `context` (so it reports nothing, and a report must not count it as
    /// passed), or `nil` when it can. By default a rule can always check.
    func skipReason(in context: ValidationContext) -> SkipReason?
}

extension ValidationRule {
    /// A rule can check every map unless it says otherwise.
    public func skipReason(in context: ValidationContext) -> SkipReason? { nil }
}

extension ValidationRule {
    /// All of the rule's violations in `context`, in file order.
    public func violations(in context: ValidationContext) -> [Violation] {
        var sink = ViolationSink()
        check(context, into: &sink)
        return sink.violations
    }
}

/// What the audio file referenced by a map turned out to be.
public struct AudioFacts: Sendable, Equatable {
    /// Duration in seconds (frames actually decoded / sample rate).
    public var duration: TimeInterval
    /// Sample rate in Hz.
    public var sampleRate: Int
    /// SHA-256 of the file's bytes, when it was computed.
    public var sha256: String?
    /// Onset times in seconds, when they were computed (for `audio-misaligned`).
    public var onsets: [Double]?
    /// The onsets' strengths (the onset detection function's value at each), parallel to ``onsets``,
    /// when they were computed (for `audio-offbeat` and `audio-metric-level`). Only their ratios
    /// matter; the scale is the detector's.
    public var onsetStrengths: [Double]?
    /// Where the audio says bars start, for any beats (for `bar-phase`), when it was computed.
    public var barEvidence: (any BarPhaseEvidence)?
    /// What the audio's drums say about any beats (for `audio-misaligned` and `audio-offbeat`), when it
    /// was computed.
    public var drumEvidence: (any DrumEvidence)?

    /// Facts about an audio file.
    public init(
        duration: TimeInterval, sampleRate: Int, sha256: String? = nil, onsets: [Double]? = nil,
        onsetStrengths: [Double]? = nil, barEvidence: (any BarPhaseEvidence)? = nil,
        drumEvidence: (any DrumEvidence)? = nil
    ) {
        self.duration = duration
        self.sampleRate = sampleRate
        self.sha256 = sha256
        self.onsets = onsets
        self.onsetStrengths = onsetStrengths
        self.barEvidence = barEvidence
        self.drumEvidence = drumEvidence
    }

    /// Equal facts: the same measurements, and bar and drum evidence each on both sides or on neither
    /// (evidence is a computation, not a value to compare).
    public static func == (lhs: AudioFacts, rhs: AudioFacts) -> Bool {
        lhs.duration == rhs.duration && lhs.sampleRate == rhs.sampleRate && lhs.sha256 == rhs.sha256
            && lhs.onsets == rhs.onsets && lhs.onsetStrengths == rhs.onsetStrengths
            && (lhs.barEvidence == nil) == (rhs.barEvidence == nil)
            && (lhs.drumEvidence == nil) == (rhs.drumEvidence == nil)
    }
}

/// Reads the facts of an audio file. `BeatAnalysis` provides one backed by libsndfile; the core
/// library stays free of C dependencies.
public protocol AudioInspector: Sendable {
    /// The facts of the audio file at `url`; the hash only when `computeHash`.
    func inspect(_ url: URL, computeHash: Bool) throws -> AudioFacts
}

/// The state of the audio check for one map.
public enum AudioCheck: Sendable, Equatable {
    /// The audio was not looked at (audio checks are off, there is no inspector, or the map has no file
    /// to locate its audio from), and why (`""` when nothing needs saying).
    case skipped(String)
    /// The map names no audio file (`audio.path` is absent).
    case unnamed
    /// The file `audio.path` names does not exist (the path as the map writes it): in CI the audio is
    /// often not checked out.
    case missing(String)
    /// The audio was read.
    case facts(AudioFacts)
    /// The audio file exists but could not be read.
    case unreadable(String)
}

/// Everything a content rule sees.
public struct ValidationContext: Sendable {
    /// The decoded map.
    public let map: BeatMap
    /// Where its parts are written.
    public let source: BeatMapSourceMap
    /// The settings in force.
    public let configuration: ValidationConfiguration
    /// The tempo grid: the map's own valid segments, or one tempo inferred from its intervals.
    public let grid: TempoGrid?
    /// Whether ``grid`` was inferred because the map has no tempo.
    public let gridIsInferred: Bool
    /// What became of the audio check.
    public let audio: AudioCheck

    /// A context for `map`.
    public init(map: BeatMap, source: BeatMapSourceMap, configuration: ValidationConfiguration, audio: AudioCheck) {
        self.map = map
        self.source = source
        self.configuration = configuration
        self.audio = audio
        let usable = (map.tempo ?? []).filter {
            $0.time.isFinite && $0.bpm.isFinite && $0.bpm >= TempoLimits.minimumBPM && $0.bpm <= TempoLimits.maximumBPM
        }
        if let tempo = map.tempo, !tempo.isEmpty {
            grid = usable.count == tempo.count ? TempoGrid(segments: usable) : nil
            gridIsInferred = false
        } else if let inferred = TempoGrid.inferTempo(from: map.beats), inferred.bpm.isFinite {
            grid = TempoGrid(segments: [inferred])
            gridIsInferred = true
        } else {
            grid = nil
            gridIsInferred = false
        }
    }

    /// Whether `time` lies inside the audio, `0…audio.duration`; beats outside it are `out-of-duration`'s
    /// alone, so the rules that measure beats against the grid or each other leave them out.
    public func isInsideAudio(_ time: Double) -> Bool { time >= 0 && time <= map.audio.duration }

    /// Why the audio's facts are not known, or `nil` when they are.
    public var audioSkipReason: SkipReason? {
        switch audio {
        case .facts: return nil
        case .skipped: return .audioNotChecked
        case .unnamed: return .noAudioPath
        case .missing(let path): return .audioMissing(path: path)
        case .unreadable: return .audioUnreadable
        }
    }

    /// Runs `body` over each step forward in time: `index` is a beat later than every beat listed before
    /// it and `previous` the latest of those. Steps across a non-finite beat are skipped (that beat's
    /// time is unknown), and so are beats out of order, so one misplaced beat is reported by
    /// `non-monotonic` alone rather than also as a gap or an overlap.
    /// With `insideAudioOnly`, beats outside the audio are left out as if absent.
    public func forEachStepForward(insideAudioOnly: Bool = false, _ body: (_ previous: Int, _ index: Int) -> Void) {
        var latest: Int?
        var sawNonFinite = false
        for index in map.beats.indices {
            let beat = map.beats[index]
            if insideAudioOnly && beat.isFinite && !isInsideAudio(beat) { continue }
            guard beat.isFinite else {
                sawNonFinite = true
                continue
            }
            guard let last = latest else {
                latest = index
                continue
            }
            if beat > map.beats[last] {
                if !sawNonFinite { body(last, index) }
                latest = index
                sawNonFinite = false
            }
        }
    }

    /// Runs `body` over each pair of consecutive finite beats `(i − 1, i)`, skipping non-finite ones.
    public func forEachFiniteInterval(_ body: (_ previous: Int, _ index: Int) -> Void) {
        var previous: Int?
        for index in map.beats.indices where map.beats[index].isFinite {
            if let previous { body(previous, index) }
            previous = index
        }
    }
}

/// The tempo range accepted by `invalid-tempo`.
public enum TempoLimits {
    /// Slowest accepted tempo.
    public static let minimumBPM = 20.0
    /// Fastest accepted tempo.
    public static let maximumBPM = 400.0
}

/// Text helpers shared by rule messages.
enum Describe {
    /// `beat 21` for `beats[20]`: people count beats from 1 (as `beatmap preview` does); the 0-based index
    /// is kept in ``Finding/beatIndex`` and the JSON reports.
    static func beat(_ index: Int) -> String { "beat \(index + 1)" }
    /// `tempo segment 2` for `tempo[1]`, counted from 1 like beats.
    static func segment(_ index: Int) -> String { "tempo segment \(index + 1)" }
    /// `1.234567 s`.
    static func seconds(_ value: Double) -> String { NumberFormatting.decimal(value) + " s" }
    /// `+12.3 ms`.
    static func milliseconds(_ value: Double, signed: Bool = false) -> String {
        let ms = (value * 10_000).rounded() / 10
        let text = String(format: "%.1f", abs(ms)) + " ms"
        guard signed else { return text }
        return (ms < 0 ? "-" : "+") + text
    }
    /// `120 BPM` or `127.5 BPM`.
    static func bpm(_ value: Double) -> String {
        let rounded = (value * 1000).rounded() / 1000
        // Whole numbers print without a fraction; huge values (a hostile file's 1e300) must not reach Int().
        let whole = abs(rounded) < 1e15 && rounded == rounded.rounded()
        return (whole ? String(Int(rounded)) : NumberFormatting.decimal(rounded)) + " BPM"
    }
}
