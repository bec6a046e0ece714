// SPDX-License-Identifier: GPL-3.0-or-later

import BeatMapKit
public import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The terminal in raw mode (keys arrive one by one, unechoed) with the cursor hidden, restored by
/// ``restore()`` or when the object goes away.
public final class RawTerminal {
    private var saved = termios()
    private var active = false
    private let input: Int32

    /// Whether standard input and output are both terminals.
    public static var isInteractive: Bool { isatty(STDIN_FILENO) == 1 && isatty(STDOUT_FILENO) == 1 }

    /// Puts standard input in raw mode; `nil` when it is not a terminal.
    public init?() {
        input = STDIN_FILENO
        guard isatty(input) == 1, tcgetattr(input, &saved) == 0 else { return nil }
        var raw = saved
        raw.c_lflag &= ~tcflag_t(ECHO | ICANON | ISIG | IEXTEN)
        raw.c_iflag &= ~tcflag_t(IXON | ICRNL)
        withUnsafeMutableBytes(of: &raw.c_cc) { bytes in
            bytes[Int(VMIN)] = 0
            bytes[Int(VTIME)] = 0
        }
        guard tcsetattr(input, TCSANOW, &raw) == 0 else { return nil }
        active = true
    }

    deinit { restore() }

    /// Puts the terminal back as it was.
    public func restore() {
        guard active else { return }
        active = false
        tcsetattr(input, TCSANOW, &saved)
    }

    /// The terminal's width in columns (80 when unknown).
    public var columns: Int {
        var size = winsize()
        guard ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return 80 }
        return Int(size.ws_col)
    }

    /// The bytes typed within `timeout` seconds (empty when none).
    public func read(timeout: TimeInterval) -> [UInt8] {
        var descriptor = pollfd(fd: input, events: Int16(POLLIN), revents: 0)
        guard poll(&descriptor, 1, Int32(timeout * 1000)) > 0 else { return [] }
        var buffer = [UInt8](repeating: 0, count: 64)
        let count = buffer.withUnsafeMutableBytes { systemRead(input, $0.baseAddress, 64) }
        return count > 0 ? Array(buffer[0..<count]) : []
    }
}

private func systemRead(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    #if canImport(Glibc)
        return Glibc.read(descriptor, buffer, count)
    #else
        return Darwin.read(descriptor, buffer, count)
    #endif
}

/// The interactive preview: reads keys, drives a ``PreviewPlayer`` and redraws the status lines.
/// It writes only through `write`, which the command line points at standard output.
@available(macOS 15, iOS 18, tvOS 18, visionOS 2, *)
public struct TerminalTransport {
    /// The player.
    public let player: PreviewPlayer
    /// Saves the nudged map.
    public var saver: MapSaver
    /// Where the screen goes.
    public let write: (String) -> Void

    /// A transport over `player`, saving with `saver`, drawing through `write`.
    public init(player: PreviewPlayer, saver: MapSaver, write: @escaping (String) -> Void) {
        self.player = player
        self.saver = saver
        self.write = write
    }

    /// The status lines for the player's current state.
    public func snapshot(message: String) -> StatusSnapshot {
        let schedule = player.schedule
        let index = player.currentBeatIndex
        let position = player.position
        let judge = player.judge
        let bar = index.map { schedule.positions[$0] }
        var beatsPerBar = BeatSchedule.assumedBeatsPerBar
        if let index, schedule.barsAreKnown {
            beatsPerBar = max(schedule.barRange(containing: index).count, bar?.beat ?? 1)
            if let tempo = player.material.map.tempo, let segment = TempoGrid(segments: tempo),
                let perBar = segment.segments[segment.segmentIndex(at: schedule.times[index])].beatsPerBar
            {
                beatsPerBar = perBar
            }
        }
        return StatusSnapshot(
            position: position, duration: player.duration, playing: player.isPlaying, beatIndex: index,
            beatCount: schedule.times.count, barPosition: bar, beatsPerBar: beatsPerBar,
            barsKnown: schedule.barsAreKnown,
            bpm: index.map { schedule.bpm[$0] }, sinceBeat: index.map { position - judge.beats[$0] },
            nudgeMilliseconds: player.offset * 1000, loopingBar: player.loopedBar,
            musicMuted: player.musicMuted, clicksMuted: player.clicksMuted, message: message,
            halfBeatLater: player.halfBeatLater)
    }

    /// Applies one command; returns the message to show, and whether to quit.
    public mutating func apply(_ command: TransportCommand) -> (message: String?, quit: Bool) {
        switch command {
        case .togglePause:
            do {
                let wasProblem = player.deviceProblem != nil
                try player.togglePause()
                return (wasProblem ? "audio output \"\(player.deviceName)\" works again" : "", false)
            } catch {
                return (error.localizedDescription, false)
            }
        case .seek(let seconds):
            player.seek(to: player.position + seconds)
        case .stepBeats(let count):
            player.step(beats: count)
        case .nudge(let milliseconds):
            player.nudge(milliseconds: milliseconds)
        case .toggleLoop:
            let bar = player.toggleLoopBar()
            return (bar.map { "looping bar \($0)" } ?? "loop off", false)
        case .toggleMusic:
            player.toggleMusic()
        case .toggleClicks:
            player.toggleClicks()
        case .halfBeat:
            switch player.toggleHalfBeat() {
            case true?: return ("clicks half a beat after the map's beats (h: back); s saves the map so", false)
            case false?: return ("clicks on the map's beats", false)
            case nil: return ("the map cannot move half a beat (too few beats inside the track)", false)
            }
        case .save:
            do {
                let outcome = try saver.save(offset: player.offset, halfBeatLater: player.halfBeatLater)
                let backup = outcome.backupPath.map { "; the previous file is kept as \($0)" } ?? ""
                let half = player.halfBeatLater ? " and half a beat later" : ""
                let dropped =
                    outcome.droppedBeats > 0
                    ? "; \(outcome.droppedBeats) beat\(outcome.droppedBeats == 1 ? "" : "s") moved out of the track dropped"
                    : ""
                return (
                    "saved \(outcome.path) (\(String(format: "%+.0f", outcome.offset * 1000)) ms\(half))\(dropped)\(backup)",
                    false
                )
            } catch {
                return (error.localizedDescription, false)
            }
        case .quit:
            return (nil, true)
        }
        return (nil, false)
    }

    /// Runs until `q`: keys from `terminal`, the screen redrawn about 30 times a second.
    public mutating func run(terminal: RawTerminal) {
        var decoder = TransportKeyDecoder()
        var message = "playing on \"\(player.deviceName)\""
        var drawn = 0
        write("\u{1B}[?25l")
        defer { write("\u{1B}[?25h\n") }
        var quit = false
        while !quit {
            for command in decoder.decode(terminal.read(timeout: 0.01)) {
                let result = apply(command)
                if let text = result.message { message = text }
                if result.quit {
                    quit = true
                    break
                }
            }
            for event in player.update() {
                switch event {
                case .reachedEnd: message = "end of track — space plays it again"
                case .deviceLost(let reason): message = "\(reason); playback paused — press space to try again"
                case .deviceRecovered(let reason): message = reason
                }
            }
            // One terminal row per line, so that moving the cursor back up redraws in place.
            let lines = StatusView.lines(snapshot(message: message), width: max(terminal.columns - 1, 10))
            var frame = drawn > 0 ? "\u{1B}[\(drawn)A" : ""
            for line in lines { frame += "\r\u{1B}[2K" + line + "\n" }
            write(frame)
            drawn = lines.count
        }
    }
}
