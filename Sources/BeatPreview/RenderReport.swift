// SPDX-License-Identifier: GPL-3.0-or-later

import BeatMapKit
public import Foundation

/// What a render wrote: the file, its length, the clicks in it and its format.
public struct RenderReport: Sendable, Equatable {
    /// The file written, as the caller names it.
    public var path: String
    /// Seconds of audio written.
    public var seconds: Double
    /// Clicks in the rendered span.
    public var clicks: Int
    /// Frames per second.
    public var sampleRate: Int
    /// Channels per frame.
    public var channels: Int

    /// A report of `rendered` written to `path`, counting the beats of `schedule` it holds.
    public init(path: String, rendered: RenderedAudio, schedule: BeatSchedule) {
        self.path = path
        seconds = Double(rendered.frames) / Double(rendered.sampleRate)
        let span = rendered.startFrame..<(rendered.startFrame + rendered.frames)
        clicks = schedule.times.filter { span.contains(Mixer.frame(of: $0, sampleRate: rendered.sampleRate)) }.count
        sampleRate = rendered.sampleRate
        channels = rendered.channels
    }

    /// `out.wav: 32.000 s, 64 clicks, 44100 Hz, 2 channels`, and a newline.
    public var text: String {
        "\(path): \(String(format: "%.3f", seconds)) s, \(clicks) clicks, \(sampleRate) Hz, "
            + "\(channels) channel\(channels == 1 ? "" : "s")\n"
    }
}

extension OfflineRenderer {
    /// Renders `audio` with a click on every beat of the map at `map` into a WAV file at `output`
    /// (shown as `shownAs` in the report): an existing file is refused before anything is decoded
    /// unless `overwrite`, the span `from…to` (seconds) is checked against the track, and the file is
    /// written atomically.
    @available(macOS 15, iOS 18, tvOS 18, visionOS 2, *)
    public static func render(
        audio: URL, map: URL, click: URL? = nil, to output: URL, shownAs: String, from: TimeInterval? = nil,
        to: TimeInterval? = nil, settings: MixSettings = MixSettings(), format: RenderSampleFormat = .pcm16,
        overwrite: Bool = false
    ) throws(PreviewError) -> RenderReport {
        if !overwrite && FileManager.default.fileExists(atPath: output.path) { throw .exists(path: output.path) }
        let material = try PreviewMaterial.load(audio: audio, map: map, click: click)
        let rendered = try write(
            material, to: output, from: from, to: to, settings: settings, format: format, overwrite: overwrite)
        return RenderReport(path: shownAs, rendered: rendered, schedule: material.mixer.schedule)
    }
}
