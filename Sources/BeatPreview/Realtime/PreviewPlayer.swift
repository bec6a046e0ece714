// SPDX-License-Identifier: GPL-3.0-or-later

public import BeatAudio
public import BeatMapKit
public import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The monotonic clock in seconds (`CLOCK_MONOTONIC`), the time base the callback converts the
/// stream's DAC times into. Reading it never touches the device, so a hung device cannot block the
/// control thread.
struct MonotonicSeconds: MonotonicTimeSource {
    func now() -> TimeInterval { Double(monotonicNanoseconds()) / 1e9 }
}

/// Passes an ``OutputStream`` from the control thread to a closing thread.
/// `@unchecked Sendable` is safe: the stream is used by one thread at a time — the control thread until
/// it drops its reference and hands the handle to the closing thread, which then is the only one to
/// touch it.
@available(macOS 15, iOS 18, tvOS 18, visionOS 2, *)
final class OutputStreamHandle: @unchecked Sendable {
    let stream: OutputStream
    init(_ stream: OutputStream) { self.stream = stream }
}

/// Something the control loop should tell the user.
public enum PlayerEvent: Sendable, Equatable {
    /// Playback reached the end of the track or span.
    case reachedEnd
    /// The output device stopped (the reason); playback is paused.
    case deviceLost(String)
    /// The output device works again.
    case deviceRecovered(String)
}

/// Figures about a playback session.
public struct PlaybackStatistics: Sendable, Equatable {
    /// Callbacks run.
    public var callbacks: Int
    /// Frames played.
    public var framesPlayed: Int
    /// Share of real time the callback spent rendering (render time ÷ duration of the audio rendered).
    public var renderLoad: Double
    /// The longest single callback render, in seconds.
    public var longestRender: TimeInterval
    /// PortAudio's own estimate (`Pa_GetStreamCpuLoad`), 0 when it has none.
    public var portAudioCPULoad: Double
    /// Seconds from the player's creation to the first block of sound.
    public var firstSoundLatency: TimeInterval?
    /// Blocks in which the decoder had not reached the playing position yet.
    public var decoderUnderruns: Int
    /// Blocks PortAudio flagged as output underflow.
    public var outputUnderflows: Int
}

/// Realtime preview: plays a ``PreviewMaterial`` through PortAudio and takes transport commands.
///
/// All methods belong to one control thread (the terminal loop); they reach the audio thread only
/// through ``TransportState``'s atomics. The display clock is a ``PlaybackClock`` driven by the
/// stream's own time: each callback reports which frame reaches the output when (its DAC time,
/// carried over to the monotonic clock), and ``update()`` aligns the clock with the latest report.
@available(macOS 15, iOS 18, tvOS 18, visionOS 2, *)
public final class PreviewPlayer {
    /// Where the output goes.
    public struct Options: Sendable {
        /// A case-insensitive part of the output device's name; `nil` for the default device.
        public var deviceName: String?
        /// Frames per callback.
        public var framesPerBuffer: Int
        /// Let PortAudio, ALSA and JACK print their probe messages.
        public var verbose: Bool
        /// When the command started (``PreviewPlayer/now()``), for the first-sound
        /// figure; `nil` for the player's creation.
        public var startedAt: Int?
        /// The sentence that tells the user how to listen without a device (appended to device errors);
        /// a front end names its own way to render a file.
        public var offlineHint: String
        /// How the user starts the preview again at a time (seconds), told when the audio output cannot
        /// be reopened; `nil`: "quit and start again at 12.34 s".
        public var restartAdvice: (@Sendable (Double) -> String)?

        /// Default options: the default device, 256-frame buffers.
        public init(
            deviceName: String? = nil, framesPerBuffer: Int = 256, verbose: Bool = false, startedAt: Int? = nil,
            offlineHint: String =
                "To listen without an audio device, render the mix to a file (OfflineRenderer.render).",
            restartAdvice: (@Sendable (Double) -> String)? = nil
        ) {
            self.deviceName = deviceName
            self.framesPerBuffer = framesPerBuffer
            self.verbose = verbose
            self.startedAt = startedAt
            self.offlineHint = offlineHint
            self.restartAdvice = restartAdvice
        }
    }

    /// What is played.
    public let material: PreviewMaterial
    /// The state shared with the audio thread.
    public let transport = TransportState()
    /// The display clock, driven by the stream's time.
    public private(set) var clock: PlaybackClock
    /// The device problem that paused playback, if any.
    public private(set) var deviceProblem: String?
    /// The name of the output device.
    public private(set) var deviceName: String = ""

    /// Output frames per second: the device's (the music's own rate when the device takes it).
    public private(set) var sampleRate: Int
    /// Whether the music is resampled to the device's rate.
    public var isResampling: Bool { sampleRate != material.sourceRate }

    private let options: Options
    private let settings: MixSettings
    private var mixer: Mixer?
    private var feed: MusicFeed?
    private var library: PortAudioLibrary?
    private var handle: OutputStreamHandle?
    private var closing: [OutputStreamHandle] = []
    private var closingSince = 0
    private let createdAt: Int
    private var lastReport: (frame: Int, time: Double)?
    private var userPaused = false
    private var previousPortAudioLoad = 0.0
    private var savedStandardError: Int32?

    /// The monotonic clock the player measures with (``Options/startedAt``), in nanoseconds.
    public static func now() -> Int { monotonicNanoseconds() }

    /// Seconds without a callback, while playing, after which the device counts as lost.
    public static let stallTimeout: TimeInterval = 2

    /// Prepares playback of `material` with the gains of `settings` and opens the output device.
    public init(material: PreviewMaterial, settings: MixSettings, options: Options = Options()) throws(PreviewError) {
        self.material = material
        self.options = options
        self.settings = settings
        sampleRate = material.sourceRate
        createdAt = options.startedAt ?? monotonicNanoseconds()
        clock = PlaybackClock(timeSource: MonotonicSeconds())
        transport.musicMuted.store(settings.musicMuted, ordering: .relaxed)
        transport.clicksMuted.store(settings.clicksMuted, ordering: .relaxed)
        transport.offsetMicroseconds.store(Int((settings.offset * 1e6).rounded()), ordering: .relaxed)
        signal(SIGPIPE, SIG_IGN)
        // ALSA, JACK and PortAudio print probe and runtime messages on standard error; keep them from
        // the user's terminal for the whole session unless asked for.
        if !options.verbose { savedStandardError = ProbeChatter.silence() }
        do {
            try openStream()
        } catch {
            restoreStandardError()
            throw error
        }
    }

    deinit { close() }

    private func openStream() throws(PreviewError) {
        let library: PortAudioLibrary
        if let existing = self.library {
            library = existing
        } else {
            library = try PortAudioLibrary(verbose: options.verbose)
            self.library = library
        }
        let device = try OutputStream.device(library: library, named: options.deviceName, render: options.offlineHint)
        let rate = OutputStream.rate(
            device: device.index, channels: material.channels, preferred: material.sourceRate,
            verbose: options.verbose)
        let feed: MusicFeed
        let mixer: Mixer
        if let existing = self.feed, let existingMixer = self.mixer, existing.sampleRate == rate {
            (feed, mixer) = (existing, existingMixer)
        } else {
            // A device at another rate (first open, or a reopened device): the music and clicks at its rate.
            self.feed?.stop()
            convertTransport(from: sampleRate, to: rate)
            mixer = try material.mixer(sampleRate: rate)
            feed = MusicFeed(stream: try material.stream(sampleRate: rate), transport: transport)
            self.feed = feed
            self.mixer = mixer
            sampleRate = rate
        }
        let context = RealtimeContext(
            mixer: mixer, feed: feed, transport: transport, musicGain: settings.musicGain,
            clickGain: settings.clickGain)
        let stream = try OutputStream(
            library: library, context: context, device: device, framesPerBuffer: options.framesPerBuffer,
            render: options.offlineHint)
        deviceName = stream.deviceName
        let handle = OutputStreamHandle(stream)
        self.handle = handle
        transport.lastCallbackNanoseconds.store(monotonicNanoseconds(), ordering: .relaxed)
        try stream.start()
    }

    /// Frame positions kept in the transport (loop, end) moved from one rate to another.
    private func convertTransport(from old: Int, to new: Int) {
        guard old != new else { return }
        func convert(_ frame: Int) -> Int {
            frame == TransportState.none ? frame : Mixer.frame(of: Double(frame) / Double(old), sampleRate: new)
        }
        transport.loopStart.store(convert(transport.loopStart.load(ordering: .relaxed)), ordering: .relaxed)
        transport.loopEnd.store(convert(transport.loopEnd.load(ordering: .relaxed)), ordering: .relaxed)
        transport.endFrame.store(convert(transport.endFrame.load(ordering: .relaxed)), ordering: .relaxed)
    }

    /// Moves the playing position to `frame`: the music feed starts decoding there and the callback
    /// takes the new position at its next buffer.
    private func moveTo(frame: Int) {
        feed?.request(frame: frame)
        transport.seekTarget.store(frame, ordering: .releasing)
    }

    /// Starts playing at `start` seconds, up to `end` seconds (default: the end of the track). With
    /// `completeAtEnd`, the stream stops at the end (for scripts); otherwise playback pauses there.
    /// Returns once the music feed holds the first seconds (or the whole span), so playback starts
    /// without a gap.
    public func play(from start: TimeInterval = 0, to end: TimeInterval? = nil, completeAtEnd: Bool = false) {
        let first = Mixer.frame(of: max(start, 0), sampleRate: sampleRate)
        let last = end.map { Mixer.frame(of: $0, sampleRate: sampleRate) }
        transport.endFrame.store(last ?? TransportState.none, ordering: .relaxed)
        transport.completeAtEnd.store(completeAtEnd, ordering: .relaxed)
        let ahead = MusicFeed.capacityFrames - MusicFeed.blockFrames
        feed?.prepare(frame: first, frames: min(ahead, (last ?? Int.max) - first), timeout: 2)
        transport.reachedEnd.store(false, ordering: .relaxed)
        transport.seekTarget.store(first, ordering: .releasing)
        transport.playing.store(true, ordering: .releasing)
        clock.start(at: max(start, 0))
    }

    /// Whether audio is playing (not paused by the user, the end or a device problem).
    public var isPlaying: Bool { transport.playing.load(ordering: .relaxed) }

    /// Pauses; the clock saves its position.
    public func pause() {
        userPaused = true
        transport.playing.store(false, ordering: .releasing)
        clock.pause()
    }

    /// Resumes; the clock recalibrates `start = now − savedPosition`. After a device problem this
    /// reopens the device first. Throws when the device still cannot be used.
    public func resume() throws(PreviewError) {
        if handle == nil || deviceProblem != nil {
            closeStream(abort: true)
            // Start PortAudio afresh so that it sees the devices as they are now, unless a hung
            // device is still being closed (PortAudio cannot shut down under it).
            closing.removeAll { $0.stream.hasFinishedClosing }
            let stuckFor = Double(monotonicNanoseconds() - closingSince) / 1e9
            if !closing.isEmpty && stuckFor < 3 {
                let reason = "the previous audio output is still shutting down; press space again in a moment"
                deviceProblem = reason
                throw .device(reason)
            }
            if closing.isEmpty {
                library?.terminate()
                library = nil
            }
            do {
                try openStream()
            } catch {
                var reason = error.localizedDescription
                if !closing.isEmpty {
                    let elapsed = clock.elapsed
                    let advice =
                        options.restartAdvice?(elapsed)
                        ?? "quit and start again at \(String(format: "%.2f", elapsed)) s"
                    reason =
                        "the previous audio output \"\(deviceName)\" does not shut down (its server may be gone), so "
                        + "PortAudio cannot look for devices again; " + advice
                }
                deviceProblem = reason
                throw .device(reason)
            }
            deviceProblem = nil
            moveTo(frame: Mixer.frame(of: clock.elapsed, sampleRate: sampleRate))
        }
        if transport.reachedEnd.load(ordering: .acquiring) {
            // Cleared here, not only by the callback when it takes the seek: the control loop checks for
            // the end right after this key, and a stale flag would pause again (a second press needed).
            let start = loopOrStartFrame()
            moveTo(frame: start)
            transport.reachedEnd.store(false, ordering: .releasing)
            clock.seek(to: Double(start) / Double(sampleRate))
        }
        userPaused = false
        transport.playing.store(true, ordering: .releasing)
        clock.resume()
    }

    private func loopOrStartFrame() -> Int {
        let start = transport.loopStart.load(ordering: .relaxed)
        return start != TransportState.none && transport.loopEnd.load(ordering: .relaxed) > start ? start : 0
    }

    /// Pauses or resumes.
    public func togglePause() throws(PreviewError) {
        if isPlaying { pause() } else { try resume() }
    }

    /// The track's duration in seconds: its real length once playback has met the end, before that the
    /// header's (or the map's, when the header does not say).
    public var duration: TimeInterval {
        if let frames = feed?.trackFrames.load(ordering: .acquiring), frames != MusicFeed.none {
            return Double(frames) / Double(sampleRate)
        }
        return material.headerDuration ?? material.map.audio.duration
    }

    /// Why decoding the music stopped early, if it did.
    public var decodingFailure: AudioDecodeError? { feed?.failure.withLock { $0 } }

    /// The position the listener hears, in seconds.
    public var position: TimeInterval { min(max(clock.elapsed, 0), duration) }

    /// Moves to `seconds` (clamped to the track).
    public func seek(to seconds: TimeInterval) {
        let target = min(max(seconds, 0), duration)
        moveTo(frame: Mixer.frame(of: target, sampleRate: sampleRate))
        clock.seek(to: target)
        lastReport = nil
    }

    /// The nudge in seconds added to every beat.
    public var offset: TimeInterval { Double(transport.offsetMicroseconds.load(ordering: .relaxed)) / 1e6 }

    /// Moves the whole map by `milliseconds` (positive: later).
    public func nudge(milliseconds: Double) {
        transport.offsetMicroseconds.add(Int((milliseconds * 1000).rounded()), ordering: .relaxed)
    }

    /// Whether the clicks sound half a beat after the map's beats (``toggleHalfBeat()``).
    public var halfBeatLater: Bool { transport.halfBeatLater.load(ordering: .relaxed) }

    /// Moves the clicks half a beat later (every beat by half of its own beat, as
    /// ``PreviewMaterial/laterSchedule`` holds them), or back. Returns whether they are now later, or
    /// `nil` when the map cannot take the shift. Nothing is allocated: both schedules are in the mixer.
    public func toggleHalfBeat() -> Bool? {
        guard material.laterSchedule != nil else { return nil }
        let later = !halfBeatLater
        transport.halfBeatLater.store(later, ordering: .relaxed)
        return later
    }

    /// The beats as the clicks play them: the map's, or half a beat later.
    public var schedule: BeatSchedule {
        halfBeatLater ? (material.laterSchedule ?? material.schedule) : material.schedule
    }

    /// The beat lookup over the nudged beats.
    public var judge: HitJudge { HitJudge(beats: schedule.times.map { $0 + offset }) }

    /// Moves to the next (`count` > 0) or previous beat(s).
    public func step(beats count: Int) {
        let beats = judge
        guard !beats.beats.isEmpty, count != 0 else { return }
        let now = position
        var index: Int
        if count > 0 {
            index = (beats.nextBeatIndex(atOrAfter: now + 0.001) ?? beats.beats.count - 1) + count - 1
        } else {
            // Back from just after a beat goes to the one before it, as a player's "previous" does.
            index = (beats.lastBeatIndex(atOrBefore: now - 0.15) ?? 0) + count + 1
        }
        index = min(max(index, 0), beats.beats.count - 1)
        seek(to: beats.beats[index])
    }

    /// The index of the latest beat at or before the heard position, or `nil` before the first.
    public var currentBeatIndex: Int? { judge.lastBeatIndex(atOrBefore: position + 1e-6) }

    /// The bar number being looped, or `nil`.
    public var loopedBar: Int? { isLooping ? loopBar : nil }
    private var loopBar: Int?

    /// Whether a bar is looping.
    public var isLooping: Bool {
        let start = transport.loopStart.load(ordering: .relaxed)
        return start != TransportState.none && transport.loopEnd.load(ordering: .relaxed) > start
    }

    /// Loops the bar that is playing, or stops looping. Returns the looped bar's number, or `nil`.
    @discardableResult
    public func toggleLoopBar() -> Int? {
        if isLooping {
            transport.loopEnd.store(TransportState.none, ordering: .relaxed)
            transport.loopStart.store(TransportState.none, ordering: .relaxed)
            return nil
        }
        let schedule = schedule
        guard let index = currentBeatIndex ?? (schedule.times.isEmpty ? nil : 0) else { return nil }
        let bar = schedule.barRange(containing: index)
        guard !bar.isEmpty else { return nil }
        let beats = judge.beats
        let start = beats[bar.lowerBound]
        let end: TimeInterval
        if bar.upperBound < beats.count {
            end = beats[bar.upperBound]
        } else {
            let last = beats[bar.upperBound - 1]
            end = last + (bar.count > 1 ? (last - beats[bar.lowerBound]) / Double(bar.count - 1) : 0.5)
        }
        let startFrame = Mixer.frame(of: max(start, 0), sampleRate: sampleRate)
        let endFrame = Mixer.frame(of: end, sampleRate: sampleRate)
        guard endFrame > startFrame else { return nil }
        transport.loopEnd.store(TransportState.none, ordering: .relaxed)
        transport.loopStart.store(startFrame, ordering: .relaxed)
        transport.loopEnd.store(endFrame, ordering: .relaxed)
        if position < start || position >= end { seek(to: start) }
        loopBar = schedule.positions[index].bar
        return loopBar
    }

    /// Whether the music is muted.
    public var musicMuted: Bool { transport.musicMuted.load(ordering: .relaxed) }
    /// Whether the clicks are muted.
    public var clicksMuted: Bool { transport.clicksMuted.load(ordering: .relaxed) }

    /// Mutes or unmutes the music.
    public func toggleMusic() {
        _ = transport.musicMuted.exchange(!musicMuted, ordering: .relaxed)
    }

    /// Mutes or unmutes the clicks.
    public func toggleClicks() {
        _ = transport.clicksMuted.exchange(!clicksMuted, ordering: .relaxed)
    }

    /// Aligns the clock with the stream and watches the device. Call it often (every display frame).
    public func update() -> [PlayerEvent] {
        var events: [PlayerEvent] = []
        guard let handle else { return events }
        let stream = handle.stream
        if let report = transport.latestReport(), lastReport.map({ $0 != report }) ?? true {
            lastReport = report
            if isPlaying && !transport.reachedEnd.load(ordering: .relaxed) {
                clock.synchronize(position: Double(report.frame) / Double(sampleRate), at: report.time)
            }
        }
        if transport.reachedEnd.load(ordering: .acquiring) && isPlaying {
            transport.playing.store(false, ordering: .releasing)
            clock.pause()
            clock.seek(to: Double(transport.position.load(ordering: .relaxed)) / Double(sampleRate))
            events.append(.reachedEnd)
        }
        if deviceProblem == nil {
            let silentFor =
                Double(monotonicNanoseconds() - transport.lastCallbackNanoseconds.load(ordering: .relaxed)) / 1e9
            let completed =
                transport.completeAtEnd.load(ordering: .relaxed) && transport.reachedEnd.load(ordering: .relaxed)
            if !stream.isActive && !completed {
                deviceLost("the audio output \"\(deviceName)\" stopped")
                events.append(.deviceLost(deviceProblem ?? ""))
            } else if silentFor > Self.stallTimeout && !completed {
                deviceLost("the audio output \"\(deviceName)\" has not asked for audio for \(Int(silentFor)) s")
                events.append(.deviceLost(deviceProblem ?? ""))
            }
        }
        return events
    }

    private func deviceLost(_ reason: String) {
        let wasPlaying = isPlaying
        transport.playing.store(false, ordering: .releasing)
        if wasPlaying { clock.pause() }
        deviceProblem = reason
        closeStream(abort: true)
    }

    /// Closes the stream without blocking the caller for more than a moment: a device that hangs is
    /// left to a background thread.
    private func closeStream(abort: Bool) {
        guard let handle else { return }
        self.handle = nil
        closing.append(handle)
        closingSince = monotonicNanoseconds()
        let closer = Thread { [handle] in handle.stream.close(abort: abort) }
        closer.start()
        var waited = 0
        while !handle.stream.hasFinishedClosing && waited < 200 {
            usleep(5_000)
            waited += 1
        }
    }

    /// For `--no-ui` playback of a span that completes: waits until the stream has played out (or a
    /// device problem), up to `timeout` seconds. Returns the device problem, if any.
    public func waitUntilFinished(timeout: TimeInterval) -> String? {
        let deadline = monotonicNanoseconds() + Int(timeout * 1e9)
        while monotonicNanoseconds() < deadline {
            _ = update()
            if let deviceProblem { return deviceProblem }
            if transport.reachedEnd.load(ordering: .acquiring), let handle, handle.stream.waitUntilInactive(timeout: 5)
            {
                return nil
            }
            usleep(5_000)
        }
        return "playback did not finish within \(Int(timeout)) s"
    }

    /// Figures so far.
    public var statistics: PlaybackStatistics {
        let frames = transport.framesPlayed.load(ordering: .relaxed)
        let render = Double(transport.renderNanoseconds.load(ordering: .relaxed)) / 1e9
        let first = transport.firstSoundNanoseconds.load(ordering: .relaxed)
        if let handle { previousPortAudioLoad = handle.stream.cpuLoad }
        return PlaybackStatistics(
            callbacks: transport.callbacks.load(ordering: .relaxed), framesPlayed: frames,
            renderLoad: frames > 0 ? render / (Double(frames) / Double(sampleRate)) : 0,
            longestRender: Double(transport.longestRenderNanoseconds.load(ordering: .relaxed)) / 1e9,
            portAudioCPULoad: previousPortAudioLoad,
            firstSoundLatency: first > 0 ? Double(first - createdAt) / 1e9 : nil,
            decoderUnderruns: transport.decoderUnderruns.load(ordering: .relaxed),
            outputUnderflows: transport.outputUnderflows.load(ordering: .relaxed))
    }

    /// Stops playback and closes the device.
    public func close() {
        transport.playing.store(false, ordering: .releasing)
        closeStream(abort: false)
        feed?.stop()
        library = nil
        restoreStandardError()
    }

    private func restoreStandardError() {
        if let saved = savedStandardError { ProbeChatter.restore(saved) }
        savedStandardError = nil
    }
}
