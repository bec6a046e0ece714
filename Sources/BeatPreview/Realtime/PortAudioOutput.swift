// SPDX-License-Identifier: GPL-3.0-or-later

import BeatMapKit
import CPortAudio
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Monotonic nanoseconds (`CLOCK_MONOTONIC`); safe on the audio thread (no allocation, no lock).
@inline(__always)
func monotonicNanoseconds() -> Int {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return Int(now.tv_sec) * 1_000_000_000 + Int(now.tv_nsec)
}

/// Sends the process's standard error to /dev/null while PortAudio probes its host APIs (ALSA, JACK
/// and OSS print connection attempts there), unless `verbose`.
enum ProbeChatter {
    static func hidden<T>(unless verbose: Bool, _ body: () throws -> T) rethrows -> T {
        if verbose { return try body() }
        fflush(nil)
        let saved = dup(STDERR_FILENO)
        let null = open("/dev/null", O_WRONLY)
        if saved >= 0 && null >= 0 { dup2(null, STDERR_FILENO) }
        if null >= 0 { close(null) }
        defer {
            fflush(nil)
            if saved >= 0 {
                dup2(saved, STDERR_FILENO)
                close(saved)
            }
        }
        return try body()
    }

    /// Sends standard error to /dev/null until ``restore(_:)``; returns the saved descriptor.
    static func silence() -> Int32? {
        fflush(nil)
        let saved = dup(STDERR_FILENO)
        let null = open("/dev/null", O_WRONLY)
        guard saved >= 0, null >= 0 else {
            if saved >= 0 { close(saved) }
            if null >= 0 { close(null) }
            return nil
        }
        dup2(null, STDERR_FILENO)
        close(null)
        return saved
    }

    /// Puts standard error back as ``silence()`` found it.
    static func restore(_ saved: Int32) {
        fflush(nil)
        dup2(saved, STDERR_FILENO)
        close(saved)
    }
}

/// What the realtime callback reads: the mixer, the music feed, the fixed gains and the shared transport.
///
/// `@unchecked Sendable` is safe: every stored property is a `let` set in `init`; the mixer is
/// read-only after its `init` (see ``Mixer``), the feed's consumer side belongs to this callback alone
/// (see ``MusicFeed``) and the transport is made of atomics.
@available(macOS 15, iOS 18, tvOS 18, visionOS 2, *)
final class RealtimeContext: @unchecked Sendable {
    let mixer: Mixer
    let feed: MusicFeed
    let transport: TransportState
    let musicGain: Float
    let clickGain: Float
    let channels: Int
    /// Output latency (seconds) assumed when the host API gives no DAC time; set before the stream starts.
    let fallbackLatency = Atomic<UInt64>(0)

    init(mixer: Mixer, feed: MusicFeed, transport: TransportState, musicGain: Float, clickGain: Float) {
        self.mixer = mixer
        self.feed = feed
        self.transport = transport
        self.musicGain = musicGain
        self.clickGain = clickGain
        channels = mixer.channels
    }

    /// Fills one output buffer. Realtime-safe: atomics, arithmetic, copies from the feed's ring and the
    /// mixer only — no allocation, no locks, no I/O. Returns `true` when the stream should complete.
    /// `currentTime` and `dacTime` are the stream's clock now and when this buffer's first frame is
    /// heard; the difference turns the buffer's start into a time on the monotonic clock.
    func render(
        into output: UnsafeMutablePointer<Float>, frames: Int, currentTime: Double, dacTime: Double, underflow: Bool
    ) -> Bool {
        let started = monotonicNanoseconds()
        var ahead =
            dacTime > 0 && currentTime > 0
            ? dacTime - currentTime : Double(bitPattern: fallbackLatency.load(ordering: .relaxed))
        if !(ahead >= 0 && ahead < 2) { ahead = 0 }
        let heardAt = Double(started) / 1e9 + ahead
        let state = transport
        state.callbacks.add(1, ordering: .relaxed)
        state.lastCallbackNanoseconds.store(started, ordering: .relaxed)
        if underflow { state.outputUnderflows.add(1, ordering: .relaxed) }
        var position = state.position.load(ordering: .relaxed)
        let seek = state.seekTarget.exchange(TransportState.none, ordering: .acquiringAndReleasing)
        if seek != TransportState.none {
            position = seek
            state.reachedEnd.store(false, ordering: .relaxed)
        }
        guard state.playing.load(ordering: .acquiring), !state.reachedEnd.load(ordering: .relaxed) else {
            output.update(repeating: 0, count: frames * channels)
            feed.dropStale()
            state.position.store(position, ordering: .relaxed)
            state.publish(frame: position, at: heardAt)
            return false
        }
        state.publish(frame: position, at: heardAt)
        let settings = MixSettings(
            musicGain: musicGain, clickGain: clickGain, musicMuted: state.musicMuted.load(ordering: .relaxed),
            clicksMuted: state.clicksMuted.load(ordering: .relaxed),
            offset: Double(state.offsetMicroseconds.load(ordering: .relaxed)) / 1_000_000,
            halfBeatLater: state.halfBeatLater.load(ordering: .relaxed))
        let end = state.endFrame.load(ordering: .relaxed)
        var done = 0
        var finished = false
        while done < frames {
            let loopStart = state.loopStart.load(ordering: .relaxed)
            let loopEnd = state.loopEnd.load(ordering: .relaxed)
            let looping = loopStart != TransportState.none && loopEnd > loopStart && position < loopEnd
            if end != TransportState.none && position >= end {
                finished = true
                break
            }
            var count = frames - done
            if end != TransportState.none { count = min(count, end - position) }
            if looping { count = min(count, loopEnd - position) }
            let block = output + done * channels
            let got = feed.take(from: position, count: count, into: block)
            if got == 0 {
                if feed.hasEnded(at: position) {
                    finished = true
                } else {
                    state.decoderUnderruns.add(1, ordering: .relaxed)
                }
                break
            }
            // The music is in the output block already; the mixer scales it and adds the clicks in place.
            mixer.render(from: position, frames: got, music: block, settings: settings, into: block)
            position += got
            done += got
            if looping && position >= loopEnd { position = loopStart }
        }
        if done < frames { (output + done * channels).update(repeating: 0, count: (frames - done) * channels) }
        if done > 0 && state.firstSoundNanoseconds.load(ordering: .relaxed) == 0 {
            state.firstSoundNanoseconds.store(started, ordering: .relaxed)
        }
        state.framesPlayed.add(done, ordering: .relaxed)
        state.position.store(position, ordering: .relaxed)
        if finished { state.reachedEnd.store(true, ordering: .releasing) }
        let spent = monotonicNanoseconds() - started
        state.renderNanoseconds.add(spent, ordering: .relaxed)
        if spent > state.longestRenderNanoseconds.load(ordering: .relaxed) {
            state.longestRenderNanoseconds.store(spent, ordering: .relaxed)
        }
        return finished && state.completeAtEnd.load(ordering: .relaxed)
    }
}

/// The C callback PortAudio calls on its audio thread; the context comes through `userData`.
@available(macOS 15, iOS 18, tvOS 18, visionOS 2, *)
private func realtimeCallback(
    _ input: UnsafeRawPointer?, _ output: UnsafeMutableRawPointer?, _ frameCount: UInt,
    _ timeInfo: UnsafePointer<PaStreamCallbackTimeInfo>?, _ statusFlags: PaStreamCallbackFlags,
    _ userData: UnsafeMutableRawPointer?
) -> Int32 {
    guard let output, let userData else { return Int32(paAbort.rawValue) }
    let dacTime = timeInfo?.pointee.outputBufferDacTime ?? 0
    let currentTime = timeInfo?.pointee.currentTime ?? 0
    let underflow = statusFlags & PaStreamCallbackFlags(paOutputUnderflow) != 0
    let complete = Unmanaged<RealtimeContext>.fromOpaque(userData)._withUnsafeGuaranteedRef { context in
        context.render(
            into: output.assumingMemoryBound(to: Float.self), frames: Int(frameCount), currentTime: currentTime,
            dacTime: dacTime,
            underflow: underflow)
    }
    return Int32(complete ? paComplete.rawValue : paContinue.rawValue)
}

/// PortAudio, initialised for as long as the object lives.
///
/// `@unchecked Sendable` is safe: its only mutable state, `terminated`, is an atomic; `Pa_Terminate`
/// runs at most once, from ``terminate()`` or `deinit`.
final class PortAudioLibrary: @unchecked Sendable {
    let verbose: Bool
    private let terminated = Atomic<Bool>(false)

    init(verbose: Bool) throws(PreviewError) {
        self.verbose = verbose
        let error = ProbeChatter.hidden(unless: verbose) { Pa_Initialize() }
        guard error == paNoError.rawValue else {
            throw .noDevice("cannot start PortAudio: \(String(cString: Pa_GetErrorText(error)))")
        }
    }

    deinit { terminate() }

    /// Shuts PortAudio down (once); call only when none of its streams is open.
    func terminate() {
        guard !terminated.exchange(true, ordering: .acquiringAndReleasing) else { return }
        ProbeChatter.hidden(unless: verbose) { _ = Pa_Terminate() }
    }

    /// The output devices PortAudio sees: (index, name, host API name).
    func outputDevices() -> [(index: PaDeviceIndex, name: String, hostAPI: String)] {
        var devices: [(PaDeviceIndex, String, String)] = []
        for index in 0..<max(Pa_GetDeviceCount(), 0) {
            guard let info = Pa_GetDeviceInfo(index), info.pointee.maxOutputChannels > 0 else { continue }
            let api = Pa_GetHostApiInfo(info.pointee.hostApi).map { String(cString: $0.pointee.name) } ?? "?"
            devices.append((index, String(cString: info.pointee.name), api))
        }
        return devices
    }
}

/// One open PortAudio output stream playing a ``RealtimeContext``.
@available(macOS 15, iOS 18, tvOS 18, visionOS 2, *)
final class OutputStream {
    let library: PortAudioLibrary
    let stream: OpaquePointer
    private let context: Unmanaged<RealtimeContext>
    let deviceName: String
    let framesPerBuffer: Int
    private(set) var isClosed = false
    private let closeFinished = Atomic<Bool>(false)

    /// Whether ``close(abort:)`` has returned (false while a hung device keeps it waiting).
    var hasFinishedClosing: Bool { closeFinished.load(ordering: .acquiring) }

    /// The output device: the first whose name contains `requested` (case-insensitive), or the default.
    static func device(
        library: PortAudioLibrary, named requested: String?, render: String
    ) throws(PreviewError) -> (index: PaDeviceIndex, name: String) {
        let devices = library.outputDevices()
        let device: PaDeviceIndex
        if let requested {
            guard let match = devices.first(where: { $0.name.localizedCaseInsensitiveContains(requested) }) else {
                let names = devices.map { "\($0.name) (\($0.hostAPI))" }.joined(separator: ", ")
                throw .noDevice(
                    "no output device matches \"\(requested)\"; devices: \(names.isEmpty ? "none" : names). \(render)")
            }
            device = match.index
        } else {
            device = Pa_GetDefaultOutputDevice()
        }
        guard device != paNoDevice, device >= 0, let info = Pa_GetDeviceInfo(device) else {
            throw .noDevice("no audio output device found. \(render)")
        }
        return (device, String(cString: info.pointee.name))
    }

    /// The rate to open `device` at: `preferred` (the music's) when the device takes it, else the
    /// device's default rate (the music is then resampled to it).
    static func rate(
        device: PaDeviceIndex, channels: Int, preferred: Int, verbose: Bool
    ) -> Int {
        guard let info = Pa_GetDeviceInfo(device) else { return preferred }
        var parameters = PaStreamParameters(
            device: device, channelCount: Int32(channels), sampleFormat: PaSampleFormat(paFloat32),
            suggestedLatency: info.pointee.defaultLowOutputLatency, hostApiSpecificStreamInfo: nil)
        let supported = ProbeChatter.hidden(unless: verbose) {
            Pa_IsFormatSupported(nil, &parameters, Double(preferred))
        }
        if supported == paFormatIsSupported { return preferred }
        let fallback = Int(info.pointee.defaultSampleRate.rounded())
        return fallback > 0 ? fallback : preferred
    }

    /// Opens (but does not start) a stream on `device` at the mixer's rate.
    init(
        library: PortAudioLibrary, context: RealtimeContext, device: (index: PaDeviceIndex, name: String),
        framesPerBuffer: Int, render: String
    ) throws(PreviewError) {
        self.library = library
        self.framesPerBuffer = framesPerBuffer
        deviceName = device.name
        guard let info = Pa_GetDeviceInfo(device.index) else {
            throw .noDevice("the audio output \"\(device.name)\" is gone. \(render)")
        }
        var parameters = PaStreamParameters(
            device: device.index, channelCount: Int32(context.channels), sampleFormat: PaSampleFormat(paFloat32),
            suggestedLatency: info.pointee.defaultLowOutputLatency, hostApiSpecificStreamInfo: nil)
        let retained = Unmanaged.passRetained(context)
        var opened: UnsafeMutableRawPointer?
        let error = ProbeChatter.hidden(unless: library.verbose) {
            Pa_OpenStream(
                &opened, nil, &parameters, Double(context.mixer.sampleRate), UInt(framesPerBuffer),
                PaStreamFlags(paNoFlag),
                realtimeCallback, retained.toOpaque())
        }
        guard error == paNoError.rawValue, let opened else {
            retained.release()
            throw .device(
                "cannot open the audio output \"\(deviceName)\" at \(context.mixer.sampleRate) Hz: "
                    + "\(String(cString: Pa_GetErrorText(error))). \(render)")
        }
        stream = OpaquePointer(opened)
        self.context = retained
        if let streamInfo = Pa_GetStreamInfo(opened) {
            context.fallbackLatency.store(streamInfo.pointee.outputLatency.bitPattern, ordering: .relaxed)
        }
    }

    deinit { close() }

    func start() throws(PreviewError) {
        let error = ProbeChatter.hidden(unless: library.verbose) { Pa_StartStream(UnsafeMutableRawPointer(stream)) }
        guard error == paNoError.rawValue else {
            throw .device("cannot start the audio output \"\(deviceName)\": \(String(cString: Pa_GetErrorText(error)))")
        }
    }

    /// Whether the stream is running (its callback being called).
    var isActive: Bool { !isClosed && Pa_IsStreamActive(UnsafeMutableRawPointer(stream)) == 1 }

    /// PortAudio's estimate of the callback's share of the buffer period (0–1).
    var cpuLoad: Double { isClosed ? 0 : Pa_GetStreamCpuLoad(UnsafeMutableRawPointer(stream)) }

    /// The output latency PortAudio reports, in seconds.
    var outputLatency: Double {
        guard !isClosed, let info = Pa_GetStreamInfo(UnsafeMutableRawPointer(stream)) else { return 0 }
        return info.pointee.outputLatency
    }

    /// Waits (up to `timeout` seconds) for a completing stream to play out.
    func waitUntilInactive(timeout: TimeInterval) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while isActive {
            if Date() > deadline { return false }
            Pa_Sleep(5)
        }
        return true
    }

    /// Stops (abort: drops what is queued) and closes the stream, then releases the context.
    func close(abort: Bool = false) {
        guard !isClosed else { return }
        isClosed = true
        ProbeChatter.hidden(unless: library.verbose) {
            let pointer = UnsafeMutableRawPointer(stream)
            if Pa_IsStreamStopped(pointer) == 0 { _ = abort ? Pa_AbortStream(pointer) : Pa_StopStream(pointer) }
            _ = Pa_CloseStream(pointer)
        }
        context.release()
        closeFinished.store(true, ordering: .releasing)
    }
}
