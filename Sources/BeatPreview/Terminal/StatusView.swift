// SPDX-License-Identifier: GPL-3.0-or-later

public import Foundation

/// What the preview's status lines show, as plain values.
public struct StatusSnapshot: Sendable, Equatable {
    /// Heard position in seconds.
    public var position: TimeInterval
    /// Track duration in seconds.
    public var duration: TimeInterval
    /// Whether audio is playing.
    public var playing: Bool
    /// Index of the latest beat at or before the position.
    public var beatIndex: Int?
    /// Number of beats.
    public var beatCount: Int
    /// Bar and beat of that beat.
    public var barPosition: BarPosition?
    /// Beats per bar (known or assumed).
    public var beatsPerBar: Int
    /// Whether bars come from the map.
    public var barsKnown: Bool
    /// Tempo at that beat.
    public var bpm: Double?
    /// Seconds since that beat (for the pulse).
    public var sinceBeat: TimeInterval?
    /// The nudge in milliseconds.
    public var nudgeMilliseconds: Double
    /// The looping bar, if any.
    public var loopingBar: Int?
    /// Music muted.
    public var musicMuted: Bool
    /// Clicks muted.
    public var clicksMuted: Bool
    /// The latest message (a save, a device problem).
    public var message: String
    /// Whether the clicks sound half a beat after the map's beats (the preview's `h`).
    public var halfBeatLater: Bool

    /// A snapshot.
    public init(
        position: TimeInterval, duration: TimeInterval, playing: Bool, beatIndex: Int?, beatCount: Int,
        barPosition: BarPosition?,
        beatsPerBar: Int, barsKnown: Bool, bpm: Double?, sinceBeat: TimeInterval?, nudgeMilliseconds: Double,
        loopingBar: Int?,
        musicMuted: Bool, clicksMuted: Bool, message: String, halfBeatLater: Bool = false
    ) {
        self.position = position
        self.duration = duration
        self.playing = playing
        self.beatIndex = beatIndex
        self.beatCount = beatCount
        self.barPosition = barPosition
        self.beatsPerBar = beatsPerBar
        self.barsKnown = barsKnown
        self.bpm = bpm
        self.sinceBeat = sinceBeat
        self.nudgeMilliseconds = nudgeMilliseconds
        self.loopingBar = loopingBar
        self.musicMuted = musicMuted
        self.clicksMuted = clicksMuted
        self.message = message
        self.halfBeatLater = halfBeatLater
    }
}

/// Formats the preview's status lines.
public enum StatusView {
    /// How long the pulse stays lit after each beat.
    public static let pulseDuration: TimeInterval = 0.12

    /// `m:ss.mmm`.
    public static func clock(_ seconds: TimeInterval) -> String {
        let milliseconds = Int((max(seconds, 0) * 1000).rounded(.down))
        let minutes = milliseconds / 60_000
        let rest = milliseconds % 60_000
        return String(format: "%d:%02d.%03d", minutes, rest / 1000, rest % 1000)
    }

    /// The lines for `snapshot` (without terminal control codes), each at most `width` characters: the
    /// status line drops the bar's dots, then the "4/4 assumed" note, before anything is cut, and the key
    /// legend takes two lines (``TransportKeyDecoder/helpLines``). The message line is cut with "…".
    public static func lines(_ snapshot: StatusSnapshot, width: Int = 80) -> [String] {
        let state = snapshot.playing ? "▶" : "‖"
        let beat = snapshot.beatIndex.map { "beat \($0 + 1)/\(snapshot.beatCount)" } ?? "beat -/\(snapshot.beatCount)"
        let bar = snapshot.barPosition.map { "bar \($0.bar).\($0.beat)" } ?? "bar -.-"
        let assumed = snapshot.barPosition != nil && !snapshot.barsKnown ? " (4/4 assumed)" : ""
        let bpm = snapshot.bpm.map { String(format: "%.1f BPM", $0) } ?? "--- BPM"
        let lit = (snapshot.sinceBeat.map { $0 >= 0 && $0 < pulseDuration } ?? false) && snapshot.playing
        let accent = snapshot.barPosition?.beat == 1 && snapshot.barsKnown
        let pulse = lit ? (accent ? "◆" : "●") : "·"
        var dots = ""
        if let position = snapshot.barPosition, snapshot.beatsPerBar <= 16 {
            dots = (1...max(snapshot.beatsPerBar, 1)).map { $0 == position.beat ? "■" : "□" }.joined(separator: " ")
        }
        let time = "\(state) \(clock(snapshot.position)) / \(clock(snapshot.duration))"
        let candidates = [
            "\(time)   \(beat)   \(bar)\(assumed)   \(bpm)   \(pulse) \(dots)",
            "\(time)  \(beat)  \(bar)\(assumed)  \(bpm)  \(pulse)",
            "\(time)  \(beat)  \(bar)  \(bpm)  \(pulse)",
        ]
        let first = candidates.first { $0.count <= width } ?? fit(candidates[candidates.count - 1], width: width)
        let nudge =
            String(format: "nudge %+.0f ms", snapshot.nudgeMilliseconds) + (snapshot.halfBeatLater ? " + ½ beat" : "")
        let loop = snapshot.loopingBar.map { "loop bar \($0)" } ?? "no loop"
        let second = fit(
            "\(nudge)   \(loop)   music \(snapshot.musicMuted ? "muted" : "on")   clicks \(snapshot.clicksMuted ? "muted" : "on")",
            width: width)
        let legend = TransportKeyDecoder.helpLines.map { fit($0, width: width) }
        return [first.trimmingCharacters(in: .whitespaces), second] + legend + [fit(snapshot.message, width: width)]
    }

    /// `line` cut to `width` characters, ending in "…" when cut.
    public static func fit(_ line: String, width: Int) -> String {
        let flat = line.replacingOccurrences(of: "\n", with: " ")
        guard flat.count > width else { return flat }
        return width > 1 ? String(flat.prefix(width - 1)) + "…" : String(flat.prefix(max(width, 0)))
    }
}
