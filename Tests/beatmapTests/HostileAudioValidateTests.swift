// SPDX-License-Identifier: GPL-3.0-or-later

import Foundation
import Testing

/// `beatmap validate` on maps whose audio is hostile: it must finish (no crash, no hang) within bounded
/// memory, with an `audio-mismatch` finding naming the file when the audio cannot be read.
@Suite("beatmap validate on hostile audio")
struct HostileAudioValidateTests {
    /// Peak memory allowed for one validation (the binary itself takes about 30 MB).
    static let memoryLimit = 200 << 20

    /// A mono WAV header (format 1 PCM or 3 float) followed by `data`; fields may lie.
    static func wav(
        format: UInt16 = 1, channels: UInt16 = 1, rate: UInt32 = 8_000, bits: UInt16 = 16, data: [UInt8] = [],
        declaredDataBytes: UInt32? = nil
    ) -> [UInt8] {
        var out = Array("RIFF".utf8)
        func u16(_ value: UInt16) { withUnsafeBytes(of: value.littleEndian) { out.append(contentsOf: $0) } }
        func u32(_ value: UInt32) { withUnsafeBytes(of: value.littleEndian) { out.append(contentsOf: $0) } }
        let size = declaredDataBytes ?? UInt32(data.count)
        let align = UInt16(truncatingIfNeeded: Int(channels) * Int(bits) / 8)
        u32(36 &+ size)
        out += Array("WAVEfmt ".utf8)
        u32(16)
        u16(format)
        u16(channels)
        u32(rate)
        u32(UInt32(truncatingIfNeeded: Int(rate) * Int(align)))
        u16(align)
        u16(bits)
        out += Array("data".utf8)
        u32(size)
        return out + data
    }

    static func seed(_ name: String) -> [UInt8] {
        let url = CLI.packageRoot.appendingPathComponent("tools/fuzz/corpus/audio/\(name)")
        return (try? Array(Data(contentsOf: url))) ?? []
    }

    /// A hostile audio file and the duration it really has (`nil`: it must be reported unreadable).
    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var bytes: [UInt8]
        var duration: Double?
        var testDescription: String { name }
    }

    static let cases: [Case] = {
        let floats: [Float] = [.nan, .infinity, -.infinity, 1e30, 0.5, -0.5, 0, 0]
        var floatBytes: [UInt8] = []
        for value in floats { withUnsafeBytes(of: value.bitPattern.littleEndian) { floatBytes.append(contentsOf: $0) } }
        let ogg = seed("tone.ogg")
        return [
            Case(name: "zero-length.wav", bytes: [], duration: nil),
            Case(name: "text.wav", bytes: Array("not audio".utf8), duration: nil),
            Case(name: "header-only.wav", bytes: wav(), duration: nil),
            Case(name: "header-claims-1GB.wav", bytes: wav(declaredDataBytes: 1 << 30), duration: nil),
            Case(name: "rate-4GHz.wav", bytes: wav(rate: .max, data: [0, 0, 0, 0]), duration: nil),
            Case(name: "channels-65535.wav", bytes: wav(channels: .max, data: [0, 0]), duration: nil),
            Case(name: "silence.wav", bytes: wav(data: [UInt8](repeating: 0, count: 16_000)), duration: 1),
            Case(name: "dc.wav", bytes: wav(data: (0..<8_000).flatMap { _ in [0x00, 0x40] }), duration: 1),
            Case(
                name: "noise.wav", bytes: wav(data: (0..<16_000).map { UInt8(truncatingIfNeeded: $0 &* 7_919 >> 3) }),
                duration: 1
            ),
            Case(name: "nan-inf.wav", bytes: wav(format: 3, bits: 32, data: floatBytes), duration: 0.001),
            Case(name: "truncated-header.ogg", bytes: Array(ogg.prefix(20)), duration: nil),
            Case(name: "truncated.flac", bytes: Array(seed("tone.flac").prefix(20)), duration: nil),
            Case(name: "wav-named.mp3", bytes: seed("pcm16.wav"), duration: 0.04),
        ]
    }()

    static func mapText(audio name: String, duration: Double) -> String {
        "{\"version\": 1, \"audio\": {\"path\": \"\(name)\", \"duration\": \(duration)}, \"beats\": [0.0005]}\n"
    }

    @Test("the seeds used here are present")
    func seedsPresent() {
        #expect(!Self.seed("tone.ogg").isEmpty)
        #expect(!Self.seed("tone.flac").isEmpty)
        #expect(!Self.seed("pcm16.wav").isEmpty)
    }

    @Test(
        "each hostile audio file gives a finding or a clean pass, never a crash, hang or memory blow-up",
        arguments: cases)
    func hostile(_ testCase: Case) throws {
        let folder = try CLI.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try Data(testCase.bytes).write(to: folder.appendingPathComponent(testCase.name))
        let map = folder.appendingPathComponent("song.beatmap.json")
        try Data(Self.mapText(audio: testCase.name, duration: testCase.duration ?? 1).utf8).write(to: map)

        let result = try Spawn.run(
            ["validate", "--format", "json", "--disable", "off-grid", map.path], scratch: folder, timeout: 60)
        #expect(result.signal == nil, "\(testCase.name): killed by signal \(result.signal ?? 0)\n\(result.stderr)")
        #expect(!result.timedOut, "\(testCase.name): timed out\n\(result.stderr)")
        #expect(result.maxResidentBytes > 1 << 20, "peak memory was measured")
        #expect(result.maxResidentBytes < Self.memoryLimit, "\(testCase.name): \(result.maxResidentBytes >> 20) MiB")
        let report = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
        let files = report?["files"] as? [[String: Any]]
        let findings = files?.first?["findings"] as? [[String: Any]] ?? []
        let audioFindings = findings.filter { $0["rule"] as? String == "audio-mismatch" }
        if testCase.duration == nil {
            #expect(result.status == 1)
            let message = audioFindings.first?["message"] as? String ?? ""
            #expect(message.contains("cannot be read"), "\(testCase.name): \(findings)")
            #expect(message.contains(testCase.name), "\(testCase.name): \(findings)")
        } else {
            #expect(result.status == 0, "\(testCase.name): \(result.stdout)")
            #expect(audioFindings.isEmpty, "\(testCase.name): \(audioFindings)")
        }
    }

    @Test("a FIFO as the audio file is refused at once instead of blocking")
    func fifo() throws {
        let folder = try CLI.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(mkfifo(folder.appendingPathComponent("pipe.wav").path, 0o600) == 0)
        let map = folder.appendingPathComponent("song.beatmap.json")
        try Data(Self.mapText(audio: "pipe.wav", duration: 1).utf8).write(to: map)
        let result = try Spawn.run(["validate", map.path], scratch: folder, timeout: 30)
        #expect(!result.timedOut)
        #expect(result.status == 1)
        #expect(result.stdout.contains("pipe.wav: cannot open audio: not a regular file"), "\(result.stdout)")
    }

    /// 3 hours at 44.1 kHz (953 MB, a sparse file of silence): validating it decodes every frame, so
    /// it must stream. Runs when BEATMAP_HOSTILE_BIG=1 (tools/hostile-audio.sh sets it).
    @Test(
        "a 3-hour audio file is validated streaming, in bounded memory",
        .enabled(if: ProcessInfo.processInfo.environment["BEATMAP_HOSTILE_BIG"] == "1"))
    func threeHours() throws {
        let folder = try CLI.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let frames = 3 * 3_600 * 44_100
        let audio = folder.appendingPathComponent("three-hours.wav")
        try Data(Self.wav(rate: 44_100, declaredDataBytes: UInt32(frames * 2))).write(to: audio)
        let handle = try FileHandle(forWritingTo: audio)
        try handle.truncate(atOffset: UInt64(44 + frames * 2))
        try handle.close()
        let map = folder.appendingPathComponent("long.beatmap.json")
        try Data(Self.mapText(audio: "three-hours.wav", duration: 10_800).utf8).write(to: map)
        let result = try Spawn.run(["validate", "--disable", "off-grid", map.path], scratch: folder, timeout: 900)
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(result.maxResidentBytes < Self.memoryLimit, "\(result.maxResidentBytes >> 20) MiB")
    }
}
