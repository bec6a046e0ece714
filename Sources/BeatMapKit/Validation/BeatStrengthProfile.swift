// SPDX-License-Identifier: GPL-3.0-or-later

import Foundation

/// How the audio's onset strength falls on a map's beats and on points between them, read along the
/// map's own beats (a point between two beats is interpolated between them, so tempo changes and
/// drift are followed): the evidence `audio-offbeat` and `audio-metric-level` judge.
///
/// The strength at a point is that of the strongest onset within ±25 ms of it, 0 if there is none.
/// When the beats sit consistently early or late (see ``AudioMisalignedRule/offset(beats:onsets:)``),
/// the points are read at that offset, so a misaligned map is still judged on its metre.
public struct BeatStrengthProfile: Sendable, Equatable {
    /// How far from a point an onset may be and still count for it, in seconds.
    public static let window = 0.025
    /// Fewest beat intervals measured before a verdict is given.
    public static let minimumIntervals = 16

    /// A set of points along the beats and the onset strength on them.
    public struct Points: Sendable, Equatable {
        /// Mean onset strength over the points.
        public var strength: Double
        /// The share of the points that have an onset within the window.
        public var onsetShare: Double
        /// The first few map beats (indices) that are points of the set, for messages.
        public var beats: [Int]

        /// A point set.
        public init(strength: Double, onsetShare: Double, beats: [Int]) {
            self.strength = strength
            self.onsetShare = onsetShare
            self.beats = beats
        }
    }

    /// How many beat intervals were measured.
    public var intervals: Int
    /// The median interval between consecutive beats, in seconds.
    public var medianInterval: Double
    /// The offset the points were read at (the beats' consistent misalignment), in seconds.
    public var offset: Double
    /// The beats themselves.
    public var beats: Points
    /// The points halfway between consecutive beats.
    public var midpoints: Points
    /// The midpoints after even beats (the first, third, …).
    public var evenMidpoints: Points
    /// The midpoints after odd beats.
    public var oddMidpoints: Points
    /// The points a quarter and three quarters of the way between consecutive beats.
    public var quarterPoints: Points
    /// The share of intervals, of those with an onset at their first beat or their midpoint, whose
    /// midpoint carries the stronger onset.
    public var strongerMidpoints: Double
    /// Every other beat, from the first.
    public var evenBeats: Points
    /// Every other beat, from the second.
    public var oddBeats: Points
    /// Points every ⅔ of a beat (the 3⁄2 level), at their strongest phase.
    public var everyTwoThirds: Points
    /// Points every 1½ beats (the ⅔ level), at their strongest phase.
    public var everyThreeHalves: Points
    /// The map's beats among ``everyThreeHalves`` (every third beat: half of its points fall on beats,
    /// half on midpoints).
    public var threeHalvesOnBeats: Points
    /// The map's other beats (the two in three not among ``everyThreeHalves``).
    public var beatsBetweenThreeHalves: Points
    /// The strength half an interval before the first beat.
    public var beforeFirst: Double
    /// The strength half an interval after the last beat.
    public var afterLast: Double

    /// The map's tempo from its median interval, in BPM.
    public var bpm: Double { 60 / medianInterval }

    /// The shift (seconds) that moves a map half a beat out onto the music's beat: back, half an
    /// interval, when the music has a beat half an interval before the first (or none after the
    /// last); otherwise forward.
    public var halfBeatShift: Double {
        let back = beforeFirst > 0 || afterLast == 0
        return back ? -medianInterval / 2 : medianInterval / 2
    }

    /// The profile of `beats` against onsets at `onsets` with strengths `strengths` (parallel arrays),
    /// or `nil` when fewer than ``minimumIntervals`` intervals can be measured or the arrays do not
    /// match. Non-finite beats and beats out of order are left out. An interval is measured when it
    /// lasts half to twice the median interval (not a gap or a stray beat) and has an onset in it or
    /// at either end (silence and a beatless intro say nothing about where beats belong).
    public init?(beats: [Double], onsets: [Double], strengths: [Double]) {
        guard onsets.count == strengths.count else { return nil }
        // The beats in order: a strictly increasing run of the finite beats, with their map indices.
        var times: [Double] = []
        var indices: [Int] = []
        for (index, beat) in beats.enumerated() where beat.isFinite && beat > (times.last ?? -.infinity) {
            times.append(beat)
            indices.append(index)
        }
        guard times.count > Self.minimumIntervals else { return nil }
        let lengths = (0..<(times.count - 1)).map { times[$0 + 1] - times[$0] }
        let median = lengths.sorted()[lengths.count / 2]
        // Beats faster than twice the fastest tempo allowed (800 BPM) are not a beat map.
        guard median.isFinite, median >= 30 / TempoLimits.maximumBPM else { return nil }
        let table = OnsetTable(times: onsets, strengths: strengths)
        var offset = 0.0
        if let found = AudioMisalignedRule.offset(beats: times, onsets: table.times),
            abs(found.seconds) <= min(AudioMisalignedRule.searchRange, 0.1 * median)
        {
            offset = found.seconds
        }
        let usable = lengths.indices.map { index in
            lengths[index] >= 0.5 * median && lengths[index] <= 2 * median
                && table.hasOnset(from: times[index] + offset, to: times[index + 1] + offset)
        }
        let measured = usable.filter { $0 }.count
        guard measured >= Self.minimumIntervals else { return nil }
        // The time of position `units / denominator` beats after the first beat, or nil when it does
        // not fall inside a measured interval.
        func time(_ units: Int, _ denominator: Int) -> Double? {
            let index = units / denominator
            guard index < usable.count, usable[index] else { return nil }
            let fraction = Double(units % denominator) / Double(denominator)
            return times[index] + fraction * lengths[index] + offset
        }
        func points(_ positions: [(units: Int, denominator: Int)]) -> Points {
            var sum = 0.0
            var withOnset = 0
            var count = 0
            var listed: [Int] = []
            for position in positions {
                guard let t = time(position.units, position.denominator) else { continue }
                let strength = table.strength(at: t)
                sum += strength
                count += 1
                if strength > 0 { withOnset += 1 }
                if position.units % position.denominator == 0, listed.count < 3 {
                    listed.append(indices[position.units / position.denominator])
                }
            }
            guard count > 0 else { return Points(strength: 0, onsetShare: 0, beats: listed) }
            return Points(strength: sum / Double(count), onsetShare: Double(withOnset) / Double(count), beats: listed)
        }
        let span = usable.count  // positions run over 0..<span beats
        self.intervals = measured
        self.medianInterval = median
        self.offset = offset
        self.beats = points((0..<span).map { ($0, 1) })
        self.midpoints = points((0..<span).map { (2 * $0 + 1, 2) })
        self.evenMidpoints = points(stride(from: 0, to: span, by: 2).map { (2 * $0 + 1, 2) })
        self.oddMidpoints = points(stride(from: 1, to: span, by: 2).map { (2 * $0 + 1, 2) })
        self.quarterPoints = points((0..<span).flatMap { [(4 * $0 + 1, 4), (4 * $0 + 3, 4)] })
        self.evenBeats = points(stride(from: 0, to: span, by: 2).map { ($0, 1) })
        self.oddBeats = points(stride(from: 1, to: span, by: 2).map { ($0, 1) })
        // Every ⅔ of a beat: positions (phase + 2k)/3 for the two phases.
        let twoThirds = (0..<2).map { phase in points(stride(from: phase, to: 3 * span, by: 2).map { ($0, 3) }) }
        // Every 1½ beats: positions (phase + 3k)/2 for the three phases.
        let threeHalves = (0..<3).map { phase in points(stride(from: phase, to: 2 * span, by: 3).map { ($0, 2) }) }
        self.everyTwoThirds = twoThirds.max { $0.strength < $1.strength } ?? twoThirds[0]
        let threeHalvesPhase = threeHalves.indices.max { threeHalves[$0].strength < threeHalves[$1].strength } ?? 0
        self.everyThreeHalves = threeHalves[threeHalvesPhase]
        // Its points on beats are positions (phase + 3k)/2 with an even numerator: beats phase/2 + 3j
        // for even phases, (phase + 3)/2 + 3j for odd ones.
        let firstOnBeat = threeHalvesPhase % 2 == 0 ? threeHalvesPhase / 2 : (threeHalvesPhase + 3) / 2
        self.threeHalvesOnBeats = points(stride(from: firstOnBeat, to: span, by: 3).map { ($0, 1) })
        self.beatsBetweenThreeHalves = points((0..<span).filter { ($0 - firstOnBeat) % 3 != 0 }.map { ($0, 1) })
        var stronger = 0
        var compared = 0
        for index in 0..<span where usable[index] {
            let beat = table.strength(at: times[index] + offset)
            let middle = table.strength(at: times[index] + lengths[index] / 2 + offset)
            guard beat > 0 || middle > 0 else { continue }
            compared += 1
            if middle > beat { stronger += 1 }
        }
        self.strongerMidpoints = compared > 0 ? Double(stronger) / Double(compared) : 0
        self.beforeFirst = table.strength(at: times[0] - lengths[0] / 2 + offset)
        self.afterLast = table.strength(at: times[times.count - 1] + lengths[lengths.count - 1] / 2 + offset)
    }
}

extension BeatStrengthProfile {
    /// The profile of the context's beats against its audio's onsets, when they and their strengths
    /// are known.
    init?(_ context: ValidationContext) {
        guard case .facts(let facts) = context.audio, let onsets = facts.onsets, let strengths = facts.onsetStrengths
        else { return nil }
        self.init(beats: context.map.beats, onsets: onsets, strengths: strengths)
    }
}

/// Onsets sorted by time with their strengths, for looking up the strongest onset near a time.
struct OnsetTable {
    /// Onset times, ascending (finite onsets with a finite, non-negative strength only).
    let times: [Double]
    /// Their strengths.
    let strengths: [Double]

    init(times: [Double], strengths: [Double]) {
        let pairs = zip(times, strengths).filter { $0.0.isFinite && $0.1.isFinite && $0.1 >= 0 }
            .sorted { $0.0 < $1.0 }
        self.times = pairs.map(\.0)
        self.strengths = pairs.map(\.1)
    }

    /// The index of the first onset at or after `t`.
    func firstIndex(atOrAfter t: Double) -> Int { SortedSearch.lowerBound(times, t) }

    /// Whether an onset lies from `start` to `end`, each widened by the window.
    func hasOnset(from start: Double, to end: Double) -> Bool {
        let index = firstIndex(atOrAfter: start - BeatStrengthProfile.window)
        return index < times.count && times[index] <= end + BeatStrengthProfile.window
    }

    /// The strength of the strongest onset within ``BeatStrengthProfile/window`` of `t`, 0 if none.
    func strength(at t: Double) -> Double {
        var best = 0.0
        var index = firstIndex(atOrAfter: t - BeatStrengthProfile.window)
        while index < times.count, times[index] <= t + BeatStrengthProfile.window {
            best = max(best, strengths[index])
            index += 1
        }
        return best
    }
}

/// A metric level other than the map's: its tempo relative to the map's.
public enum MetricLevel: Sendable, Equatable, CaseIterable {
    /// Twice the map's tempo: the map has every other beat of the music.
    case double
    /// Half the map's tempo: the map has a beat between each two of the music's.
    case half
    /// ⅔ of the map's tempo: the music's beats fall every 1½ of the map's.
    case twoThirds
    /// 3⁄2 of the map's tempo: the music's beats fall every ⅔ of the map's.
    case threeHalves

    /// The level's tempo over the map's.
    public var factor: Double {
        switch self {
        case .double: return 2
        case .half: return 0.5
        case .twoThirds: return 2.0 / 3.0
        case .threeHalves: return 1.5
        }
    }

    /// `×2`, `½`, `⅔` or `3⁄2`.
    public var label: String {
        switch self {
        case .double: return "×2"
        case .half: return "½"
        case .twoThirds: return "⅔"
        case .threeHalves: return "3⁄2"
        }
    }
}

/// What the onsets say about a map's beats, when they clearly say something.
public enum BeatStrengthVerdict: Sendable, Equatable {
    /// The beats sit half a beat out: the midpoints between them carry `ratio` times their onset
    /// strength; shifting every beat by `shift` seconds (half the median interval) puts them on those
    /// midpoints — backwards when an onset lies half a beat before the first beat, else forwards.
    case offbeat(ratio: Double, shift: Double)
    /// Another metric level fits the onsets clearly better; `ratio` is the evidence the level was
    /// chosen on (see ``BeatStrengthProfile/verdict``).
    case level(MetricLevel, ratio: Double)
}

extension BeatStrengthProfile {
    /// Two point sets are alike when the weaker carries at least this share of the stronger's onset
    /// strength. Beats of one kind (every kick, every snare, every off-beat hi-hat) read alike within
    /// ±10 % in the calibration tracks; a bar's alternating kick and snare read 0.48–0.81 of each other.
    public static let alike = 0.85
    /// Most of a point set: the share of its points that must have an onset (or be the stronger).
    public static let mostPoints = 0.75
    /// `audio-offbeat`: the midpoints must carry at least this multiple of the beats' strength. A map
    /// half a beat out reads about the reciprocal of the correct map's ratio; correct maps of drum
    /// patterns read at most 0.68 (syncopated), their half-beat-out copies 1.48–2.29. Correct maps
    /// whose off-beats are the loudest (house hi-hats, a reggae one-drop: up to 10) are told apart by
    /// their alike midpoints, and so are half-tempo maps (up to 2.09).
    public static let offbeatRatio = 1.4
    /// `audio-metric-level` ×2: beats and midpoints are "nearly as strong" as each other when the
    /// weaker carries at least this share of the stronger. Correct maps read at most 0.68.
    public static let nearlyAsStrong = 0.75
    /// `audio-metric-level` ×2: the quarter points (¼ and ¾ of the way between beats) count as the music's
    /// off-beats when they carry at least this share of the beats' strength: half-tempo maps read 0.37–0.94 there, maps
    /// at the right level 0–0.04 unless the music has sixteenth notes.
    public static let offBeatsBetween = 0.3
    /// `audio-offbeat`: the quarter points must carry less than this share of the midpoints' strength.
    /// A map half a beat out has the music's beats at its midpoints and its sixteenth notes, if any,
    /// at its quarter points: on the corpus's train split those read 0.02–0.42 of the midpoints, and
    /// a half-tempo map's quarter points (the music's off-beats: a reggae skank, a bossa's syncopes)
    /// 0.54–0.82.
    public static let subBeats = 0.5
    /// `audio-metric-level` ⅔: points every 1½ beats must carry this multiple of the beats' strength.
    /// Maps at 3⁄2 of the music's tempo read 2.0–4.6 (two beats in three miss the music's; 1.7 over
    /// triplet hi-hats, not reported); correct maps read at most 0.89, other wrong maps at most 1.71.
    public static let twoThirdsRatio = 1.8
    /// `audio-metric-level` 3⁄2: points every ⅔ of a beat must carry this multiple of the beats'
    /// strength, with an onset at nine in ten of them, and at least 0.8 of the stronger half of the
    /// beats' (they are beats, not triplets). Maps at ⅔ of the music's tempo read 1.19–1.98 with an
    /// onset at every point and 0.86–1.13 of the stronger half; correct maps read at most 0.77.
    public static let threeHalvesRatio = 1.2
    /// `audio-metric-level` ½: the weaker half of the beats must carry less than this share of the
    /// stronger half's strength, with nothing between the beats. Correct maps read at least 0.48,
    /// unless the detector barely sees one of the drums (a pure-sine kick alone: 0.09), and then the
    /// off-beats between are not silent.
    public static let weakParity = 0.3
    /// Levels outside this tempo range are not suggested: the analyzer's default range (60–200 BPM)
    /// with its 3 % margin. Onsets alone cannot tell a 250 BPM beat from a 125 BPM beat with loud
    /// off-beats (house music's open hi-hats), so the range decides for them.
    public static let suggestedTempo = 58.2...206.0

    /// What the onsets clearly say about the beats, or `nil` when the map's own reading stands or the
    /// evidence is not clear. The readings are tried in this order, and the first that fits decides
    /// (when it names a level outside ``suggestedTempo``, nothing is reported):
    ///
    /// 1. Half a beat out: the midpoints carry ≥ ``offbeatRatio``× the beats' strength, are the
    ///    stronger in most intervals and hold an onset in most; the quarter points carry less than
    ///    ``subBeats`` of the midpoints' strength (at most the music's sixteenth notes, where a
    ///    half-tempo map has the music's off-beats); and the
    ///    midpoints are not alike (they alternate like a bar's beats; a half-tempo map's do not).
    /// 2. ×2: the midpoints are alike and hold an onset in most intervals, and the beats' halves are
    ///    nearly as strong as each other; and either beats and midpoints are nearly as strong as each
    ///    other with alike beats, or the midpoints are clearly the stronger and the quarter points
    ///    carry the music's off-beats (≥ ``offBeatsBetween`` but not alike with the beats).
    /// 3. ⅔: points every 1½ beats carry ≥ ``twoThirdsRatio``× the beats' strength, fewer than
    ///    most beats have an onset, and the beats among those points are not alike with the others
    ///    (weaker than ``alike`` of them): a map half a beat out has alike beats.
    /// 4. 3⁄2: see ``threeHalvesRatio``.
    /// 5. ½: the weaker half of the beats carries < ``weakParity`` of the stronger's strength, the
    ///    stronger holds an onset at most beats, and the midpoints are nearly empty.
    public var verdict: BeatStrengthVerdict? {
        let base = beats.strength
        let mids = midpoints.strength
        guard base > 0 || mids > 0 else { return nil }
        let ratio = base > 0 ? mids / base : .infinity
        let quarters = quarterPoints.strength == 0 ? 0 : base > 0 ? quarterPoints.strength / base : .infinity
        let midpointParity = Self.parity(evenMidpoints, oddMidpoints)
        if ratio >= Self.offbeatRatio, strongerMidpoints >= Self.mostPoints, midpoints.onsetShare >= Self.mostPoints,
            quarterPoints.strength < Self.subBeats * mids, midpointParity < Self.alike
        {
            return .offbeat(ratio: ratio, shift: halfBeatShift)
        }
        guard base > 0 else { return nil }
        let beatParity = Self.parity(evenBeats, oddBeats)
        let strongerHalf = max(evenBeats.strength, oddBeats.strength)
        var chosen: BeatStrengthVerdict?
        if midpointParity >= Self.alike, midpoints.onsetShare >= Self.mostPoints, beatParity >= Self.nearlyAsStrong {
            let nearly = ratio >= Self.nearlyAsStrong && ratio <= 1 / Self.nearlyAsStrong && beatParity >= Self.alike
            let offBeats =
                ratio > 1 / Self.nearlyAsStrong && quarters >= Self.offBeatsBetween && quarters < Self.alike
                && quarterPoints.onsetShare >= Self.mostPoints
            if nearly || offBeats { chosen = .level(.double, ratio: ratio) }
        }
        // A map at 3⁄2 of the music's tempo has the music's beat on one of its beats in three, the
        // beats the ⅔ level keeps: they must be clearly stronger than the other two (not alike). A map
        // half a beat out fails this: its points every 1½ beats meet the music's beats only at its
        // midpoints, and its own beats are all alike.
        let keptBeatsStandOut =
            beatsBetweenThreeHalves.strength < Self.alike * threeHalvesOnBeats.strength
        if chosen == nil, everyThreeHalves.strength >= Self.twoThirdsRatio * base, beats.onsetShare < Self.mostPoints,
            keptBeatsStandOut
        {
            chosen = .level(.twoThirds, ratio: everyThreeHalves.strength / base)
        }
        if chosen == nil, everyTwoThirds.strength >= Self.threeHalvesRatio * base,
            everyTwoThirds.strength >= 0.8 * strongerHalf, everyTwoThirds.onsetShare >= 0.9
        {
            chosen = .level(.threeHalves, ratio: everyTwoThirds.strength / base)
        }
        if chosen == nil, beatParity < Self.weakParity, ratio < Self.offBeatsBetween,
            (evenBeats.strength >= oddBeats.strength ? evenBeats : oddBeats).onsetShare >= Self.mostPoints
        {
            chosen = .level(.half, ratio: beatParity)
        }
        guard case .level(let level, _) = chosen, Self.suggestedTempo.contains(bpm * level.factor) else { return nil }
        return chosen
    }

    /// The weaker of two point sets' strengths over the stronger's (1 when both are empty).
    static func parity(_ first: Points, _ second: Points) -> Double {
        let strong = max(first.strength, second.strength)
        return strong > 0 ? min(first.strength, second.strength) / strong : 1
    }
}

/// Synthetic onsets for the rules' examples: a drum pattern on a beat grid, with the strengths the
/// onset detector gives such a pattern (kick 0.8, snare 1.0, hi-hat 0.45 of the snare).
enum OnsetPattern {
    /// A hit at `fraction` of a beat with `strength`.
    typealias Hit = (fraction: Double, strength: Double)

    /// A rock beat: kick on 1 and 3, snare on 2 and 4, a hi-hat on every eighth note.
    static let rock: [[Hit]] = [[(0, 0.8), (0.5, 0.45)], [(0, 1.0), (0.5, 0.45)]]
    /// Kick and snare on the beats and nothing between them.
    static let quarters: [[Hit]] = [[(0, 0.8)], [(0, 1.0)]]

    /// Onsets of `pattern` (one entry per beat, repeating) on beats `period` apart from `start`.
    static func onsets(_ pattern: [[Hit]], start: Double, period: Double, count: Int) -> AudioFacts {
        var times: [Double] = []
        var strengths: [Double] = []
        for index in 0..<count {
            for hit in pattern[index % pattern.count] {
                times.append(start + (Double(index) + hit.fraction) * period)
                strengths.append(hit.strength)
            }
        }
        let duration = start + Double(count + 1) * period
        return AudioFacts(duration: duration, sampleRate: 44100, onsets: times, onsetStrengths: strengths)
    }

    /// A `beats` array text of beats `period` apart from `start`.
    static func beats(start: Double, period: Double, count: Int) -> String {
        AudioMisalignedRule.beats(from: start, count: count, interval: period)
    }
}
