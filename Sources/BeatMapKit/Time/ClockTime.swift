// SPDX-License-Identifier: GPL-3.0-or-later

import Foundation

/// A time in a track as people write it: seconds (`90`, `90.5`) or minutes and seconds (`1:30`,
/// `1:30.5`, `1:30.250`). Every command that takes a time parses it with this one type, and every time
/// shown as a clock is written by ``formatted(_:)``.
public struct ClockTime: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The time in seconds (finite and ≥ 0).
    public var seconds: Double

    /// The start of the track.
    public static let zero = ClockTime(checked: 0)

    private init(checked seconds: Double) { self.seconds = seconds }

    /// The time `seconds` (finite and ≥ 0), or `nil`.
    public init?(seconds: Double) {
        guard seconds.isFinite, seconds >= 0 else { return nil }
        self.seconds = seconds
    }

    /// The time `text` names, or `nil`: `90`, `90.5`, `1:30` or `1:30.5` (minutes, then seconds below 60).
    /// Negative, non-finite and malformed times are `nil`.
    public init?(parsing text: String) {
        let parts = text.trimmingCharacters(in: .whitespaces).split(separator: ":", omittingEmptySubsequences: false)
        switch parts.count {
        case 1:
            guard let value = FormatSupport.number(parts[0]), !parts[0].hasPrefix("-") else { return nil }
            self.init(seconds: value)
        case 2:
            guard let minutes = Int(parts[0]), minutes >= 0, !parts[0].hasPrefix("+"),
                let seconds = FormatSupport.number(parts[1]), seconds >= 0, seconds < 60,
                !parts[1].hasPrefix("-"), !parts[1].hasPrefix("+")
            else { return nil }
            self.init(seconds: Double(minutes) * 60 + seconds)
        default: return nil
        }
    }

    /// What a time may look like, for a person: `seconds (90.5) or m:ss (1:30.5)`.
    public static let accepted = "seconds (90.5) or m:ss (1:30.5)"

    /// `1:05.250` (minutes, seconds, milliseconds); `0:32` for whole seconds.
    public var description: String { Self.formatted(seconds) }

    /// `1:05.250` (minutes, seconds, milliseconds); `0:32` for whole seconds; `?` when not finite.
    public static func formatted(_ seconds: Double) -> String {
        guard seconds.isFinite else { return "?" }
        let negative = seconds < 0
        let millis = Int((abs(seconds) * 1000).rounded())
        let minutes = millis / 60_000
        let rest = millis % 60_000
        var text = (negative ? "-" : "") + "\(minutes):" + String(format: "%02d", rest / 1000)
        if rest % 1000 != 0 { text += String(format: ".%03d", rest % 1000) }
        return text
    }

    public static func < (lhs: ClockTime, rhs: ClockTime) -> Bool { lhs.seconds < rhs.seconds }
}
