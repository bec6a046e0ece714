// SPDX-License-Identifier: GPL-3.0-or-later

public import Foundation

/// A command typed at the preview's terminal.
public enum TransportCommand: Sendable, Equatable {
    /// Space: pause or resume.
    case togglePause
    /// ←/→: seek by seconds.
    case seek(TimeInterval)
    /// `,`/`.`: previous/next beat.
    case stepBeats(Int)
    /// `+`/`-` (and `=`), `_`, ↑/↓: move the whole map by milliseconds.
    case nudge(Double)
    /// `l`: loop the current bar (again: stop looping).
    case toggleLoop
    /// `m`: mute/unmute the music.
    case toggleMusic
    /// `c`: mute/unmute the clicks.
    case toggleClicks
    /// `h`: the clicks half a beat later (again: back on the map's beats).
    case halfBeat
    /// `s`: save the nudged map.
    case save
    /// `q`, Ctrl-C: quit.
    case quit
}

/// Turns the bytes a terminal in raw mode sends into ``TransportCommand``s, keeping an incomplete
/// escape sequence for the next call.
public struct TransportKeyDecoder: Sendable {
    private var pending: [UInt8] = []

    /// A decoder with nothing pending.
    public init() {}

    /// The key legend as the preview shows it: two lines, each within 80 columns.
    public static let helpLines = [
        "space pause · ←/→ ±5 s · ,/. ±1 beat · +/- nudge ±1 ms (↑/↓ or _ ±10 ms)",
        "l loop bar · m music · c clicks · h ½ beat later · s save · q quit",
    ]

    /// The keys on one line, as the docs and `--help` show them.
    public static let help = helpLines.joined(separator: " · ")

    /// Decodes `bytes` (appended to what was pending).
    public mutating func decode(_ bytes: [UInt8]) -> [TransportCommand] {
        pending += bytes
        var commands: [TransportCommand] = []
        var index = 0
        while index < pending.count {
            let byte = pending[index]
            if byte == 0x1B {
                // ESC [ X, ESC O X, or ESC [ 1 ; m X (with a modifier: shift = 2).
                guard index + 1 < pending.count else { break }
                let introducer = pending[index + 1]
                guard introducer == UInt8(ascii: "[") || introducer == UInt8(ascii: "O") else {
                    index += 1
                    continue
                }
                var end = index + 2
                while end < pending.count, !(0x40...0x7E).contains(pending[end]) { end += 1 }
                guard end < pending.count else { break }
                let parameters = String(decoding: pending[(index + 2)..<end], as: UTF8.self)
                let shifted = parameters.hasSuffix(";2")
                switch pending[end] {
                case UInt8(ascii: "C"): commands.append(.seek(shifted ? 30 : 5))
                case UInt8(ascii: "D"): commands.append(.seek(shifted ? -30 : -5))
                case UInt8(ascii: "A"): commands.append(.nudge(10))
                case UInt8(ascii: "B"): commands.append(.nudge(-10))
                default: break
                }
                index = end + 1
                continue
            }
            switch byte {
            case UInt8(ascii: " "): commands.append(.togglePause)
            case UInt8(ascii: ","), UInt8(ascii: "<"): commands.append(.stepBeats(-1))
            case UInt8(ascii: "."), UInt8(ascii: ">"): commands.append(.stepBeats(1))
            case UInt8(ascii: "+"), UInt8(ascii: "="): commands.append(.nudge(1))
            case UInt8(ascii: "-"): commands.append(.nudge(-1))
            case UInt8(ascii: "_"): commands.append(.nudge(-10))
            case UInt8(ascii: "*"): commands.append(.nudge(10))
            case UInt8(ascii: "l"), UInt8(ascii: "L"): commands.append(.toggleLoop)
            case UInt8(ascii: "m"), UInt8(ascii: "M"): commands.append(.toggleMusic)
            case UInt8(ascii: "c"), UInt8(ascii: "C"): commands.append(.toggleClicks)
            case UInt8(ascii: "h"), UInt8(ascii: "H"): commands.append(.halfBeat)
            case UInt8(ascii: "s"), UInt8(ascii: "S"): commands.append(.save)
            case UInt8(ascii: "q"), UInt8(ascii: "Q"), 0x03, 0x04: commands.append(.quit)
            default: break
            }
            index += 1
        }
        pending.removeFirst(index)
        return commands
    }
}
