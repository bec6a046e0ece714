// SPDX-License-Identifier: GPL-3.0-or-later

public import Foundation

/// Beat Saber's map format v4 (the game's format since version 1.34): the song's `Info.dat`
/// (`"version": "4.0.0"`) and its audio data file `AudioData.dat` (`"version": "4.0.0"`), whose
/// `bpmData` regions map sample ranges to beat ranges.
///
/// Export writes both files into a folder. Beat numbers start at 0 at the start of the audio (as in
/// the game), so the map's first beat gets the whole beat number nearest its time at the first tempo
/// (the lead-in); after it every beat of the map is a whole beat. Regions cover the audio from sample 0 to
/// `songSampleCount` (a lead-in region, one region per segment of the fitted tempo map, a tail region).
/// `Info.dat`'s `audio.bpm` is the first segment's tempo; `customData.beatmapKit` records the map's
/// first and last beat numbers so that an import returns the same beats. When the map gives bars, the
/// lead-in is chosen so that every `beatsPerBar`-th beat from beat 0 is a downbeat (as editors draw
/// bar lines), and `customData.beatmapKit.beatsPerBar` records the meter for the import.
///
/// Import reads a map folder, its `Info.dat`, or the audio data file alone; v2 (`_regions` in
/// `BPMInfo.dat`, `_beatsPerMinute`) is read too. The beats are the whole beats between the recorded
/// first and last beat, or over the whole song when the map was not made by this tool.
public struct BeatSaberFormat: BeatMapConverter {
    /// A converter.
    public init() {}

    public var identifier: String { "beatsaber" }
    public var fileExtension: String { "" }
    public var writesFolder: Bool { true }
    public var storesTempoMap: Bool { true }
    public var impliedFileNames: [String] { ["info.dat", "audiodata.dat", "bpminfo.dat"] }

    /// The info file's name.
    public static let infoFileName = "Info.dat"
    /// The audio data file's name.
    public static let audioDataFileName = "AudioData.dat"
    /// The sample rate assumed when the map does not give one.
    public static let defaultSampleRate = 44_100

    public func export(_ map: BeatMap, options: ExportOptions) throws(InterchangeError) -> [ExportedFile] {
        try FormatSupport.checkExportable(map, for: .beatsaber)
        let fit = BeatGridFit(beats: map.beats, tempo: map.tempo, tolerance: options.fitTolerance)
        let rate = Double(map.audio.sampleRate ?? Self.defaultSampleRate)
        let sampleCount = Int((map.audio.duration * rate).rounded())
        guard let lastBeat = map.beats.last, lastBeat <= map.audio.duration else {
            throw InterchangeError(
                path: nil, "cannot export to beatsaber: the last beat is after the end of the audio (audio.duration)")
        }
        let firstLength = fit.beatLength(ofSegment: 0)
        let firstTime = fit.knots[0].time
        var leadIn = firstTime < 0.001 ? 0 : max(1, Int((firstTime / firstLength).rounded()))
        // Editors draw a bar line every `meter` beats from beat 0: the lead-in puts those on downbeats.
        let meter = StepManiaFormat.meter(of: map)
        if let meter, leadIn > 0, let position = BarPositions.positionsCountingBack(of: map).first ?? nil {
            let lead = position - 1
            var best = leadIn
            for candidate in max(1, leadIn - meter)...(leadIn + meter)
            where (candidate - lead) % meter == 0 && candidate - lead >= 0 {
                if (best - lead) % meter != 0 || abs(candidate - leadIn) < abs(best - leadIn) { best = candidate }
            }
            leadIn = best
        }
        func sample(_ time: Double) -> Int { Int((time * rate).rounded()) }

        var regions: [JSONValue] = []
        func region(_ si: Int, _ ei: Int, _ sb: Double, _ eb: Double) {
            regions.append(
                .object(JSONObject([("si", .int(si)), ("ei", .int(ei)), ("sb", .double(sb)), ("eb", .double(eb))])))
        }
        if leadIn > 0 { region(0, sample(firstTime), 0, Double(leadIn)) }
        for index in 0..<fit.knots.count - 1 {
            let a = fit.knots[index]
            let b = fit.knots[index + 1]
            region(sample(a.time), sample(b.time), Double(leadIn + a.beat), Double(leadIn + b.beat))
        }
        let lastKnot = fit.knots[fit.knots.count - 1]
        let lastSample = sample(lastKnot.time)
        if sampleCount > lastSample {
            let tailBeats = Double(sampleCount - lastSample) / rate / fit.finalBeatLength
            region(lastSample, sampleCount, Double(leadIn + lastKnot.beat), Double(leadIn + lastKnot.beat) + tailBeats)
        }
        let audioData = JSONObject([
            ("version", .string("4.0.0")), ("songChecksum", .string("")), ("songSampleCount", .int(sampleCount)),
            ("songFrequency", .int(Int(rate))), ("bpmData", .array(regions)), ("lufsData", .array([])),
        ])

        let songFile = FormatSupport.audioFileName(map, options, fallback: "song.ogg")
        let info = JSONObject([
            ("version", .string("4.0.0")),
            (
                "song",
                .object(
                    JSONObject([
                        ("title", .string(FormatSupport.title(map, options))), ("subTitle", .string("")),
                        ("author", .string("")),
                    ]))
            ),
            (
                "audio",
                .object(
                    JSONObject([
                        ("songFilename", .string(songFile)), ("songDuration", .double(map.audio.duration)),
                        ("audioDataFilename", .string(Self.audioDataFileName)),
                        ("bpm", .double(60 / firstLength)), ("lufs", .int(0)), ("previewStartTime", .int(0)),
                        ("previewDuration", .int(10)),
                    ]))
            ),
            ("songPreviewFilename", .string(songFile)), ("coverImageFilename", .string("")),
            ("environmentNames", .array([.string("DefaultEnvironment")])), ("colorSchemes", .array([])),
            ("difficultyBeatmaps", .array([])),
            (
                "customData",
                .object(
                    JSONObject([
                        (
                            "beatmapKit",
                            .object(
                                JSONObject(
                                    [
                                        ("firstBeat", .int(leadIn)),
                                        ("lastBeat", .int(leadIn + fit.beatNumbers[fit.beatNumbers.count - 1])),
                                        ("beatCount", .int(map.beats.count)),
                                    ] + (meter.map { [("beatsPerBar", JSONValue.int($0))] } ?? [])))
                        )
                    ]))
            ),
        ])
        return [
            ExportedFile(name: Self.infoFileName, text: JSONWriter.string(.object(info)) + "\n"),
            ExportedFile(name: Self.audioDataFileName, text: JSONWriter.string(.object(audioData)) + "\n"),
        ]
    }

    // MARK: Import

    /// A BPM region in samples and beats.
    struct Region {
        var startSample: Double
        var endSample: Double
        var startBeat: Double
        var endBeat: Double
    }

    public func importMap(from url: URL, options: ImportOptions) throws(InterchangeError) -> ImportedMap {
        let located = try Self.locate(url)
        var info = InfoFacts()
        if let infoURL = located.info { info = try Self.readInfo(infoURL, folder: located.folder) }
        let infoPath = located.info?.path ?? url.path
        var audioData = AudioDataFacts()
        if let audioDataURL = info.audioDataURL ?? located.audioData {
            audioData = try Self.readAudioData(audioDataURL, infoPath: infoPath)
        }
        let timeline = try Self.timeline(audioData, bpm: info.bpm, infoPath: infoPath)
        var notes: [ImportNote] = []
        let fileDuration = info.songDuration ?? samplesToSeconds(audioData.sampleCount, audioData.rate)
        let duration = try FormatSupport.duration(
            fromFile: fileDuration, audioPath: info.songFile, source: located.info ?? url, beats: [], options: options,
            notes: &notes)
        let beats = try Self.gridBeats(of: timeline, info: info, duration: duration, infoPath: infoPath)
        var map = BeatMap(
            audio: AudioReference(path: info.songFile, duration: duration, sampleRate: audioData.rate.map { Int($0) }),
            tempo: timeline.segments(), beats: beats,
            analysis: FormatSupport.analysis(format: .beatsaber, source: located.info ?? url))
        if let perBar = info.beatsPerBar, let first = beats.first, var segments = map.tempo {
            // Bars of `perBar` from beat 0: the lead-in's segments (before the first beat) go, and the
            // segments are laid out in bars from the first beat's number.
            while segments.count > 1, segments[1].time <= first + 1e-6 { segments.removeFirst() }
            map.tempo = segments
            let firstNumber = Int(timeline.beat(atTime: first).rounded())
            let numbered = NumberedBeats(map)
            let downbeat = ((perBar - firstNumber % perBar) % perBar + perBar) % perBar
            map.tempo = BarEditing.laidOut(segments, numbered: numbered, perBar: perBar, downbeat: downbeat)
        }
        return ImportedMap(map: map, notes: notes)
    }

    /// What `Info.dat` says; every fact is optional.
    struct InfoFacts {
        var bpm: Double?
        var songFile: String?
        var songDuration: Double?
        var firstBeat: Double?
        var lastBeat: Double?
        /// `customData.beatmapKit.beatsPerBar`: bars of this many beats from beat 0.
        var beatsPerBar: Int?
        /// The line of `customData.beatmapKit`, which records the first and last beat.
        var rangeLine: Int?
        /// The audio data file it names (v4) or that sits beside it (v2's `BPMInfo.dat`).
        var audioDataURL: URL?
    }

    /// What the audio data file says: its sample rate, the song's length in samples, the BPM regions.
    struct AudioDataFacts {
        var regions: [Region] = []
        var rate: Double?
        var sampleCount: Double?
    }

    /// The `Info.dat` or the audio data file `url` gives (a map folder, its `Info.dat`, or an audio data
    /// file alone), and the map's folder.
    static func locate(_ url: URL) throws(InterchangeError) -> (info: URL?, audioData: URL?, folder: URL) {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder) else {
            throw InterchangeError(path: url.path, "no such file or folder")
        }
        let folder = isFolder.boolValue ? url : url.deletingLastPathComponent()
        if isFolder.boolValue {
            guard let infoURL = existing(in: folder, names: [infoFileName, "info.dat"]) else {
                throw InterchangeError(path: url.path, "no Info.dat in this folder")
            }
            return (infoURL, nil, folder)
        }
        if ["info.dat"].contains(url.lastPathComponent.lowercased()) { return (url, nil, folder) }
        return (nil, url, folder)
    }

    /// Reads `Info.dat` (v4 or v2) at `infoURL`, in the map's `folder`.
    static func readInfo(_ infoURL: URL, folder: URL) throws(InterchangeError) -> InfoFacts {
        var facts = InfoFacts()
        let file = try JSONFile(url: infoURL)
        let info = try file.object(file.root, "Info.dat")
        if let version = info["version"] {
            let text = try file.string(version, "version")
            guard text.hasPrefix("4.") else {
                throw file.error(
                    version, "Info.dat version \(FormatSupport.shown(text)) is not supported (v4 and v2 are)")
            }
            let audioNode = try file.required(info, "audio", in: file.root, "Info.dat")
            let audio = try file.object(audioNode, "audio")
            if let node = audio["bpm"] { facts.bpm = try file.number(node, "audio.bpm") }
            if let node = audio["songFilename"] { facts.songFile = try file.string(node, "audio.songFilename") }
            if let node = audio["songDuration"] { facts.songDuration = try file.number(node, "audio.songDuration") }
            if let node = audio["audioDataFilename"] {
                let name = try file.string(node, "audio.audioDataFilename")
                guard !name.contains("/"), !name.contains("\\"), !name.isEmpty else {
                    throw file.error(node, "audio.audioDataFilename must be a file name in the map folder")
                }
                facts.audioDataURL = folder.appendingPathComponent(name)
            }
        } else if let version = info["_version"] {
            _ = try file.string(version, "_version")
            if let node = info["_beatsPerMinute"] { facts.bpm = try file.number(node, "_beatsPerMinute") }
            if let node = info["_songFilename"] { facts.songFile = try file.string(node, "_songFilename") }
            facts.audioDataURL = existing(in: folder, names: ["BPMInfo.dat"])
        } else {
            throw file.error(file.root, "not a Beat Saber Info.dat: it has no \"version\" or \"_version\"")
        }
        if let custom = info["customData"], case .object = custom.kind,
            let ours = try file.object(custom, "customData")["beatmapKit"], case .object = ours.kind
        {
            let members = try file.object(ours, "customData.beatmapKit")
            facts.rangeLine = file.line(ours)
            if let node = members["firstBeat"] { facts.firstBeat = try file.number(node, "firstBeat") }
            if let node = members["lastBeat"] { facts.lastBeat = try file.number(node, "lastBeat") }
            if let node = members["beatsPerBar"], let value = Int(exactly: try file.number(node, "beatsPerBar")),
                value > 0, value < 100
            {
                facts.beatsPerBar = value
            }
        }
        return facts
    }

    /// Reads the audio data file (v4 `AudioData.dat` or v2 `BPMInfo.dat`) at `url`; errors about a
    /// missing one name `infoPath`.
    static func readAudioData(_ url: URL, infoPath: String) throws(InterchangeError) -> AudioDataFacts {
        guard FileManager.default.fileExists(atPath: url.path) else {
            throw InterchangeError(path: infoPath, "the audio data file \(url.lastPathComponent) is missing")
        }
        var facts = AudioDataFacts()
        let file = try JSONFile(url: url)
        let data = try file.object(file.root, "the audio data file")
        let v4 = data["version"] != nil
        let keys =
            v4
            ? (
                count: "songSampleCount", frequency: "songFrequency", list: "bpmData", si: "si", ei: "ei", sb: "sb",
                eb: "eb"
            )
            : (
                count: "_songSampleCount", frequency: "_songFrequency", list: "_regions", si: "_startSampleIndex",
                ei: "_endSampleIndex", sb: "_startBeat", eb: "_endBeat"
            )
        let frequencyNode = try file.required(data, keys.frequency, in: file.root, "the audio data file")
        let frequency = try file.number(frequencyNode, keys.frequency)
        // A whole number of hertz, as the map's audio.sampleRate must be (0.5 Hz became a sample rate of 0).
        guard frequency >= 1, frequency <= 768_000, frequency == frequency.rounded() else {
            throw file.error(
                frequencyNode,
                "\(keys.frequency) \(NumberFormatting.decimal(frequency)) is not a sample rate (a whole number of Hz, 1…768000)"
            )
        }
        facts.rate = frequency
        if let node = data[keys.count] { facts.sampleCount = try file.number(node, keys.count) }
        if let list = data[keys.list] {
            for element in try file.array(list, keys.list) {
                let members = try file.object(element, "a BPM region")
                let region = Region(
                    startSample: try file.number(
                        try file.required(members, keys.si, in: element, "a BPM region"), keys.si),
                    endSample: try file.number(
                        try file.required(members, keys.ei, in: element, "a BPM region"), keys.ei),
                    startBeat: try file.number(
                        try file.required(members, keys.sb, in: element, "a BPM region"), keys.sb),
                    endBeat: try file.number(
                        try file.required(members, keys.eb, in: element, "a BPM region"), keys.eb))
                guard region.endSample > region.startSample, region.endBeat > region.startBeat else {
                    throw file.error(element, "a BPM region must end after it starts, in samples and in beats")
                }
                facts.regions.append(region)
            }
        }
        return facts
    }

    /// The tempo timeline of the BPM regions (sorted by beat here), or of one `bpm` without them.
    static func timeline(_ audioData: AudioDataFacts, bpm: Double?, infoPath: String) throws(InterchangeError)
        -> TempoTimeline
    {
        let regions = audioData.regions.sorted { $0.startBeat < $1.startBeat }
        var points: [TempoTimeline.Breakpoint] = []
        if let rate = audioData.rate, let first = regions.first {
            if first.startBeat > 0 && first.startSample > 0 {
                points.append(.init(beat: 0, time: 0, secondsPerBeat: first.startSample / rate / first.startBeat))
            }
            for region in regions {
                points.append(
                    .init(
                        beat: region.startBeat, time: region.startSample / rate,
                        secondsPerBeat: (region.endSample - region.startSample) / rate
                            / (region.endBeat - region.startBeat)))
            }
        } else if let bpm {
            guard bpm > 0 else { throw InterchangeError(path: infoPath, "BPM \(bpm) is not positive") }
            points.append(.init(beat: 0, time: 0, secondsPerBeat: 60 / bpm))
        } else {
            throw InterchangeError(path: infoPath, "neither a BPM nor BPM regions: the map has no tempo")
        }
        guard let timeline = TempoTimeline(points: points) else {
            throw InterchangeError(path: infoPath, "the BPM regions cannot be used")
        }
        return timeline
    }

    /// The whole beats of `timeline` from the first to the last recorded in `info` (else over the whole
    /// `duration`), at 0 s or later.
    static func gridBeats(of timeline: TempoTimeline, info: InfoFacts, duration: Double, infoPath: String)
        throws(InterchangeError) -> [TimeInterval]
    {
        let low = max(info.firstBeat ?? timeline.beat(atTime: 0).rounded(.up), 0)
        let high = info.lastBeat ?? timeline.beat(atTime: duration).rounded(.down)
        let recorded = info.firstBeat != nil || info.lastBeat != nil
        var beats: [TimeInterval] = []
        if let range = try FormatSupport.gridBeats(
            from: low, through: high, path: infoPath, line: recorded ? info.rangeLine : nil,
            what: recorded ? "customData.beatmapKit" : "the tempo map")
        {
            for beat in range {
                let time = timeline.time(ofBeat: Double(beat))
                if time >= 0 { beats.append(time) }
            }
        }
        return beats
    }

    private static func existing(in folder: URL, names: [String]) -> URL? {
        for name in names {
            let candidate = folder.appendingPathComponent(name)
            if FileManager.default.fileExists(atPath: candidate.path) { return candidate }
        }
        return nil
    }
}

private func samplesToSeconds(_ count: Double?, _ rate: Double?) -> Double? {
    guard let count, let rate, rate > 0 else { return nil }
    return count / rate
}

extension InterchangeFormat {
    /// Beat Saber map folder, format v4: `Info.dat` (v4.0.0) and `AudioData.dat` (v4.0.0, BPM regions).
    public static let beatsaber = InterchangeFormat(BeatSaberFormat())
}
