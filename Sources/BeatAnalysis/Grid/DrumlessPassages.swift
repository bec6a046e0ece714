// SPDX-License-Identifier: GPL-3.0-or-later

import Foundation

// Followed beats through a passage without drums (session 73): the tracker follows what plays there,
// and where that is half a beat off the drums around it, the passage moves onto the drums' beat.

extension GridFitter {
    /// The fewest beats in a row with no drum heard that make a drumless passage: eight, two bars of
    /// 4/4 (the passages session 72's sections were split at).
    static let drumlessPassageBeats = 8

    /// The beats next to a passage that stand for the drums' beat on that side: eight, at least half
    /// of them with a drum heard.
    static let drumSideBeats = 8

    /// The passage's beats nearest a side that are read against that side's beat: four, a bar.
    static let passageEdgeBeats = 4

    /// Followed beats (`beats`, increasing, one per tracked beat) with each drumless passage that lies
    /// half a beat off the drummed beats around it moved onto their beat; `nil` when none moves.
    /// `drums` reads the kick plus snare at a time (``DrumDetector/strength(_:at:frameDuration:)``,
    /// `nil` where the detector's frames do not reach).
    ///
    /// Why: in a passage without drums (an intro, a break) the tracker follows what plays there — a
    /// melody's anticipations, chords on the off-beats — and can sit half a beat off the song's beat
    /// for the whole passage; the step that puts followed stretches back on the beat reads the kick,
    /// which such a passage does not have. The song's beat runs on through it, as a tempo change in a
    /// drumless passage goes where the drums return (``drumsReturn(from:since:to:change:over:drums:)``).
    ///
    /// How: a passage is ``drumlessPassageBeats`` or more beats in a row at which no drum is heard
    /// (under ``drumHeard``). A side of it is the ``drumSideBeats`` beats next to it, at least half
    /// of them with a drum heard, its beats on the drums (the drums heard at them, summed, outweigh
    /// those heard half a beat after each: a side whose drums fall between its beats is a stretch
    /// the tracker followed on the off-beats) and one steady run (each within 0.15 of a beat of the
    /// line, time against beat number, through them). From each side the passage's beats are read
    /// in turn, each against the line through the ``drumSideBeats`` before it on the way in, so that
    /// a drift is followed; the first that lies more than 0.15 of a beat off it starts a part half a
    /// beat off when it and the ``passageEdgeBeats`` − 1 after it all lie 0.3 to 0.7 of a beat from
    /// that line (a jump, not a drift away). The part ends before its beats jump back or at the
    /// passage's end. It moves only when every side the passage has finds it (from both sides: the
    /// beats both parts hold). Its beats move by half their own interval; a moved beat within two
    /// thirds of a beat of a beat kept is dropped (no interval under two thirds of a beat where the
    /// part meets the beats kept: two beats that close make a tap ambiguous), and where the part's
    /// ends leave a gap of two beats (over a beat and three quarters), the beat in its middle is
    /// added.
    static func drumlessPassagesOnTheDrums(_ beats: [Double], drums: (Double) -> Float?) -> [Double]? {
        let count = beats.count
        guard count >= drumlessPassageBeats + drumSideBeats else { return nil }
        let heard = beats.map(drums)
        let passages = Self.drumlessPassages(heard)

        // The line (time against beat number) through `anchor`'s beats, as the time of beat 0 and the
        // period; `nil` where it does not rise.
        func line(through anchor: Range<Int>) -> (origin: Double, period: Double)? {
            guard let line = Self.beatLine(beats, anchor) else { return nil }
            let period = line(1) - line(0)
            return period > 0 ? (line(0), period) : nil
        }
        // The phase of beat `member` against `line` (0 on it, 0.5 between).
        func phase(_ member: Int, on line: (origin: Double, period: Double)) -> Double {
            let position = (beats[member] - line.origin) / line.period
            return position - position.rounded(.down)
        }
        // On the line (within 0.15 of a beat), or half a beat off it (0.3 to 0.7).
        func isOn(_ phase: Double) -> Bool { min(phase, 1 - phase) <= 0.15 }
        func isHalfOff(_ phase: Double) -> Bool { phase >= 0.3 && phase <= 0.7 }
        // The ``drumSideBeats`` beats before `member` on a walk of `step`.
        func window(before member: Int, step: Int) -> Range<Int> {
            step > 0 ? (member - drumSideBeats)..<member : (member + 1)..<(member + 1 + drumSideBeats)
        }
        // Whether `member` and the ``passageEdgeBeats`` - 1 after it on a walk of `step` all lie in
        // `passage` and pass `test` against `line`.
        func edge(
            from member: Int, step: Int, in passage: Range<Int>, on line: (origin: Double, period: Double),
            _ test: (Double) -> Bool
        ) -> Bool {
            (0..<passageEdgeBeats).allSatisfy { offset in
                let index = member + offset * step
                return passage.contains(index) && test(phase(index, on: line))
            }
        }
        func isDrummed(_ side: Range<Int>) -> Bool { Self.isDrummedSide(side, of: beats, heard: heard, drums: drums) }
        // From a drummed side into the passage (`step` +1 from the side before it, -1 from the side
        // after it): the beats stay on the drums' beat — each read against the line through the
        // ``drumSideBeats`` before it on the walk, so that a drift is followed — up to the first
        // that lies over 0.15 of a beat off it; a part half a beat off starts there when that beat
        // and the ``passageEdgeBeats`` - 1 after it all lie 0.3 to 0.7 of a beat from that line (a
        // jump, not a drift away). The part ends before its beats jump back (``jumpsBack``) or at
        // the passage's end. Returns the part (at least ``passageEdgeBeats`` beats), or `nil`.
        func halfOffFrom(_ passage: Range<Int>, step: Int) -> Range<Int>? {
            var member = step > 0 ? passage.lowerBound : passage.upperBound - 1
            while passage.contains(member) {
                guard let drumsLine = line(through: window(before: member, step: step)) else { return nil }
                if isOn(phase(member, on: drumsLine)) {
                    member += step
                    continue
                }
                guard edge(from: member, step: step, in: passage, on: drumsLine, isHalfOff) else { return nil }
                // Through the part, up to a jump back.
                let jump = member
                var length = passageEdgeBeats
                while passage.contains(jump + length * step),
                    !jumpsBack(at: jump + length * step, step: step, part: length, drumsLine: drumsLine, in: passage)
                {
                    length += 1
                }
                let last = jump + (length - 1) * step
                return min(jump, last)..<(max(jump, last) + 1)
            }
            return nil
        }
        // Whether the part half a beat off, `part` beats long up to `member` (exclusive) on a walk of
        // `step`, ends at `member`: it and the ``passageEdgeBeats`` - 1 after it (all in `passage`)
        // lie back on `drumsLine` (within 0.15 of a beat) while the part is shorter than
        // ``drumSideBeats``, or 0.3 to 0.7 of a beat off the line through the part's last
        // ``drumSideBeats`` beats once it has them.
        func jumpsBack(
            at member: Int, step: Int, part: Int, drumsLine: (origin: Double, period: Double), in passage: Range<Int>
        ) -> Bool {
            if part < drumSideBeats { return edge(from: member, step: step, in: passage, on: drumsLine, isOn) }
            guard let own = line(through: window(before: member, step: step)) else { return false }
            return edge(from: member, step: step, in: passage, on: own, isHalfOff)
        }

        var moving: [Range<Int>] = []
        for passage in passages {
            let before = (passage.lowerBound - drumSideBeats)..<passage.lowerBound
            let after = passage.upperBound..<(passage.upperBound + drumSideBeats)
            // Per side: `nil` where there is no drummed side, `.some(nil)` where it does not say half.
            let fromBefore: Range<Int>?? = isDrummed(before) ? .some(halfOffFrom(passage, step: 1)) : nil
            let fromAfter: Range<Int>?? = isDrummed(after) ? .some(halfOffFrom(passage, step: -1)) : nil
            var range: Range<Int>?
            switch (fromBefore, fromAfter) {
            case (.some(let one?), .some(let other?)):
                // Both sides: the beats both parts hold.
                let lower = max(one.lowerBound, other.lowerBound)
                let upper = max(lower, min(one.upperBound, other.upperBound))
                range = upper - lower >= passageEdgeBeats ? lower..<upper : nil
            case (.some(let part?), nil), (nil, .some(let part?)): range = part
            default: range = nil
            }
            if let range { moving.append(range) }
        }
        guard !moving.isEmpty else { return nil }

        return Self.halfABeatLater(beats, parts: moving)
    }

    /// The drumless passages of beats whose drums are `heard` (``DrumDetector/strength(_:at:frameDuration:)``
    /// at each beat, `nil` where the detector's frames do not reach): runs of ``drumlessPassageBeats`` or
    /// more beats in a row at which no drum is heard (under ``drumHeard``).
    static func drumlessPassages(_ heard: [Float?]) -> [Range<Int>] {
        func isSilent(_ index: Int) -> Bool { heard[index].map { $0 < drumHeard } ?? false }
        var passages: [Range<Int>] = []
        var index = 0
        while index < heard.count {
            guard isSilent(index) else {
                index += 1
                continue
            }
            var end = index
            while end < heard.count, isSilent(end) { end += 1 }
            if end - index >= drumlessPassageBeats { passages.append(index..<end) }
            index = end
        }
        return passages
    }

    /// Whether `side` (indices into `beats`) is a drummed side of a passage: all its beats there, at
    /// least half with a drum heard, the drums at its beats outweighing those half a beat after them
    /// (`drums` read at a time), and its beats one steady run (each within 0.15 of a beat of the line
    /// through them).
    static func isDrummedSide(
        _ side: Range<Int>, of beats: [Double], heard: [Float?], drums: (Double) -> Float?
    ) -> Bool {
        let count = beats.count
        guard side.lowerBound >= 0, side.upperBound <= count,
            side.filter({ heard[$0].map { $0 >= drumHeard } ?? false }).count * 2 >= side.count
        else { return false }
        var on = 0.0
        var between = 0.0
        for member in side {
            let interval =
                member + 1 < count ? beats[member + 1] - beats[member] : beats[member] - beats[member - 1]
            guard let atBeat = heard[member], let halfway = drums(beats[member] + interval / 2) else {
                return false
            }
            on += Double(atBeat)
            between += Double(halfway)
        }
        // One steady run: each of its beats on the line through them.
        guard let line = Self.beatLine(beats, side) else { return false }
        let origin = line(0)
        let period = line(1) - origin
        guard period > 0 else { return false }
        return on > between
            && side.allSatisfy { member in
                let position = (beats[member] - origin) / period
                let phase = position - position.rounded(.down)
                return min(phase, 1 - phase) <= 0.15
            }
    }

    /// `beats` with each of `parts` (disjoint runs of indices, in order, each of at least two beats)
    /// moved half a beat later: each beat by half its own interval within the part (the last by half
    /// the one before it: the interval out of the part is the tracker's jump). Where a part meets the
    /// beats kept, a moved beat within two thirds of a beat of one is dropped (a tracker's stretch off
    /// the beat can run on past the part, and two beats half a beat apart make a tap ambiguous; a
    /// beat and a half is one beat missing), and a gap of two beats (over a beat and three quarters)
    /// gets the beat in its middle: a jump of a beat and a half, moved on by half a beat.
    static func halfABeatLater(_ beats: [Double], parts: [Range<Int>]) -> [Double] {
        let count = beats.count
        var result: [Double] = []
        var next = 0
        for part in parts {
            result += beats[next..<part.lowerBound]
            var moved = part.map { member -> Double in
                let interval =
                    member + 1 < part.upperBound
                    ? beats[member + 1] - beats[member] : beats[member] - beats[member - 1]
                return beats[member] + interval / 2
            }
            let following = part.upperBound < count ? beats[part.upperBound] : nil
            let typical = Self.median(ArraySlice(zip(beats[part].dropFirst(), beats[part]).map { $0 - $1 }))
            moved.removeAll { beat in
                (result.last.map { beat - $0 < 2 * typical / 3 } ?? false)
                    || (following.map { $0 - beat < 2 * typical / 3 } ?? false)
            }
            if let last = result.last, let first = moved.first, first - last > 1.75 * typical {
                moved.insert((last + first) / 2, at: 0)
            }
            if let following, let last = moved.last, following - last > 1.75 * typical {
                moved.append((last + following) / 2)
            }
            result += moved
            next = part.upperBound
        }
        result += beats[next...]
        return result
    }
}
