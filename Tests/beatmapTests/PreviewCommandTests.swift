// SPDX-License-Identifier: GPL-3.0-or-later

import Foundation
import Testing

/// The realtime path on a machine without a sound card: virtual ALSA devices made by the tests, and a
/// JACK server with its dummy (paced) backend for the interactive terminal.
@Suite("beatmap preview", .serialized)
struct PreviewCommandTests {
    @Test(
        "preview through a virtual ALSA device plays exactly the offline render of the same span",
        arguments: [(44_100, 2, "1.25", "3.5"), (22_050, 1, "0", "2"), (48_000, 2, "4.2", "6")])
    func captureEqualsRender(sampleRate: Int, channels: Int, from: String, to: String) throws {
        let folder = try CLI.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let audio = folder.appendingPathComponent("song.wav")
        try AudioFixtures.writeWAV(audio, sampleRate: sampleRate, channels: channels, seconds: 6) { frame, channel in
            0.3 * sin(2 * Double.pi * Double(220 + 110 * channel) * Double(frame) / Double(sampleRate))
        }
        let beats = stride(from: 0.1, to: 6, by: 60 / 137.0).map { String($0) }.joined(separator: ", ")
        try Data(
            """
            {"version": 1, "audio": {"path": "song.wav", "duration": 6}, "tempo": [{"time": 0.1, "bpm": 137, "beatsPerBar": 4}],
             "beats": [\(beats)]}
            """.utf8
        ).write(to: folder.appendingPathComponent("m.beatmap.json"))
        let rendered = try CLI.run(
            [
                "render", "song.wav", "m.beatmap.json", "-o", "span.wav", "--float", "--from", from, "--to", to,
                "--click-gain", "0",
            ],
            in: folder)
        #expect(rendered.status == 0, "\(rendered.stderr)")
        let expected = try AudioFixtures.readWAV(folder.appendingPathComponent("span.wav"))
        #expect(expected.channels == channels)
        #expect(!expected.samples.isEmpty)
        // ALSA's file device is not paced: it takes audio as fast as the CPU allows, so on a starved
        // machine the background decoder can genuinely fall behind and the player outputs silence (an
        // underrun, as a real device would). Up to three attempts separate that from a real mismatch,
        // which fails every attempt.
        var matched = false
        var lastReport = ""
        for attempt in 1...3 where !matched {
            let capture = folder.appendingPathComponent("capture-\(attempt).raw")
            let environment = try VirtualAudio.fileDevice(in: folder, capture: capture)
            let played = try CLI.run(
                ["preview", "song.wav", "m.beatmap.json", "--no-ui", "--from", from, "--to", to, "--click-gain", "0"],
                in: folder,
                environment: environment)
            #expect(played.status == 0, "\(played.stderr)")
            #expect(played.stderr.isEmpty, "device chatter reached the terminal: \(played.stderr)")
            #expect(played.stdout.contains("played"))
            // A capture past the limit is a starved player's silence piled up by the unpaced device: a
            // failed attempt, not read into memory.
            guard let captured = try VirtualAudio.floats(in: capture) else {
                lastReport = "attempt \(attempt): captured over \(VirtualAudio.captureLimit) bytes (a starved player)"
                try? FileManager.default.removeItem(at: capture)
                continue
            }
            matched = VirtualAudio.exactMatchOffset(of: expected.samples, in: captured, channels: channels) != nil
            lastReport = "attempt \(attempt): captured \(captured.count) samples, render \(expected.samples.count)"
            try? FileManager.default.removeItem(at: capture)
        }
        #expect(matched, "the captured stream does not contain the render exactly (\(lastReport))")
    }

    @Test("no output device: a clear error that points to beatmap render, no device chatter")
    func noDevice() throws {
        let folder = try CLI.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        _ = try AudioFixtures.song(in: folder, seconds: 2)
        let environment = try VirtualAudio.noDevice(in: folder)
        let result = try CLI.run(
            ["preview", "song.wav", "song.beatmap.json", "--no-ui"], in: folder, environment: environment)
        #expect(result.status == 2)
        #expect(result.stderr.contains("no audio output device"))
        #expect(result.stderr.contains("beatmap render song.wav song.beatmap.json -o preview.wav"))
        #expect(!result.stderr.contains("ALSA lib"))
        #expect(!result.stderr.lowercased().contains("jack"))
        let verbose = try CLI.run(
            ["preview", "song.wav", "song.beatmap.json", "--no-ui", "--verbose"], in: folder, environment: environment)
        #expect(verbose.status == 2)
        #expect(verbose.stderr.contains("ALSA lib"))
    }

    @Test("a device that stops taking audio pauses playback with a clear message instead of hanging")
    func stalledDevice() throws {
        let folder = try CLI.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        _ = try AudioFixtures.song(in: folder, seconds: 30)
        let fifo = folder.appendingPathComponent("device.fifo")
        #expect(mkfifo(fifo.path, 0o600) == 0)
        // The "device" takes 200 kB, then stops reading but stays open for 30 s: the writer blocks, as on a
        // hung device. Ending well before the reader lets go (and saying why) shows the watchdog stopped it;
        // the margin leaves room for a sanitizer build on a busy machine.
        let reader = try VirtualAudio.shell("exec 3<'\(fifo.path)'; head -c 200000 <&3 >/dev/null; exec sleep 30")
        defer { reader.terminate() }
        let environment = try VirtualAudio.fileDevice(in: folder, capture: fifo)
        let started = Date()
        let result = try CLI.run(
            ["preview", "song.wav", "song.beatmap.json", "--no-ui"], in: folder, environment: environment)
        let elapsed = Date().timeIntervalSince(started)
        #expect(result.status == 2)
        #expect(result.stderr.contains("has not asked for audio"), "\(result.stderr)")
        #expect(elapsed < 20, "took \(elapsed) s")
    }

    @Test(
        "at a terminal (tmux, JACK dummy device): shows the transport, pauses, nudges, moves the clicks half a beat, saves keeping a backup, quits"
    )
    func interactive() throws {
        try #require(
            VirtualAudio.hasTool("tmux") && VirtualAudio.hasTool("jackd"),
            "needs tmux and jackd (tools/setup.sh installs them)")
        let folder = try CLI.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let song = try AudioFixtures.song(in: folder, seconds: 20)
        let original = try Data(contentsOf: song.map)
        let server = "beatmap-test-\(UUID().uuidString.prefix(8))"
        let socket = "beatmap-test-\(UUID().uuidString.prefix(8))"
        let jack = try VirtualAudio.shell("exec jackd -n \(server) -d dummy -r 44100 -p 256 >/dev/null 2>&1")
        defer {
            jack.terminate()
            jack.waitUntilExit()
        }
        let ready = try VirtualAudio.shell("JACK_DEFAULT_SERVER=\(server) jack_wait -w -t 10 >/dev/null 2>&1")
        ready.waitUntilExit()
        #expect(ready.terminationStatus == 0, "the JACK dummy server did not start")
        let command =
            "cd '\(folder.path)' && JACK_DEFAULT_SERVER=\(server) '\(CLI.binary.path)' preview song.wav song.beatmap.json --device system; "
            + "echo \\$? > exit-status"
        // Not waited for: the tmux server it starts inherits the descriptors Foundation watches.
        try VirtualAudio.shell("tmux -L \(socket) new-session -d -s preview -x 160 -y 8 \"\(command)\"")
        defer { try? VirtualAudio.shell("tmux -L \(socket) kill-server").waitUntilExit() }
        func screen(until shown: (String) -> Bool = { _ in true }) throws -> String {
            try Self.screen(socket: socket, until: shown)
        }
        func keys(_ keys: String...) throws {
            try VirtualAudio.shell(
                "tmux -L \(socket) send-keys -t preview " + keys.map { "'\($0)'" }.joined(separator: " ")
            ).waitUntilExit()
            Thread.sleep(forTimeInterval: 0.4)
        }
        let playing = try screen { $0.contains("bar 1.") && $0.contains("120.0 BPM") }
        #expect(playing.contains("▶"), "\(playing)")
        #expect(playing.contains("/ 0:20.000"))
        #expect(playing.contains("beat "))
        #expect(playing.contains("/\(song.beats.count)"))
        #expect(playing.contains("bar 1."))
        #expect(playing.contains("120.0 BPM"))
        try keys(" ")
        let paused = try screen { $0.contains("‖") }
        #expect(paused.contains("‖"), "\(paused)")
        Thread.sleep(forTimeInterval: 0.5)
        #expect(try screen().components(separatedBy: "\n").first == paused.components(separatedBy: "\n").first)
        try keys("+", "+", "+", "Up")
        let nudged = try screen { $0.contains("nudge +13 ms") }
        #expect(nudged.contains("nudge +13 ms"), "\(nudged)")
        // h: the clicks half a beat later, and the save moves the beats so (120 BPM: 250 ms).
        try keys("h")
        let later = try screen { $0.contains("nudge +13 ms + ½ beat") }
        #expect(later.contains("nudge +13 ms + ½ beat"), "\(later)")
        #expect(later.contains("clicks half a beat after the map's beats"))
        try keys("s")
        let saved = try screen { $0.contains("saved") }
        #expect(saved.contains("saved"), "\(saved)")
        try keys("q")
        // The shell writes the exit status once preview has quit; read until it has.
        let exitStatus = folder.appendingPathComponent("exit-status")
        let status = Self.polled(until: { $0.hasSuffix("\n") }) {
            (try? String(contentsOf: exitStatus, encoding: .utf8)) ?? ""
        }
        #expect(status.trimmingCharacters(in: .whitespacesAndNewlines) == "0")
        #expect(try Data(contentsOf: folder.appendingPathComponent("song.beatmap.json.bak")) == original)
        let text = try String(contentsOf: song.map, encoding: .utf8)
        let first = String(format: "%.3f", song.beats[0] + 0.25 + 0.013)
        #expect(text.contains(first), "\(text.prefix(300))")
    }

    /// How long a terminal test waits for the screen to show what a key press or the playhead should
    /// bring, in seconds. The screen is read every 0.1 s until then, so a machine busy with the rest of
    /// the suite (a save that validates and writes, a playhead behind a slow start) does not fail the test.
    static let screenDeadline: TimeInterval = 10

    /// `read`'s result, read again every 0.1 s until `accepted` holds for it or ``screenDeadline``
    /// passes (then the last reading, for the test's expectation to report).
    static func polled(until accepted: (String) -> Bool, _ read: () throws -> String) rethrows -> String {
        let deadline = Date().addingTimeInterval(screenDeadline)
        while true {
            let text = try read()
            if accepted(text) || Date() >= deadline { return text }
            Thread.sleep(forTimeInterval: 0.1)
        }
    }

    /// The tmux pane `preview` on `socket` as text, read again (``polled(until:_:)``) until `shown`
    /// accepts it or ``screenDeadline`` passes.
    static func screen(socket: String, until shown: (String) -> Bool) throws -> String {
        try polled(until: shown) {
            let pipe = Pipe()
            let capture = Process()
            capture.executableURL = URL(fileURLWithPath: "/bin/sh")
            capture.arguments = ["-c", "tmux -L \(socket) capture-pane -p -t preview"]
            capture.standardOutput = pipe
            try capture.run()
            let data = pipe.fileHandleForReading.readDataToEndOfFile()
            capture.waitUntilExit()
            return String(decoding: data, as: UTF8.self)
        }
    }

    /// The JACK dummy server's period, in frames, for the terminal tests.
    static let jackPeriod = 256

    /// The period for the capture test. The dummy backend paces cycles with a timer, and a wake-up later
    /// than one period is an xrun, at which the recorder can miss a whole cycle. On the CI machine, busy
    /// with the rest of the suite, 256 frames (5.3 ms) gave 19–78 xruns in 5 s; at 2048 frames (43 ms)
    /// a wake-up must be eight times as late to count.
    static let capturePeriod = 2048

    /// Starts a JACK server with the dummy (paced) backend at `rate` and `period` frames; its messages
    /// (one line per xrun) go to `log` when given. Stop it with the returned process.
    static func jackServer(rate: Int, period: Int = jackPeriod, log: URL? = nil) throws -> (
        process: Process, name: String
    ) {
        let server = "beatmap-test-\(UUID().uuidString.prefix(8))"
        let output = log.map { "'\($0.path)'" } ?? "/dev/null"
        let jack = try VirtualAudio.shell(
            "exec jackd -n \(server) -d dummy -r \(rate) -p \(period) >\(output) 2>&1")
        let ready = try VirtualAudio.shell("JACK_DEFAULT_SERVER=\(server) jack_wait -w -t 10 >/dev/null 2>&1")
        ready.waitUntilExit()
        #expect(ready.terminationStatus == 0, "the JACK dummy server did not start")
        return (jack, server)
    }

    @Test(
        "44.1 kHz music on a 48 kHz device (JACK dummy): played at 48 kHz, resampled, the capture equals the render at 48 kHz"
    )
    func resampledCaptureEqualsRender() throws {
        try #require(
            VirtualAudio.hasTool("jackd") && VirtualAudio.hasTool("jack_rec"),
            "needs jackd and jack_rec (tools/setup.sh installs jackd2)")
        let folder = try CLI.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        _ = try AudioFixtures.song(in: folder, seconds: 8)
        let rendered = try CLI.run(
            [
                "render", "song.beatmap.json", "-o", "span.wav", "--float", "--rate", "48000", "--from", "1", "--to",
                "6", "--click-gain", "0",
            ],
            in: folder)
        #expect(rendered.status == 0, "\(rendered.stderr)")
        let expected = try AudioFixtures.readWAV(folder.appendingPathComponent("span.wav"))
        #expect(expected.sampleRate == 48_000)
        try #require(expected.samples.count == 5 * 48_000 * 2)
        let jackLog = folder.appendingPathComponent("jackd.log")
        let (jack, server) = try Self.jackServer(rate: 48_000, period: Self.capturePeriod, log: jackLog)
        defer {
            jack.terminate()
            jack.waitUntilExit()
        }
        // jack_rec records from PortAudio's ports once they exist: it joins a moment after playback starts,
        // so the capture is a stretch of the render from some frame on, to the end of the span.
        let script = """
            cd '\(folder.path)'
            export JACK_DEFAULT_SERVER=\(server)
            '\(CLI.binary.path)' preview song.beatmap.json --no-ui --verbose --device system --from 1 --to 6 --click-gain 0 \
              > played.txt 2> played.err &
            for i in $(seq 1 500); do jack_lsp 2>/dev/null | grep -q PortAudio:out_1 && break; sleep 0.01; done
            jack_rec -f capture.wav -d 6 -b 32 -B 524288 PortAudio:out_0 PortAudio:out_1 > recorder.txt 2>&1
            wait
            """
        // jack_rec stores 32-bit integers: equal to the float render within 2⁻³¹.
        func same(_ a: Float, _ b: Float) -> Bool { abs(a - b) <= 1e-9 }
        // The capture must be the render bit for bit from its first sound to the span's end, then
        // silence. The dummy device paces its cycles with a timer; on a busy or jittery machine a late
        // wake-up is an xrun, at which jack_rec can miss one whole cycle: JackCapture allows the render
        // to jump ahead by whole periods there, at most once per xrun the player reported. jack_rec
        // queues each frame's channels one sample at a time into a ring buffer its disk thread drains,
        // and drops what does not fit (likely what once lost 49 frames of one channel on a busy
        // machine): -B, in frames, makes the ring hold more than the whole capture, so a slow disk
        // thread loses nothing. Up to three takes, one of which must pass; every take's findings, with
        // the server's and the recorder's own counts, are reported on failure.
        var takes: [String] = []
        for _ in 1...3 {
            let run = try VirtualAudio.shell(script)
            run.waitUntilExit()
            let played = try String(contentsOf: folder.appendingPathComponent("played.txt"), encoding: .utf8)
            #expect(played.contains("at 48000 Hz (the music resampled from 44100 Hz)"), "\(played)")
            #expect(played.contains("decoder underruns 0;"), "\(played)")
            let xruns = try #require(
                played.firstMatch(of: /output underflows (\d+)/).flatMap { Int($0.1) }, "no statistics: \(played)")
            let recorder =
                (try? String(contentsOf: folder.appendingPathComponent("recorder.txt"), encoding: .utf8))
                .map { $0.split(separator: "\n").filter { $0.contains("overrun") }.joined(separator: "; ") } ?? ""
            let serverXruns = ((try? String(contentsOf: jackLog, encoding: .utf8)) ?? "")
                .split(separator: "\n").filter { $0.contains("XRun") }.count
            let machine = "server xruns so far \(serverXruns); recorder: \(recorder.isEmpty ? "no overruns" : recorder)"
            let captured = try AudioFixtures.readWAV(folder.appendingPathComponent("capture.wav"))
            #expect(captured.sampleRate == 48_000)
            do {
                let reading = try JackCapture(
                    capture: captured.samples, render: expected.samples, channels: 2, period: Self.capturePeriod,
                    same: same)
                #expect(reading.framesHeard >= 2 * 48_000, "captured only \(reading.framesHeard) frames of the span")
                if reading.jumps.count <= xruns { return }
                takes.append("\(reading.jumps.count) missed stretches but \(xruns) xruns; \(machine); \(played)")
            } catch {
                takes.append("\(error); \(machine); \(played)")
            }
        }
        Issue.record("no take is the render: \(takes.joined(separator: " | "))")
    }

    @Test("at the end of the track one key press plays it again; at 80 columns nothing is cut (tmux, JACK dummy)")
    func restartAtEndAtEightyColumns() throws {
        try #require(
            VirtualAudio.hasTool("tmux") && VirtualAudio.hasTool("jackd"),
            "needs tmux and jackd (tools/setup.sh installs them)")
        let folder = try CLI.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        _ = try AudioFixtures.song(in: folder, seconds: 2)
        let (jack, server) = try Self.jackServer(rate: 44_100)
        defer {
            jack.terminate()
            jack.waitUntilExit()
        }
        let socket = "beatmap-test-\(UUID().uuidString.prefix(8))"
        let command =
            "cd '\(folder.path)' && JACK_DEFAULT_SERVER=\(server) '\(CLI.binary.path)' preview song.beatmap.json --device system"
        try VirtualAudio.shell("tmux -L \(socket) new-session -d -s preview -x 80 -y 8 \"\(command)\"")
        defer { try? VirtualAudio.shell("tmux -L \(socket) kill-server").waitUntilExit() }
        func screen(until shown: (String) -> Bool = { _ in true }) throws -> String {
            try Self.screen(socket: socket, until: shown)
        }
        let ended = try screen { $0.contains("end of track") }
        #expect(ended.contains("end of track"), "\(ended)")
        #expect(ended.contains("‖"))
        #expect(ended.contains("q quit"), "the key legend is cut at 80 columns: \(ended)")
        #expect(!ended.contains("…"), "\(ended)")
        try VirtualAudio.shell("tmux -L \(socket) send-keys -t preview ' '").waitUntilExit()
        let again = try screen { $0.contains("▶") }
        #expect(again.contains("▶"), "one press did not play again: \(again)")
        try VirtualAudio.shell("tmux -L \(socket) send-keys -t preview q").waitUntilExit()
    }
}
