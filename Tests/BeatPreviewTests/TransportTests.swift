// SPDX-License-Identifier: GPL-3.0-or-later

import BeatAudio
import BeatMapKit
import BeatPreview
import Foundation
import Testing

@Suite("Terminal transport")
struct TransportTests {
    @Test("keys and escape sequences decode to commands, split sequences included")
    func keys() {
        var decoder = TransportKeyDecoder()
        #expect(
            decoder.decode(Array(" ,.+-=_lmchsq".utf8)) == [
                .togglePause, .stepBeats(-1), .stepBeats(1), .nudge(1), .nudge(-1), .nudge(1), .nudge(-10), .toggleLoop,
                .toggleMusic,
                .toggleClicks, .halfBeat, .save, .quit,
            ])
        #expect(
            decoder.decode([0x1B, 0x5B, 0x43, 0x1B, 0x5B, 0x44, 0x1B, 0x5B, 0x41, 0x1B, 0x5B, 0x42]) == [
                .seek(5), .seek(-5), .nudge(10), .nudge(-10),
            ])
        #expect(decoder.decode([0x1B]).isEmpty)
        #expect(decoder.decode([0x5B]).isEmpty)
        #expect(decoder.decode([0x43, 0x03]) == [.seek(5), .quit])
        #expect(decoder.decode(Array("\u{1B}[1;2C".utf8)) == [.seek(30)])
    }

    @Test("status lines: time, beat n/N, bar.beat, BPM, pulse only just after a beat")
    func statusLines() throws {
        var snapshot = StatusSnapshot(
            position: 83.4567, duration: 225, playing: true, beatIndex: 166, beatCount: 450,
            barPosition: BarPosition(bar: 42, beat: 3),
            beatsPerBar: 4, barsKnown: true, bpm: 128, sinceBeat: 0.05, nudgeMilliseconds: 12, loopingBar: 42,
            musicMuted: false,
            clicksMuted: true, message: "hello")
        let lines = StatusView.lines(snapshot)
        #expect(lines[0] == "▶ 1:23.456 / 3:45.000   beat 167/450   bar 42.3   128.0 BPM   ● □ □ ■ □")
        #expect(lines[1] == "nudge +12 ms   loop bar 42   music on   clicks muted")
        try #require(lines.count == 5)
        #expect(lines[2] == TransportKeyDecoder.helpLines[0])
        #expect(lines[4] == "hello")
        snapshot.halfBeatLater = true
        #expect(StatusView.lines(snapshot)[1] == "nudge +12 ms + ½ beat   loop bar 42   music on   clicks muted")
        snapshot.halfBeatLater = false
        snapshot.sinceBeat = 0.3
        snapshot.playing = false
        #expect(StatusView.lines(snapshot)[0].hasPrefix("‖ 1:23.456"))
        #expect(StatusView.lines(snapshot)[0].contains("BPM   · "))
        snapshot.barsKnown = false
        #expect(StatusView.lines(snapshot)[0].contains("bar 42.3 (4/4 assumed)"))
    }

    @Test("at 80 columns every line fits, with the widest figures an hour-long track gives; the legend is whole")
    func fitsEightyColumns() throws {
        let widest = StatusSnapshot(
            position: 3_599.999, duration: 3_600, playing: true, beatIndex: 12_344, beatCount: 12_345,
            barPosition: BarPosition(bar: 3_087, beat: 4), beatsPerBar: 4, barsKnown: false, bpm: 205.5,
            sinceBeat: 0.01, nudgeMilliseconds: -1_234, loopingBar: 3_087, musicMuted: true, clicksMuted: true,
            message: String(repeating: "a long device message ", count: 8))
        let lines = StatusView.lines(widest, width: 80)
        try #require(lines.count == 5)
        for line in lines { #expect(line.count <= 80, "\(line.count) columns: \(line)") }
        #expect(lines[0].contains("beat 12345/12345"))
        #expect(lines[0].contains("bar 3087.4"))
        #expect(lines[0].contains("205.5 BPM"))
        #expect(lines[0].contains("/ 60:00.000"))
        #expect(Array(lines[2...3]) == TransportKeyDecoder.helpLines)
        #expect(lines[4].hasSuffix("…"))
        #expect(StatusView.fit("abc", width: 80) == "abc")
    }

    /// A 120 BPM map of six beats in 4/4 for 4 s of audio, written as `m.beatmap.json` in a new folder.
    static func mapFile() throws -> (folder: URL, url: URL, map: BeatMap) {
        let folder = try TestAudio.folder()
        let url = folder.appendingPathComponent("m.beatmap.json")
        let map = BeatMap(
            audio: AudioReference(duration: 4), tempo: [TempoSegment(time: 0.5, bpm: 120, beatsPerBar: 4)],
            beats: [0.5, 1.0, 1.5, 2.0, 2.5, 3.0])
        try BeatMapCodec.write(map, to: url, overwrite: true)
        return (folder, url, map)
    }

    @Test("saving a nudge: validated, the previous file kept as .bak, written atomically; a bad nudge is refused")
    func saveNudge() throws {
        let (folder, url, map) = try Self.mapFile()
        defer { try? FileManager.default.removeItem(at: folder) }
        let original = try Data(contentsOf: url)
        var saver = MapSaver(mapURL: url, original: map, validator: Validator())
        let outcome = try saver.save(offset: 0.013)
        #expect(outcome.backupPath == url.path + ".bak")
        #expect(try Data(contentsOf: URL(fileURLWithPath: url.path + ".bak")) == original)
        let saved = try BeatMapCodec.read(from: url)
        #expect(saved.beats.map { ($0 * 1000).rounded() } == [513, 1013, 1513, 2013, 2513, 3013])
        #expect(saved.tempo?.first?.time == 0.513)
        // A second save in the same session keeps the first backup (the session's original).
        _ = try saver.save(offset: 0.020)
        #expect(try Data(contentsOf: URL(fileURLWithPath: url.path + ".bak")) == original)
        #expect(!FileManager.default.fileExists(atPath: url.path + ".bak.2"))
        // A new session backs up the file as it is now, without touching the first backup.
        var next = MapSaver(mapURL: url, original: saved, validator: Validator())
        #expect(try next.save(offset: 0.001).backupPath == url.path + ".bak.2")
        // Beats a nudge moves before 0 s are dropped, as `beatmap edit --nudge` drops them, and the
        // outcome counts them.
        let early = try next.save(offset: -0.52)
        #expect(early.droppedBeats == 1)
        #expect(try BeatMapCodec.read(from: url).beats.map { ($0 * 1000).rounded() } == [493, 993, 1493, 1993, 2493])
        // A save the validator refuses (beats out of order) leaves the file alone.
        let before = try Data(contentsOf: url)
        let disordered = BeatMap(audio: AudioReference(duration: 4), beats: [1.0, 0.5, 1.5])
        #expect(throws: SaveError.self) { try next.save(disordered) }
        #expect(try Data(contentsOf: url) == before)
    }

    @Test("saving with h: every beat half a beat later (the editor's shift), then the nudge")
    func saveHalfBeat() throws {
        let (folder, url, map) = try Self.mapFile()
        defer { try? FileManager.default.removeItem(at: folder) }
        var saver = MapSaver(mapURL: url, original: map, validator: Validator())
        _ = try saver.save(offset: 0.013, halfBeatLater: true)
        let saved = try BeatMapCodec.read(from: url)
        #expect(saved.beats.map { ($0 * 1000).rounded() } == [763, 1263, 1763, 2263, 2763, 3263])
        #expect(saved.tempo?.first?.time == 0.763)
        #expect(saved.tempo?.first?.beatsPerBar == 4)
    }

    @Test("the mixer clicks on the beats half a beat later when the settings say so, with nothing else changed")
    func mixerHalfBeat() throws {
        guard #available(macOS 15, iOS 18, tvOS 18, visionOS 2, *) else {
            Issue.record("needs Synchronization (macOS 15)")
            return
        }
        let rate = 8_000
        let map = BeatMap(
            audio: AudioReference(duration: 3), tempo: [TempoSegment(time: 0.5, bpm: 120)], beats: [0.5, 1.0, 1.5])
        let later = try BeatMapEditor.apply(.shiftBeats(fraction: 0.5), to: map).map
        let mixer = Mixer(
            schedule: BeatSchedule(map: map), clicks: .synthesized(sampleRate: rate), channels: 1,
            laterSchedule: BeatSchedule(map: later))
        func firstSound(_ settings: MixSettings) -> Int? {
            var output = [Float](repeating: 0, count: rate * 2)
            output.withUnsafeMutableBufferPointer { buffer in
                guard let base = buffer.baseAddress else { return }
                mixer.render(from: 0, frames: rate * 2, music: nil, settings: settings, into: base)
            }
            return output.firstIndex { $0 != 0 }
        }
        #expect(firstSound(MixSettings()) == rate / 2)
        #expect(firstSound(MixSettings(halfBeatLater: true)) == rate * 3 / 4)
        #expect(firstSound(MixSettings(offset: 0.01, halfBeatLater: true)) == rate * 3 / 4 + rate / 100)
    }
}
