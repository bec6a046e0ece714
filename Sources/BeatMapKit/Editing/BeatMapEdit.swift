// SPDX-License-Identifier: GPL-3.0-or-later

public import Foundation

/// One change to a whole beat map, as a mapper asks for it: the operations of ``BeatMapEditor``.
public enum BeatMapEdit: Sendable, Equatable {
    /// Moves every beat and tempo anchor by `seconds` (later when positive).
    case nudge(seconds: TimeInterval)
    /// Switches to another metric level: a beat every half, two, 1½ or ⅔ of the map's beats.
    case metricLevel(MetricLevel)
    /// Moves every beat by `fraction` of its own beat (later when positive; −1 < `fraction` < 1, not 0):
    /// ½ puts a map that sits on the off-beats back on the beat. A beat's length is its tempo segment's
    /// (the interval to the next beat in a map without a tempo map); beats moved outside the track are
    /// dropped.
    case shiftBeats(fraction: Double)
    /// Sets the beats per bar: of the chosen segment, or of the whole map (its bars laid out again in
    /// bars of `beatsPerBar` from its first downbeat).
    case beatsPerBar(Int, segment: SegmentChoice)
    /// Moves the bar lines by `beats` whole beats (later when positive): of the chosen segment (with
    /// those of the segment its bars count on from, when it gives no meter of its own), or of the whole
    /// map.
    case shiftBars(beats: Int, segment: SegmentChoice)
    /// Keeps only the beats from `from` to `to` seconds (inclusive) and the tempo segments they need.
    case trim(from: TimeInterval, to: TimeInterval)
    /// Lays the segment playing at `anchor` out again at `bpm` on a grid through `anchor` (a tapped
    /// tempo and phase).
    case tempo(bpm: Double, anchor: TimeInterval)
}

/// A fraction of a beat as a user writes it: `½`, `1/2`, `0.5`, `⅓`, `1/3`, `⅔`, `2/3`, `¼`, `1/4`, `¾`,
/// `3/4`, any decimal, and any of them after a minus sign (`-½`, `−1/2`: earlier).
public enum BeatFraction {
    /// The fraction `spelling` names, or `nil` when it names none (or is not finite).
    public static func value(spelling: String) -> Double? {
        var text = spelling.filter { !$0.isWhitespace }
        var sign = 1.0
        if let first = text.first, first == "-" || first == "−" {
            sign = -1
            text.removeFirst()
        } else if text.first == "+" {
            text.removeFirst()
        }
        let glyphs: [String: Double] = ["½": 0.5, "⅓": 1.0 / 3.0, "⅔": 2.0 / 3.0, "¼": 0.25, "¾": 0.75]
        if let value = glyphs[text] { return sign * value }
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        if parts.count == 2, let numerator = Double(parts[0]), let denominator = Double(parts[1]), denominator != 0 {
            let value = numerator / denominator
            return value.isFinite ? sign * value : nil
        }
        guard parts.count == 1, let value = Double(text), value.isFinite else { return nil }
        return sign * value
    }

    /// `fraction` in words: "half a beat", "a third of a beat", "two thirds of a beat", "a quarter of a
    /// beat", "three quarters of a beat", otherwise "0.375 of a beat" (its magnitude).
    public static func words(_ fraction: Double) -> String {
        let size = abs(fraction)
        let named: [(Double, String)] = [
            (0.5, "half a beat"), (1.0 / 3.0, "a third of a beat"), (2.0 / 3.0, "two thirds of a beat"),
            (0.25, "a quarter of a beat"), (0.75, "three quarters of a beat"),
        ]
        if let name = named.first(where: { abs($0.0 - size) < 1e-9 }) { return name.1 }
        return FormatSupport.decimal(size, digits: 3) + " of a beat"
    }
}

/// Which tempo segments an edit applies to.
public enum SegmentChoice: Sendable, Equatable {
    /// The whole map.
    case all
    /// The segment at this index of the map's `tempo` (0 = the first).
    case index(Int)
    /// The tempo playing at this time (seconds): its segment, or, when that segment is one of a run of
    /// segments each shorter than a bar (a tempo followed beat by beat, ``TempoStretch``), the whole run.
    case at(TimeInterval)
}

extension MetricLevel {
    /// The level a user writes as `×2`, `x2`, `2`; `½`, `1/2`; `⅔`, `2/3`; `3⁄2`, `3/2` (spaces
    /// ignored), or `nil`.
    public init?(spelling: String) {
        let text = spelling.filter { !$0.isWhitespace }.lowercased()
        switch text {
        case "×2", "x2", "*2", "2", "2x", "double": self = .double
        case "½", "1/2", "0.5", "half": self = .half
        case "⅔", "2/3": self = .twoThirds
        case "3⁄2", "3/2", "1.5", "1½": self = .threeHalves
        default: return nil
        }
    }

    /// The level that undoes this one.
    public var inverse: MetricLevel {
        switch self {
        case .double: return .half
        case .half: return .double
        case .twoThirds: return .threeHalves
        case .threeHalves: return .twoThirds
        }
    }

    /// Old beats per new beat as a fraction (numerator, denominator): ½ for ×2, 2 for ½, 3⁄2 for ⅔, ⅔
    /// for 3⁄2.
    var spacing: (numerator: Int, denominator: Int) {
        switch self {
        case .double: return (1, 2)
        case .half: return (2, 1)
        case .twoThirds: return (3, 2)
        case .threeHalves: return (2, 3)
        }
    }
}

/// Why an edit could not be made.
public enum BeatMapEditError: Error, LocalizedError, Sendable, Equatable {
    /// A value of the edit is out of range.
    case invalidValue(String)
    /// The map has no tempo map, which the edit needs.
    case noTempoMap(String)
    /// The map gives no beats per bar where the edit needs them.
    case noMeter(String)
    /// The segment index is not one of the map's.
    case noSuchSegment(index: Int, count: Int)
    /// The edit would leave a map that cannot be used.
    case wouldBreak(String)

    public var errorDescription: String? {
        switch self {
        case .invalidValue(let why): return why
        case .noTempoMap(let what): return "the map has no tempo map, so \(what)"
        case .noMeter(let what): return "the map gives no beats per bar \(what)"
        case .noSuchSegment(let index, let count):
            return "there is no \(Describe.segment(index)): the map has \(count)"
        case .wouldBreak(let why): return why
        }
    }

    /// What the user can do about it, if anything.
    public var remedy: Remedy? {
        switch self {
        case .noMeter: return .giveMeter
        default: return nil
        }
    }
}

extension BeatMapEdit {
    /// The edit in words, as `beatmap edit` reports it ("every beat half a beat earlier", "metric level
    /// ×2", "nudge +12.0 ms").
    public var summary: String { EditChanges.name(of: self) }

    /// The edit as JSON, as the JSON reporter gives a finding's fix: `"edit"` names the operation
    /// (`nudge` with `milliseconds`, `metric` with `ratio`, `shiftBeats` with `fraction`, `beatsPerBar`
    /// with `beatsPerBar`, `shiftBars` with `beats`, `trim` with `from` and `to`, `tempo` with `bpm` and
    /// `anchor`; a segment as `segment`, counted from 1, or `at`, seconds), then `summary`.
    var jsonValue: JSONValue {
        var object = JSONObject()
        func segment(_ choice: SegmentChoice) {
            switch choice {
            case .all: break
            case .index(let index): object["segment"] = .int(index + 1)
            case .at(let time): object["at"] = .double(time)
            }
        }
        switch self {
        case .nudge(let seconds):
            object["edit"] = .string("nudge")
            object["milliseconds"] = .double(NumberFormatting.roundedToMicroseconds(seconds) * 1000)
        case .metricLevel(let level):
            object["edit"] = .string("metric")
            object["ratio"] = .string(level.label)
        case .shiftBeats(let fraction):
            object["edit"] = .string("shiftBeats")
            object["fraction"] = .double(fraction)
        case .beatsPerBar(let perBar, let choice):
            object["edit"] = .string("beatsPerBar")
            object["beatsPerBar"] = .int(perBar)
            segment(choice)
        case .shiftBars(let beats, let choice):
            object["edit"] = .string("shiftBars")
            object["beats"] = .int(beats)
            segment(choice)
        case .trim(let from, let to):
            object["edit"] = .string("trim")
            object["from"] = .double(from)
            object["to"] = .double(to)
        case .tempo(let bpm, let anchor):
            object["edit"] = .string("tempo")
            object["bpm"] = .double(bpm)
            object["anchor"] = .double(anchor)
        }
        object["summary"] = .string(summary)
        return .object(object)
    }
}
