// SPDX-License-Identifier: GPL-3.0-or-later

import BeatAudio
public import BeatMapKit
public import Foundation

/// Settings of ``BeatMapAnalyzer``.
public struct BeatMapAnalysisOptions: Sendable, Equatable {
    /// The grid fit.
    public var grid = GridFitOptions()
    /// Whether `audio.sha256` is computed.
    public var computeHash = true
    /// Whether one file's work is spread over helper threads: decoding a few blocks ahead on one and
    /// hashing the file on another, while the calling thread runs aubio. That makes one file finish
    /// sooner on a machine with idle cores; a batch that already runs a file per core turns it off,
    /// because there the helpers only add thread switches.
    public var helperThreads = true
    /// The beats per bar to write instead of estimating the meter (the bar phase is still estimated,
    /// and written however unsure), or `nil` to estimate both.
    public var beatsPerBar: Int?

    /// Default options.
    public init() {}
}

/// A map made from an audio file, with the fit behind it.
public struct AnalyzedBeatMap: Sendable {
    /// The map.
    public var map: BeatMap
    /// The fitted grid.
    public var fit: GridFit
    /// The streaming pass's results (envelope, tracker beats).
    public var analysis: AudioAnalysis
    /// What the user should know about the map (it is written all the same).
    public var warnings: [AnalysisWarning] = []
}

/// Something about a written map that deserves a second look.
public enum AnalysisWarning: Sendable, Equatable, CustomStringConvertible {
    /// Few of the map's beats meet an onset, or the beats barely stand out from the rest of the audio:
    /// the map may be at the wrong tempo or phase.
    case lowConfidence(confidence: Double, score: Double)
    /// The beats stand out from the rest of the audio less than music's usually do (`salience`), but
    /// the onsets repeat one beat later (`periodicity`, their autocorrelation at the beat): a dense mix
    /// is mapped, but the map may be at the wrong tempo or phase.
    case weakBeat(salience: Double, periodicity: Double)
    /// The audio changes less for its loudness than music does (`change`: its mean onset novelty per unit
    /// of its RMS level): a drone or a held chord may be mapped at a tempo it does not have.
    case steadySound(change: Double)
    /// The audio holds too few beats (`count`, under ``GridFit/fewestSureBeats``) for their standing
    /// out to tell a beat from chance onsets: a short jingle is mapped, but so might a few seconds of
    /// speech or applause be.
    case fewBeats(count: Int, seconds: Double)
    /// The file's two channels cancel each other in their mean (one is the other in opposite polarity),
    /// so it was analysed as their difference (``AudioAnalysis/secondChannelInverted``). A player that
    /// mixes it to mono plays next to nothing.
    case channelsCancel
    /// Checked against its own onsets as the validator's audio rules check a map, the map draws a
    /// finding of rule `ruleID` (`message`), whose fix is `fix`. The map is written as analysed.
    case audioFinding(ruleID: String, message: String, fix: BeatMapEdit)
    /// Checked against its own onsets, the fitted beats drew a finding of rule `ruleID` whose fix, `fix`,
    /// clears it: the map is written with the fix made.
    case audioFixTaken(ruleID: String, fix: BeatMapEdit)

    /// A sentence for users.
    public var description: String {
        switch self {
        case .lowConfidence(let confidence, let score):
            return
                "low confidence (\(String(format: "%.2f", confidence)) of the beats meet an onset; score \(String(format: "%.1f", score))): listen to the map before using it"
        case .weakBeat(let salience, let periodicity):
            return
                "low confidence: the beats stand out only \(String(format: "%.1f", salience))× from the rest of the audio (music usually \(String(format: "%.1f", GridFitter.minimumSalience))× or more), but the onsets repeat every beat (autocorrelation \(String(format: "%.2f", periodicity))): listen to the map before using it"
        case .steadySound(let change):
            return
                "low confidence: the audio barely changes for its loudness (its onset novelty is \(String(format: "%.1f", change))× its level; music's is \(String(format: "%.0f", GridFitter.steadySound))× or more): a drone or a held chord? listen to the map before using it"
        case .fewBeats(let count, let seconds):
            return
                "only \(count) beats in \(String(format: "%.1f", seconds)) s: too few to tell a beat from chance onsets; listen to the map before using it"
        case .channelsCancel:
            return
                "the two channels cancel each other (one is in opposite polarity): analysed as their difference; mixed to mono, the file is all but silent"
        case .audioFixTaken(let ruleID, let fix):
            return
                "checked against its own onsets, the fitted beats drew [\(ruleID)], so the map is written with its fix made (\(fix.summary)): listen to it"
        case .audioFinding(let ruleID, let message, let fix):
            return
                "checked against its own onsets: [\(ruleID)] \(message). The map is written as analysed: listen to it; `beatmap edit` or the validator makes the fix (\(fix.summary))"
        }
    }
}

/// Makes a beat map from an audio file: one streaming pass of aubio over the decoded audio, then a
/// grid fit. Everything it records depends only on the audio and the options, so the same input gives
/// the same map, byte for byte.
public struct BeatMapAnalyzer: Sendable {
    /// The options.
    public var options: BeatMapAnalysisOptions

    /// An analyzer with `options`.
    public init(options: BeatMapAnalysisOptions = BeatMapAnalysisOptions()) {
        self.options = options
    }

    /// Analyses `audioURL` for a map that will be written to `mapURL` (the audio path is recorded
    /// relative to the map's folder). `progress` receives the fraction decoded.
    public func analyze(_ audioURL: URL, mapURL: URL, progress: (@Sendable (Double) -> Void)? = nil)
        throws(AnalysisError)
        -> AnalyzedBeatMap
    {
        if let bpm = options.grid.forcedBPM, !(bpm >= TempoLimits.minimumBPM && bpm <= TempoLimits.maximumBPM) {
            throw .forcedTempoOutOfRange(bpm: bpm)
        }
        // With helper threads, the file's SHA-256 is computed on another thread while the audio is
        // decoded and analysed; without, after the analysis, on this thread.
        let hashing = options.computeHash && options.helperThreads ? BackgroundHash(of: audioURL) : nil
        defer { hashing?.wait() }
        var settings = AudioAnalysisSettings()
        settings.runTracker = options.grid.mode == .free
        settings.decodeAhead = options.helperThreads
        var analysis = try AudioAnalyzer(settings: settings).analyze(audioURL, progress: progress)
        // The drum detector's frames, computed as the drum check, the audio check and the bars read
        // them, each once. The box is their only owner, so computing one does not copy them all.
        let drums = SharedDrumFrames(analysis.drums)
        analysis.drums = DrumFrames()
        var fit: GridFit
        do {
            fit = try GridFitter(options: options.grid).fit(
                analysis.envelope, duration: analysis.duration, trackerBeats: analysis.trackerBeats,
                levels: analysis.levels, lowLevels: analysis.lowLevels, blockLevels: analysis.blockLevels,
                blockDuration: analysis.blockDuration, bandLevels: analysis.bandLevels, sharedDrums: drums,
                chroma: analysis.chroma)
        } catch {
            throw .noBeat(path: audioURL.path, error)
        }
        var sha: String?
        if options.computeHash {
            let result: Result<String, any Error>?
            if let hashing {
                hashing.wait()
                result = hashing.result
            } else {
                result = Result { try FileDigest.sha256Hex(ofFileAt: audioURL) }
            }
            switch result {
            case .success(let hex): sha = hex
            case .failure(let error):
                throw .decode(.readFailed(path: audioURL.path, reason: error.localizedDescription))
            case nil: break
            }
        }
        let audio = AudioReference(
            path: RelativePath.from(folder: mapURL.deletingLastPathComponent(), to: audioURL),
            duration: analysis.duration,
            sampleRate: analysis.sampleRate, sha256: sha)
        // The onsets as the validator's audio rules read them, for the fixes and the warnings below.
        let onsets = Self.onsetFacts(analysis, drums: drums)
        var taken: [MadeFix] = []
        if options.grid.mode != .free, options.grid.forcedBPM == nil {
            (fit, taken) = Self.takingFixes(fit, onsets: onsets, audio: audio, path: audioURL.path)
        }
        // The meter and bar phase, over the fitted beats.
        var bars = Self.bars(fit, analysis: analysis, forced: options.beatsPerBar, drums: drums)
        // Followed and ramped beats reach back to where the music starts, as a grid's do (step 7),
        // once the audio check and the bars have read the beats the tracker found.
        let reach = fit.reachingTheStart()
        fit = reach.fit
        bars = bars?.withBeatsBefore(reach.added)
        var provenance = provenance(analysis, fit)
        if let bars, case .object(var object) = provenance {
            object["bars"] = BarLayout.provenance(bars)
            provenance = .object(object)
        }
        let tempo = bars.map { BarLayout.tempo(fit.segments, bars: $0) } ?? fit.tempo
        if !taken.isEmpty, case .object(var object) = provenance {
            object["audioFixes"] = .array(taken.map { .string("\($0.ruleID): \($0.edit.summary)") })
            provenance = .object(object)
        }
        let map = BeatMap(audio: audio, tempo: tempo, beats: fit.beats, analysis: provenance)
        try Self.check(map, path: audioURL.path)
        var warnings: [AnalysisWarning] = []
        if let weak = fit.weakBeat {
            warnings.append(.weakBeat(salience: weak.salience, periodicity: weak.periodicity))
        } else if let change = fit.steadySound {
            warnings.append(.steadySound(change: change))
        } else if fit.isLowConfidence {
            warnings.append(.lowConfidence(confidence: fit.confidence, score: fit.score))
        }
        if fit.hasFewBeats { warnings.append(.fewBeats(count: fit.beats.count, seconds: analysis.duration)) }
        if analysis.secondChannelInverted { warnings.append(.channelsCancel) }
        warnings += taken.map { .audioFixTaken(ruleID: $0.ruleID, fix: $0.edit) }
        warnings += Self.audioFindings(map, onsets: onsets, path: audioURL.path)
        // The frames go back to the analysis the caller gets, as far as they were computed.
        analysis.drums = drums.reading { $0 }
        return AnalyzedBeatMap(map: map, fit: fit, analysis: analysis, warnings: warnings)
    }

    /// The bars of `fit`: estimated, or in bars of `forced` beats at the likeliest phase (the first beat
    /// when there are too few beats to tell).
    static func bars(_ fit: GridFit, analysis: AudioAnalysis, forced: Int?, drums: SharedDrumFrames? = nil)
        -> BarEstimate?
    {
        guard let forced else {
            return BarLayout.estimate(
                fit, analysis: analysis, meters: MeterEstimator.prior.map(\.beatsPerBar), drums: drums)
        }
        guard !fit.beats.isEmpty else { return nil }
        return BarLayout.estimate(fit, analysis: analysis, meters: [forced], drums: drums)
            ?? BarEstimate(beatsPerBar: forced, firstDownbeat: 0, phaseConfidence: 0, meterConfidence: 1)
    }

    /// Checks `map` as written against the validator with its default settings: the analyzer never
    /// hands out a map that `beatmap validate` rejects. One that would be rejected is an internal error.
    static func check(_ map: BeatMap, path: String) throws(AnalysisError) {
        let text: String
        do { text = try BeatMapCodec.encode(map) } catch {
            throw .internalError(path: path, findings: [error.localizedDescription])
        }
        let facts = AudioFacts(
            duration: map.audio.duration, sampleRate: map.audio.sampleRate ?? 0, sha256: map.audio.sha256)
        let report = Validator().validate(bytes: Array(text.utf8), path: path, audio: facts)
        let errors = report.findings.filter { $0.severity == .error }
        guard errors.isEmpty else {
            throw .internalError(path: path, findings: errors.prefix(3).map { "[\($0.ruleID)] \($0.message)" })
        }
    }

    /// The rules that check a map's beats against its audio's onsets and name a fix for what they find.
    static let audioRules: Set<String> = [
        AudioMetricLevelRule.description.id, AudioOffbeatRule.description.id, AudioMisalignedRule.description.id,
    ]

    /// What the validator's audio rules find in `map` against the onsets the analysis itself detected,
    /// as warnings: the map should not draw a finding of the check `beatmap validate` makes of it with
    /// its audio (`bar-phase` reads the evidence the bars were laid out by, so it is not asked).
    static func audioFindings(_ map: BeatMap, onsets facts: AudioFacts, path: String) -> [AnalysisWarning] {
        guard let text = try? BeatMapCodec.encode(map) else { return [] }
        var configuration = ValidationConfiguration()
        configuration.disabledRules = Set(RuleCatalog.ids).subtracting(audioRules)
        let report = Validator(configuration: configuration).validate(bytes: Array(text.utf8), path: path, audio: facts)
        return report.findings.compactMap { finding in
            finding.fix.map { .audioFinding(ruleID: finding.ruleID, message: finding.message, fix: $0) }
        }
    }

    /// The audio as the validator's audio rules read it: the onsets the analysis detected, with their
    /// strengths, and its drum evidence (as ``OnsetAudioInspector`` gives them, without the bar evidence).
    /// `drums` are the detector's frames as the analysis has read them so far (its own, unread, if
    /// not given).
    static func onsetFacts(_ analysis: AudioAnalysis, drums: SharedDrumFrames? = nil) -> AudioFacts {
        let peaks = analysis.envelope.peaks()
        return AudioFacts(
            duration: analysis.duration, sampleRate: analysis.sampleRate, onsets: peaks.map(\.time),
            onsetStrengths: peaks.map(\.strength),
            drumEvidence: AnalysisDrumEvidence(analysis, frames: drums ?? SharedDrumFrames(analysis.drums)))
    }

    /// The rules whose fixes the analysis takes: the metric level and the half-beat shift.
    static let takenRules: Set<String> = [AudioMetricLevelRule.description.id, AudioOffbeatRule.description.id]

    /// `fit` with the fixes made that `audio-metric-level` and `audio-offbeat` name for its beats against
    /// the analysis's own onsets, each kept only when it clears its finding (``Validator/fixing``), and
    /// the fixes made. A level switch takes the alternative's score and leaves the old level as the
    /// only alternative, as `beatmap edit --metric` does; the bars are laid out afterwards.
    static func takingFixes(_ fit: GridFit, onsets facts: AudioFacts, audio: AudioReference, path: String)
        -> (GridFit, [MadeFix])
    {
        var configuration = ValidationConfiguration()
        configuration.disabledRules = Set(audioRules.subtracting(takenRules)).union([
            AudioMismatchRule.description.id, BarPhaseRule.description.id,
        ])
        let map = BeatMap(audio: audio, tempo: fit.tempo, beats: fit.beats)
        guard let text = try? BeatMapCodec.encode(map) else { return (fit, []) }
        let validator = Validator(configuration: configuration)
        let report = validator.validate(bytes: Array(text.utf8), path: path, audio: facts)
        guard report.findings.contains(where: { $0.fix != nil }) else { return (fit, []) }
        let outcome = validator.fixing(map, report: report, path: path, audio: facts)
        guard !outcome.fixes.isEmpty, let tempo = outcome.map.tempo, !tempo.isEmpty else { return (fit, []) }
        var fixed = fit
        fixed.beats = outcome.map.beats
        fixed.segments = tempo.indices.map { index in
            let start = index == 0 ? -Double.infinity : tempo[index].time
            let end = index + 1 < tempo.count ? tempo[index + 1].time : Double.infinity
            let beats = outcome.map.beats.filter { $0 >= start - 1e-9 && $0 < end - 1e-9 }
            return FittedSegment(bpm: tempo[index].bpm, firstBeat: beats.first ?? tempo[index].time, beats: beats)
        }.filter { !$0.beats.isEmpty }
        for fix in outcome.fixes {
            guard case .metricLevel(let level) = fix.edit else { continue }
            let old = MetricAlternative(ratio: level.inverse, bpm: fit.segments.first?.bpm ?? 0, score: fit.score)
            if let chosen = fit.alternatives.first(where: { $0.ratio == level }) { fixed.score = chosen.score }
            fixed.alternatives = [old]
        }
        return (fixed, outcome.fixes)
    }

    /// The map's `analysis` member.
    func provenance(_ analysis: AudioAnalysis, _ fit: GridFit) -> JSONValue {
        func rounded(_ value: Double, _ digits: Double = 1000) -> JSONValue {
            .double((value * digits).rounded() / digits)
        }
        var object = JSONObject()
        object["tool"] = .string("beatmap \(BeatMapKitInfo.version)")
        object["aubio"] = .string(AubioLibrary.loadedLibrary)
        object["libsndfile"] = .string(AudioFileReader.libraryVersion)
        object["grid"] = .string(options.grid.mode.rawValue)
        object["method"] = .string(fit.method.rawValue)
        object["onsetMethod"] = .string(analysis.onsetMethod)
        object["hopSize"] = .int(analysis.frame.hopSize)
        object["bufferSize"] = .int(analysis.frame.bufferSize)
        object["analysisSampleRate"] = .int(analysis.frame.sampleRate)
        object["resampler"] = .string(analysis.resampler ?? "none")
        var delay = JSONObject()
        delay["onsetEnvelopeSeconds"] = rounded(analysis.envelopeDelay, 1e6)
        if analysis.trackerBeats != nil { delay["trackerSeconds"] = rounded(analysis.trackerDelay, 1e6) }
        object["delayCompensation"] = .object(delay)
        if let bpm = fit.segments.first?.bpm, fit.method != .aubioTempo { object["bpm"] = rounded(bpm, 1e4) }
        if let forced = options.grid.forcedBPM { object["forcedBPM"] = .double(forced) }
        if let forced = options.beatsPerBar { object["forcedBeatsPerBar"] = .int(forced) }
        object["bpmRange"] = .array([.double(options.grid.minimumBPM), .double(options.grid.maximumBPM)])
        object["confidence"] = rounded(fit.confidence)
        if fit.method != .aubioTempo {
            object["score"] = rounded(fit.score)
            object["alternatives"] = .array(
                fit.alternatives.map {
                    .object(
                        JSONObject([
                            ("ratio", .string($0.ratio.label)), ("bpm", rounded($0.bpm, 1e4)),
                            ("score", rounded($0.score)),
                        ]))
                })
        }
        if let weak = fit.weakBeat {
            object["weakBeat"] = .object(
                JSONObject([("salience", rounded(weak.salience)), ("periodicity", rounded(weak.periodicity))]))
        }
        if let change = fit.steadySound { object["steadySound"] = rounded(change) }
        if let trackerBPM = analysis.trackerBPM { object["aubioBPM"] = rounded(trackerBPM, 100) }
        object["musicalSpan"] = .array([rounded(fit.span.lowerBound, 1e6), rounded(fit.span.upperBound, 1e6)])
        return .object(object)
    }
}

/// Relative paths between files.
public enum RelativePath {
    /// The path of `file` relative to `folder` (both made absolute against the current folder first),
    /// e.g. `../Audio/song.ogg`.
    public static func from(folder: URL, to file: URL) -> String {
        let base = folder.standardizedFileURL.resolvingSymlinksInPath().pathComponents
        let target = file.standardizedFileURL.resolvingSymlinksInPath().pathComponents
        var common = 0
        while common < base.count, common < target.count, base[common] == target[common] { common += 1 }
        let ups = [String](repeating: "..", count: base.count - common)
        let rest = Array(target[common...])
        let parts = ups + rest
        return parts.isEmpty ? file.lastPathComponent : parts.joined(separator: "/")
    }
}

/// A SHA-256 computed on a thread of its own.
///
/// `@unchecked Sendable` is safe: `result` is written once by the hashing thread before it signals
/// `done`, and read only after a `wait()` has seen that signal (the semaphore orders the two). `wait()`
/// keeps no state of its own: each wait passes the signal on to the next, so any number of waits, from
/// any threads, return once the hash is ready.
final class BackgroundHash: @unchecked Sendable {
    private let done = DispatchSemaphore(value: 0)
    private(set) var result: Result<String, any Error>?

    init(of url: URL) {
        let thread = Thread { [self] in
            result = Result { try FileDigest.sha256Hex(ofFileAt: url) }
            done.signal()
        }
        thread.start()
    }

    /// Waits until the hash is ready (at once on later calls, from any thread).
    func wait() {
        done.wait()
        done.signal()
    }
}
