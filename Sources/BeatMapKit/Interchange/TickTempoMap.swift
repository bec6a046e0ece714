// SPDX-License-Identifier: GPL-3.0-or-later

import Foundation

/// A tempo map counted in ticks, as Standard MIDI Files and Clone Hero `.chart` files store it: a
/// resolution (ticks per quarter note), tempo changes (seconds per quarter note from a tick on) and time
/// signatures (from a tick on). Shared by ``MIDIFileFormat`` and ``ChartFormat``.
///
/// A beat is the time signature's note value (a quarter in 3/4 and 4/4, an eighth in 6/8): a time
/// signature event starts a bar, and its beats follow every `4 / denominator` quarter notes from there.
/// Before the first time signature the beats are quarter notes.
struct TickTempoMap: Sendable {
    /// From `tick` on, a quarter note lasts `secondsPerQuarter`.
    struct Tempo: Sendable, Equatable {
        var tick: Double
        var secondsPerQuarter: Double
    }

    /// From `tick` (a bar line) on, bars of `numerator` beats of a `1/denominator` note.
    struct Meter: Sendable, Equatable {
        var tick: Double
        var numerator: Int
        var denominator: Int
    }

    /// Ticks per quarter note (> 0).
    let ticksPerQuarter: Double
    /// Sorted by tick, the first at tick 0.
    let tempos: [Tempo]
    /// Sorted by tick; may be empty.
    let meters: [Meter]
    /// The time of each tempo change, in seconds.
    private let tempoTimes: [Double]

    /// A map from changes in any order (a later change at the same tick replaces an earlier one). Without
    /// a tempo at tick 0, the file's first tempo holds from tick 0 (120 BPM when there is none at all, as
    /// both formats define). `startTime` is the time of tick 0.
    init(ticksPerQuarter: Int, tempos: [Tempo], meters: [Meter], startTime: Double = 0) {
        self.ticksPerQuarter = Double(ticksPerQuarter)
        var sortedTempos: [Tempo] = []
        for tempo in tempos.enumerated().sorted(by: { ($0.element.tick, $0.offset) < ($1.element.tick, $1.offset) })
            .map(\.element)
        {
            if let last = sortedTempos.last, last.tick == tempo.tick { sortedTempos.removeLast() }
            sortedTempos.append(tempo)
        }
        if sortedTempos.isEmpty {
            sortedTempos = [Tempo(tick: 0, secondsPerQuarter: 0.5)]
        } else if sortedTempos[0].tick > 0 {
            sortedTempos.insert(Tempo(tick: 0, secondsPerQuarter: sortedTempos[0].secondsPerQuarter), at: 0)
        }
        var sortedMeters: [Meter] = []
        for meter in meters.enumerated().sorted(by: { ($0.element.tick, $0.offset) < ($1.element.tick, $1.offset) })
            .map(\.element)
        {
            if let last = sortedMeters.last, last.tick == meter.tick { sortedMeters.removeLast() }
            sortedMeters.append(meter)
        }
        self.tempos = sortedTempos
        self.meters = sortedMeters
        var times: [Double] = []
        times.reserveCapacity(sortedTempos.count)
        var time = startTime
        for (index, tempo) in sortedTempos.enumerated() {
            if index > 0 {
                let previous = sortedTempos[index - 1]
                time += (tempo.tick - previous.tick) / Double(ticksPerQuarter) * previous.secondsPerQuarter
            }
            times.append(time)
        }
        tempoTimes = times
    }

    /// The index of the tempo in effect at `tick`.
    private func tempoIndex(at tick: Double) -> Int {
        SortedSearch.lastIndex(in: tempos, atOrBefore: tick, key: \.tick)
    }

    /// The time of `tick` in seconds.
    func time(ofTick tick: Double) -> Double {
        let index = tempoIndex(at: tick)
        return tempoTimes[index] + (tick - tempos[index].tick) / ticksPerQuarter * tempos[index].secondsPerQuarter
    }

    /// A beat of the grid.
    struct Beat: Sendable, Equatable {
        var tick: Double
        var time: Double
        /// The meter in effect (index into ``meters``), or `nil` before the first time signature.
        var meter: Int?
        /// Whether the beat starts a bar (a whole number of bars after its time signature).
        var isDownbeat: Bool
    }

    /// The grid's beats from `startTick` through `endTick` and not after `endTime` seconds, refusing more
    /// than ``FormatSupport/maximumGridBeats``.
    func beats(fromTick startTick: Double, throughTick endTick: Double, endTime: Double, path: String)
        throws(InterchangeError) -> [Beat]
    {
        var beats: [Beat] = []
        // Regions of one beat length: before the first meter (quarters), then one per meter.
        var regions: [(start: Double, meter: Int?)] = []
        if meters.first.map({ $0.tick > 0 }) ?? true { regions.append((0, nil)) }
        for index in meters.indices { regions.append((meters[index].tick, index)) }
        var tempo = 0
        for (regionIndex, region) in regions.enumerated() {
            let regionEnd = regionIndex + 1 < regions.count ? regions[regionIndex + 1].start : Double.infinity
            let step: Double
            var numerator: Int?
            if let meter = region.meter {
                step = ticksPerQuarter * 4 / Double(meters[meter].denominator)
                numerator = meters[meter].numerator
            } else {
                step = ticksPerQuarter
            }
            var k = max(0, ((startTick - region.start) / step - 1e-9).rounded(.up))
            while true {
                let tick = region.start + k * step
                if tick >= regionEnd || tick > endTick + 1e-9 { break }
                while tempo + 1 < tempos.count && tempos[tempo + 1].tick <= tick { tempo += 1 }
                let time =
                    tempoTimes[tempo] + (tick - tempos[tempo].tick) / ticksPerQuarter * tempos[tempo].secondsPerQuarter
                if time > endTime + 1e-9 { return beats }
                guard beats.count < FormatSupport.maximumGridBeats else {
                    throw InterchangeError(path: path, "the tempo map gives over a million beats")
                }
                let isDownbeat = numerator.map { k.truncatingRemainder(dividingBy: Double($0)) == 0 } ?? false
                beats.append(Beat(tick: tick, time: time, meter: region.meter, isDownbeat: isDownbeat))
                k += 1
            }
            if regionEnd > endTick { break }
        }
        return beats
    }

    /// Tempo segments for `beats` (from ``beats(fromTick:throughTick:endTime:path:)``): one where the tempo
    /// or the meter changes, anchored at the change's first beat; a segment gets beats per bar when it
    /// starts on a bar line of a known meter. Tempo changes of less than 0.002 % (the rounding corrections
    /// of an exported tempo map) join the segment before them, whose tempo is then measured from its
    /// first to its last beat.
    func segments(of beats: [Beat]) -> [TempoSegment] {
        struct Raw {
            var first: Int
            var meter: Int?
            var bpm: Double
            var isDownbeat: Bool
            var merged = false
        }
        var raws: [Raw] = []
        var tempo = 0
        var previousTempo = -1
        for (index, beat) in beats.enumerated() {
            while tempo + 1 < tempos.count && tempos[tempo + 1].tick <= beat.tick { tempo += 1 }
            let meterChanged = index == 0 || beats[index - 1].meter != beat.meter
            if tempo != previousTempo || meterChanged {
                let quarters = beat.meter.map { 4 / Double(meters[$0].denominator) } ?? 1
                let bpm = 60 / (tempos[tempo].secondsPerQuarter * quarters)
                if let last = raws.last, !meterChanged, abs(last.bpm - bpm) <= last.bpm * 2e-5 {
                    // A rounding correction: the run's tempo is measured below.
                    raws[raws.count - 1].merged = true
                } else {
                    raws.append(Raw(first: index, meter: beat.meter, bpm: bpm, isDownbeat: beat.isDownbeat))
                }
                previousTempo = tempo
            }
        }
        var segments: [TempoSegment] = []
        for (index, raw) in raws.enumerated() {
            let last = index + 1 < raws.count ? raws[index + 1].first - 1 : beats.count - 1
            var bpm = raw.bpm
            if raw.merged, last > raw.first {
                let measured = 60 * Double(last - raw.first) / (beats[last].time - beats[raw.first].time)
                if abs(measured - bpm) <= bpm * 2e-5 { bpm = measured }
            }
            let perBar = raw.isDownbeat ? raw.meter.map { meters[$0].numerator } : nil
            if let previous = segments.last, abs(previous.bpm - bpm) < 1e-9, previous.beatsPerBar == perBar,
                perBar == nil
            {
                continue
            }
            segments.append(
                TempoSegment(
                    time: NumberFormatting.roundedToMicroseconds(beats[raw.first].time), bpm: bpm, beatsPerBar: perBar))
        }
        return segments
    }
}

/// How a format stores a tempo value: a whole number in some unit (MIDI: microseconds per quarter note;
/// `.chart`: thousandths of a BPM).
struct TempoUnit: Sendable {
    /// Seconds per quarter note of a stored value.
    let seconds: @Sendable (Int64) -> Double
    /// The stored value nearest `secondsPerQuarter` (not yet clamped).
    let value: @Sendable (Double) -> Double
    /// The values the format can store.
    let range: ClosedRange<Int64>

    /// MIDI `set_tempo`: microseconds per quarter note, 24 bits.
    static let microsecondsPerQuarter = TempoUnit(
        seconds: { Double($0) / 1_000_000 }, value: { $0 * 1_000_000 }, range: 1...0xFF_FFFF)
    /// `.chart` `B`: beats per minute × 1000.
    static let milliBPM = TempoUnit(
        seconds: { 60_000 / Double($0) }, value: { 60_000 / $0 }, range: 1...4_000_000_000)

    /// The stored value whose quarter note is nearest `length` seconds.
    func best(for length: Double) -> Int64 {
        let raw = value(length)
        guard raw.isFinite else { return raw > 0 ? range.upperBound : range.lowerBound }
        let low = Int64(max(Double(range.lowerBound), min(Double(range.upperBound), raw.rounded(.down))))
        let high = min(low + 1, range.upperBound)
        return abs(seconds(low) - length) <= abs(seconds(high) - length) ? low : high
    }
}

/// A beat map laid out on a tick grid for export to a tick-based format: each beat on a whole quarter
/// note, tempo events whose stored (rounded) values keep every beat within 50 µs of the fitted tempo
/// map, and time signatures at the map's downbeats.
struct TickTempoPlan: Sendable {
    /// A tempo event.
    struct TempoEvent: Sendable, Equatable {
        var tick: Int64
        var value: Int64
    }

    /// A time-signature event (the beat is a quarter note).
    struct MeterEvent: Sendable, Equatable {
        var tick: Int64
        var numerator: Int
    }

    /// Ticks per quarter note.
    let ticksPerQuarter: Int64
    /// Tempo events, the first at tick 0.
    let tempoEvents: [TempoEvent]
    /// Time signatures.
    let meterEvents: [MeterEvent]
    /// The ticks of the map's first and last beats.
    let firstBeatTick: Int64
    let lastBeatTick: Int64
    /// The first tick at or after the audio's end (or the last beat).
    let endTick: Int64
    /// The largest distance between a beat of the map and its time in the exported tempo map (seconds).
    let largestError: Double

    /// How far the rounded tempo values may let a beat drift before another tempo event corrects it.
    static let driftBound = 0.000_05

    /// Lays out `map` (checked exportable) with `ticksPerQuarter`, tempo values in `unit`, and the tempo map
    /// fitted through the beats within `tolerance` seconds. A first beat after 0 s gets a lead-in: as many
    /// quarter notes of the first tempo as fit before it (at least one), slightly stretched so the first
    /// beat lands on time.
    init(map: BeatMap, ticksPerQuarter: Int64, unit: TempoUnit, tolerance: Double, format: InterchangeFormat)
        throws(InterchangeError)
    {
        let fit = BeatGridFit(beats: map.beats, tempo: map.tempo, tolerance: tolerance)
        let first = map.beats[0]
        let firstLength = fit.beatLength(ofSegment: 0)
        var leadIn = 0
        if first >= 0.000_1 {
            leadIn = max(1, Int(min((first / firstLength).rounded(), 1e7)))
            let longest = max(unit.seconds(unit.range.lowerBound), unit.seconds(unit.range.upperBound)) * 0.99
            leadIn = max(leadIn, Int(min((first / longest).rounded(.up), 1e7)))
        }
        let lastNumber = leadIn + (fit.beatNumbers.last ?? 0)
        guard lastNumber < 20_000_000 else {
            throw InterchangeError(
                path: nil,
                "cannot export to \(format.rawValue): the beats span \(lastNumber) beats of the fitted tempo map (at most 20 million)"
            )
        }
        self.ticksPerQuarter = ticksPerQuarter
        firstBeatTick = Int64(leadIn) * ticksPerQuarter
        lastBeatTick = Int64(lastNumber) * ticksPerQuarter

        // The ideal time of each beat number, walked in order (knot by knot).
        var events: [TempoEvent] = []
        var current: Int64?
        var actual = 0.0
        var knot = 0
        var largest = first < 0.000_1 ? first : 0
        var beatIndex = 0
        var previousIdeal = 0.0
        for number in 0..<lastNumber {
            let next = number + 1
            let ideal: Double
            if next <= leadIn {
                ideal = first * Double(next) / Double(leadIn)
            } else {
                let relative = next - leadIn
                while knot + 1 < fit.knots.count && fit.knots[knot + 1].beat <= relative { knot += 1 }
                ideal = fit.knots[knot].time + Double(relative - fit.knots[knot].beat) * fit.beatLength(ofSegment: knot)
            }
            // The two stored values around this beat's length: alternating between them keeps the beats
            // within the bound with the fewest and smallest changes; anything else catches up at once.
            let length = ideal - previousIdeal
            previousIdeal = ideal
            let nearest = unit.best(for: length)
            let other =
                unit.seconds(nearest) < length
                ? nearest + (unit.seconds(nearest + 1) > unit.seconds(nearest) ? 1 : -1)
                : nearest + (unit.seconds(nearest + 1) > unit.seconds(nearest) ? -1 : 1)
            let pair = [nearest, min(max(other, unit.range.lowerBound), unit.range.upperBound)]
            func error(_ value: Int64) -> Double { abs(actual + unit.seconds(value) - ideal) }
            var value: Int64
            if let current, pair.contains(current), error(current) <= Self.driftBound {
                value = current
            } else {
                value = error(pair[0]) <= error(pair[1]) ? pair[0] : pair[1]
                if error(value) > Self.driftBound { value = unit.best(for: ideal - actual) }
            }
            if value != current {
                events.append(TempoEvent(tick: Int64(number) * ticksPerQuarter, value: value))
                current = value
            }
            actual += unit.seconds(value)
            if next >= leadIn {
                while beatIndex < fit.beatNumbers.count && fit.beatNumbers[beatIndex] + leadIn < next { beatIndex += 1 }
                if beatIndex < fit.beatNumbers.count && fit.beatNumbers[beatIndex] + leadIn == next {
                    largest = max(largest, abs(actual - map.beats[beatIndex]))
                }
            }
        }
        if events.isEmpty {
            // One beat at 0 s: the tempo of the map (or 120 BPM), for the time signature's sake.
            events.append(TempoEvent(tick: 0, value: unit.best(for: firstLength > 0 ? firstLength : 0.5)))
            current = events[0].value
        }
        tempoEvents = events
        largestError = largest

        // Time signatures at the map's downbeats: each segment with beats per bar starts a bar at its anchor.
        var meters: [MeterEvent] = []
        if let segments = map.tempo {
            for segment in segments.sorted(by: { $0.time < $1.time }) {
                guard let perBar = segment.beatsPerBar, perBar > 0, segment.time.isFinite else { continue }
                let number = Self.beatNumber(near: segment.time, beats: map.beats, numbers: fit.beatNumbers)
                let tick = Int64(max(0, leadIn + number)) * ticksPerQuarter
                if let last = meters.last, last.tick == tick { meters.removeLast() }
                if let last = meters.last, last.numerator == perBar { continue }
                meters.append(MeterEvent(tick: tick, numerator: perBar))
            }
        }
        meterEvents = meters

        var end = lastBeatTick
        if let value = current, map.audio.duration > actual {
            let perTick = unit.seconds(value) / Double(ticksPerQuarter)
            let extra = ((map.audio.duration - actual) / perTick).rounded(.up)
            end += Int64(min(extra, Double(0x0FFF_FFFF)))
        }
        endTick = end
    }

    /// The beat number (of the fit, first beat 0) nearest `time`: the nearest beat's, moved by whole beats
    /// of the local interval when `time` is outside the beats.
    static func beatNumber(near time: Double, beats: [Double], numbers: [Int]) -> Int {
        var low = 0
        var high = beats.count - 1
        while low < high {
            let mid = (low + high) / 2
            if beats[mid] < time { low = mid + 1 } else { high = mid }
        }
        var index = low
        if index > 0 && abs(beats[index - 1] - time) < abs(beats[index] - time) { index -= 1 }
        var number = numbers[index]
        if beats.count >= 2 {
            let interval: Double
            if index + 1 < beats.count {
                interval = (beats[index + 1] - beats[index]) / Double(numbers[index + 1] - numbers[index])
            } else {
                interval = (beats[index] - beats[index - 1]) / Double(numbers[index] - numbers[index - 1])
            }
            let shift = ((time - beats[index]) / interval).rounded()
            if shift.isFinite, abs(shift) < 1e7 { number += Int(shift) }
        }
        return number
    }
}
