// SPDX-License-Identifier: GPL-3.0-or-later

import Foundation
import Testing

@testable import BeatMapKit

/// Builds Standard MIDI Files byte by byte, as a DAW writes them (or as a hostile file lies).
enum MIDIBytes {
    /// A variable-length quantity.
    static func quantity(_ value: Int) -> [UInt8] {
        var bytes: [UInt8] = []
        StandardMIDIFile.appendQuantity(value, to: &bytes)
        return bytes
    }

    static func uint32(_ value: Int) -> [UInt8] {
        [UInt8(value >> 24 & 0xFF), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }

    /// A header chunk.
    static func header(format: Int = 1, tracks: Int, division: Int) -> [UInt8] {
        Array("MThd".utf8) + uint32(6) + [
            0, UInt8(format), 0, UInt8(tracks), UInt8(division >> 8), UInt8(division & 0xFF),
        ]
    }

    /// A track chunk of `body` (declared `length`, default the true one).
    static func track(_ body: [UInt8], length: Int? = nil) -> [UInt8] {
        Array("MTrk".utf8) + uint32(length ?? body.count) + body
    }

    /// `delta` then a tempo event of `microseconds` per quarter note.
    static func tempo(_ delta: Int, _ microseconds: Int) -> [UInt8] {
        quantity(delta) + [
            0xFF, 0x51, 3, UInt8(microseconds >> 16 & 0xFF), UInt8(microseconds >> 8 & 0xFF),
            UInt8(microseconds & 0xFF),
        ]
    }

    /// `delta` then a time signature `numerator/2^power`.
    static func meter(_ delta: Int, _ numerator: Int, _ power: Int = 2) -> [UInt8] {
        quantity(delta) + [0xFF, 0x58, 4, UInt8(numerator), UInt8(power), 24, 8]
    }

    /// `delta` then End of Track.
    static func end(_ delta: Int) -> [UInt8] { quantity(delta) + [0xFF, 0x2F, 0] }
}

/// Imports `bytes` as a MIDI file named `name`.
func importMIDI(_ bytes: [UInt8], name: String = "song.mid", duration: Double? = nil) throws -> Result<
    ImportedMap, InterchangeError
> {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let url = folder.appendingPathComponent(name)
    try Data(bytes).write(to: url)
    do {
        return .success(try MIDIFileFormat().importMap(from: url, options: ImportOptions(duration: duration)))
    } catch {
        return .failure(error)
    }
}

@Suite("MIDI files")
struct MIDIFormatTests {
    /// 480 PPQ: 4 bars of 4/4 at 120 BPM, then 100 BPM, a 3/4 section at 90 BPM, then 140 BPM in 4/4 — three
    /// tempo changes and a 3/4 section, as a DAW writes them (tempo track + a note track).
    static var dawFile: [UInt8] {
        let ppq = 480
        var conductor = MIDIBytes.meter(0, 4) + MIDIBytes.tempo(0, 500_000)
        conductor += MIDIBytes.tempo(16 * ppq, 600_000)  // bar 5: 100 BPM
        conductor += MIDIBytes.meter(8 * ppq, 3) + MIDIBytes.tempo(0, 666_667)  // bar 7: 3/4 at ~90 BPM
        conductor += MIDIBytes.meter(12 * ppq, 4) + MIDIBytes.tempo(0, 428_571)  // bar 11: 4/4 at ~140 BPM
        conductor += MIDIBytes.end(16 * ppq)
        // A note track with running status (note-ons with velocity 0 as note-offs).
        var notes: [UInt8] = MIDIBytes.quantity(0) + [0x90, 60, 100]
        for _ in 0..<40 { notes += MIDIBytes.quantity(ppq) + [60, 0] + MIDIBytes.quantity(0) + [60, 100] }
        notes += MIDIBytes.quantity(ppq) + [60, 0] + MIDIBytes.end(0)
        return MIDIBytes.header(tracks: 2, division: ppq) + MIDIBytes.track(conductor) + MIDIBytes.track(notes)
    }

    /// The file's own tempo map, computed here independently: beat times of the DAW file.
    static var dawBeats: [Double] {
        var beats: [Double] = []
        var time = 0.0
        for _ in 0..<16 { beats.append(time); time += 0.5 }
        for _ in 0..<8 { beats.append(time); time += 0.6 }
        for _ in 0..<12 { beats.append(time); time += 0.666_667 }
        for _ in 0..<16 { beats.append(time); time += 0.428_571 }
        beats.append(time)  // the beat at the End of Track
        return beats
    }

    @Test("three tempo changes and a 3/4 section import to the file's own beats within 0.1 ms")
    func dawTempoMap() throws {
        let imported = try importMIDI(Self.dawFile).get()
        let expected = Self.dawBeats
        try #require(imported.map.beats.count == expected.count)
        #expect(largestDifference(imported.map.beats, expected) < 0.000_1)
        let tempo = try #require(imported.map.tempo)
        #expect(tempo.map(\.beatsPerBar) == [4, 4, 3, 4])
        #expect(tempo.map { ($0.bpm * 10).rounded() / 10 } == [120, 100, 90, 140])
        #expect(abs(imported.map.audio.duration - expected[expected.count - 1]) < 0.000_01)
    }

    @Test("6/8 counts eighth notes as beats, six to the bar")
    func compoundMeter() throws {
        let body = MIDIBytes.meter(0, 6, 3) + MIDIBytes.tempo(0, 600_000) + MIDIBytes.end(6 * 480)
        let imported = try importMIDI(MIDIBytes.header(format: 0, tracks: 1, division: 480) + MIDIBytes.track(body))
            .get()
        #expect(imported.map.beats == [0, 0.3, 0.6, 0.9, 1.2, 1.5, 1.8, 2.1, 2.4, 2.7, 3.0, 3.3, 3.6])
        #expect(imported.map.tempo?.first?.beatsPerBar == 6)
        #expect(abs((imported.map.tempo?.first?.bpm ?? 0) - 200) < 1e-6)
    }

    @Test("a format 0 file with two tracks (Frets on Fire's charts) is read as format 1, with a note")
    func formatZeroWithTwoTracks() throws {
        let tempoTrack = MIDIBytes.tempo(0, 352_941) + MIDIBytes.end(480 * 8)
        let noteTrack = MIDIBytes.meter(0, 4) + MIDIBytes.end(480 * 16)
        let bytes =
            MIDIBytes.header(format: 0, tracks: 2, division: 480) + MIDIBytes.track(tempoTrack)
            + MIDIBytes.track(noteTrack)
        let imported = try importMIDI(bytes, duration: 3).get()
        // 170 BPM from tick 0: a beat every 0.352941 s up to the 3 s given.
        #expect(imported.map.beats.count == 9)
        #expect(abs((imported.map.tempo?.first?.bpm ?? 0) - 170) < 0.001)
        let note = try #require(imported.notes.first)
        #expect(note.message.contains("format 0 file (one track) but holds 2"))
        // One track, as the specification has it, gets no note.
        let single = MIDIBytes.header(format: 0, tracks: 1, division: 480) + MIDIBytes.track(tempoTrack)
        #expect(try importMIDI(single, duration: 3).get().notes.isEmpty)
    }

    @Test("--duration ends the beats; without tempo events the file is 120 BPM")
    func durationAndDefaultTempo() throws {
        let file = MIDIBytes.header(tracks: 1, division: 96) + MIDIBytes.track(MIDIBytes.end(96 * 100))
        let imported = try importMIDI(file, duration: 2.2).get()
        #expect(imported.map.beats == [0, 0.5, 1, 1.5, 2])
        #expect(imported.map.audio.duration == 2.2)
    }

    @Test(
        "export → import keeps every beat within 0.5 ms, the meters and the duration",
        arguments: SampleMaps.all.map(\.0))
    func roundTrip(name: String) throws {
        let map = try #require(SampleMaps.all.first { $0.0 == name }?.1)
        let files = try MIDIFileFormat().export(map, options: ExportOptions())
        let bytes = try #require(files.first?.bytes)
        let imported = try importMIDI(bytes).get()
        try #require(imported.map.beats.count == map.beats.count)
        #expect(largestDifference(imported.map.beats, map.beats) <= 0.000_5)
        #expect(abs(imported.map.audio.duration - map.audio.duration) < 0.002)
        if name == "tempo change" {
            #expect(imported.map.tempo?.compactMap(\.beatsPerBar) == [3, 4])
        }
    }

    @Test("the exported tempo map keeps a long steady map within 50 µs despite whole-microsecond tempos")
    func roundingCorrections() throws {
        // 95 BPM: 631,578.947… µs per beat, which no MIDI tempo holds exactly.
        let beats = (0..<2000).map { NumberFormatting.roundedToMicroseconds(0.3 + Double($0) * 60 / 95) }
        let map = BeatMap(
            audio: AudioReference(duration: 1300), tempo: [TempoSegment(time: 0.3, bpm: 95, beatsPerBar: 4)],
            beats: beats)
        let plan = try TickTempoPlan(
            map: map, ticksPerQuarter: 960, unit: .microsecondsPerQuarter, tolerance: 0.000_25, format: .midi)
        #expect(plan.largestError <= 0.000_05 + 0.000_001)
        #expect(plan.tempoEvents.count < 40)
        let bytes = try #require(try MIDIFileFormat().export(map, options: ExportOptions()).first?.bytes)
        let imported = try importMIDI(bytes).get()
        #expect(largestDifference(imported.map.beats, beats) <= 0.000_06)
        // The rounding corrections are not tempo changes: one segment comes back.
        #expect(imported.map.tempo?.count == 1)
        #expect(imported.map.tempo?.first?.beatsPerBar == 4)
    }

    @Test("free beats get one tempo event per beat")
    func freeBeats() throws {
        let map = SampleMaps.jittered
        let plan = try TickTempoPlan(
            map: map, ticksPerQuarter: 960, unit: .microsecondsPerQuarter, tolerance: 0, format: .midi)
        // A lead-in tempo, then one per beat interval.
        #expect(plan.tempoEvents.count >= map.beats.count - 1)
    }

    @Test("the same map exports the same bytes")
    func deterministic() throws {
        let a = try MIDIFileFormat().export(SampleMaps.tempoChange, options: ExportOptions())
        let b = try MIDIFileFormat().export(SampleMaps.tempoChange, options: ExportOptions())
        #expect(a == b)
    }

    /// The error of importing `bytes`, which must fail.
    func failure(_ bytes: [UInt8], duration: Double? = 10) throws -> InterchangeError {
        switch try importMIDI(bytes, name: "bad.mid", duration: duration) {
        case .success: throw InterchangeError(path: nil, "imported")
        case .failure(let error): return error
        }
    }

    @Test("running status with no channel message before it is an error naming the byte")
    func runningStatusWithoutStatus() throws {
        let body = MIDIBytes.quantity(0) + [60, 100] + MIDIBytes.end(0)
        let error = try failure(MIDIBytes.header(tracks: 1, division: 480) + MIDIBytes.track(body))
        #expect(error.path?.hasSuffix("bad.mid") == true)
        #expect(error.message.contains("running status"))
        #expect(error.message.contains("byte 23"))
    }

    @Test("running status does not survive a meta event")
    func runningStatusAfterMeta() throws {
        let body =
            MIDIBytes.quantity(0) + [0x90, 60, 100] + MIDIBytes.tempo(0, 500_000) + MIDIBytes.quantity(10) + [60, 0]
            + MIDIBytes.end(0)
        let error = try failure(MIDIBytes.header(tracks: 1, division: 480) + MIDIBytes.track(body))
        #expect(error.message.contains("running status"))
    }

    @Test("a track longer than the file is an error")
    func trackLongerThanFile() throws {
        let body = MIDIBytes.tempo(0, 500_000) + MIDIBytes.end(0)
        let error = try failure(MIDIBytes.header(tracks: 1, division: 480) + MIDIBytes.track(body, length: 1_000_000))
        #expect(error.message.contains("says it is 1000000 bytes long"))
    }

    @Test("a track shorter than its events is an error")
    func trackShorterThanEvents() throws {
        let body = MIDIBytes.tempo(0, 500_000) + MIDIBytes.end(0)
        let error = try failure(MIDIBytes.header(tracks: 1, division: 480) + MIDIBytes.track(body, length: 4))
        #expect(error.message.contains("track 1"))
    }

    @Test("a tempo of 0 is an error, not a hang")
    func zeroTempo() throws {
        let body = MIDIBytes.tempo(0, 0) + MIDIBytes.end(480)
        let error = try failure(MIDIBytes.header(tracks: 1, division: 480) + MIDIBytes.track(body))
        #expect(error.message.contains("tempo of 0"))
    }

    @Test("a variable-length number of five bytes is an error")
    func longQuantity() throws {
        let body: [UInt8] = [0x81, 0x81, 0x81, 0x81, 0x01, 0xFF, 0x2F, 0]
        let error = try failure(MIDIBytes.header(tracks: 1, division: 480) + MIDIBytes.track(body))
        #expect(error.message.contains("longer than four bytes"))
    }

    @Test("format 2, SMPTE time and a missing header are refused", arguments: [0, 1, 2])
    func unsupported(case index: Int) throws {
        let track = MIDIBytes.track(MIDIBytes.end(0))
        let files = [
            MIDIBytes.header(format: 2, tracks: 1, division: 480) + track,
            MIDIBytes.header(tracks: 1, division: 0xE728) + track,
            Array("RIFF".utf8) + [UInt8](repeating: 0, count: 20),
        ]
        let error = try failure(files[index])
        #expect(!error.message.isEmpty)
        #expect(error.path?.hasSuffix("bad.mid") == true)
    }

    @Test("a million events import in one pass")
    func millionEvents() throws {
        // 10^6 note events (running status) and a tempo change (by 0.02 %) every 1000 of them.
        var body: [UInt8] = MIDIBytes.tempo(0, 500_000) + MIDIBytes.quantity(0) + [0x90, 60, 100]
        body.reserveCapacity(4_200_000)
        for index in 1..<1_000_000 {
            if index % 1000 == 0 {
                body += MIDIBytes.tempo(0, 500_000 + index / 10)
                body += MIDIBytes.quantity(0) + [0x90, 60, 100]
            } else {
                body += [10, 60, UInt8(index % 2 == 0 ? 100 : 0)]
            }
        }
        body += MIDIBytes.end(0)
        let imported = try importMIDI(MIDIBytes.header(format: 0, tracks: 1, division: 480) + MIDIBytes.track(body))
            .get()
        #expect(imported.map.beats.count > 20_000)
        #expect(imported.map.tempo?.count ?? 0 > 500)
    }

    @Test("a tempo map of over a million beats is refused")
    func tooManyBeats() throws {
        let body = MIDIBytes.tempo(0, 1) + MIDIBytes.end(0x0FFF_FFFF)
        let error = try failure(MIDIBytes.header(tracks: 1, division: 1) + MIDIBytes.track(body), duration: nil)
        #expect(error.message.contains("million"))
    }

    @Test("export refuses a map without beats")
    func emptyExport() {
        let map = BeatMap(audio: AudioReference(duration: 10), beats: [])
        #expect(throws: InterchangeError.self) { try MIDIFileFormat().export(map, options: ExportOptions()) }
    }
}
