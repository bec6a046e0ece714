// SPDX-License-Identifier: GPL-3.0-or-later

import BeatMapKit
import Foundation
import TestSynth
import Testing

/// A command that writes a map file, to be killed mid-write.
struct KillableWriter: Sendable, CustomTestStringConvertible {
    /// How the test names it.
    var name: String
    /// The file it writes, relative to the test's folder.
    var target: String
    /// Whether `target` holds a map before the command runs (the "old" map), or does not exist.
    var targetExists: Bool
    /// The arguments; `{dir}` is replaced by the test's folder.
    var arguments: [String]
    /// Whether the command may replace an existing target. When false the old file must survive as is.
    var replaces: Bool = true
    /// Whether the output is big enough (hundreds of kB) for some kills to land while it is written; a
    /// few-kB map is written in well under a millisecond, too fast to hit on purpose.
    var killsDuringWrite: Bool = true
    /// Extra set-up in the folder (audio fixtures for analyze, a file to import, …).
    var prepare: @Sendable (_ folder: URL) throws -> Void = { _ in }

    var testDescription: String { name }
}

/// SIGKILLs map writers many times at random moments, many of them while the file is being written,
/// and checks that the file on disk is always the complete old map or a complete new one.
///
/// To cover another writer, add one line to `writers`.
@Suite("Crash-safe writes", .serialized)
struct CrashSafeWriteTests {
    static let writers: [KillableWriter] = [
        KillableWriter(
            name: "format --in-place --force", target: "big.beatmap.json", targetExists: true,
            arguments: ["format", "--in-place", "--force", "{dir}/big.beatmap.json"]),
        KillableWriter(
            name: "format --output (new file)", target: "out.beatmap.json", targetExists: false,
            arguments: ["format", "{dir}/big.beatmap.json", "--output", "{dir}/out.beatmap.json"]),
        KillableWriter(
            name: "format --output --force (replacing)", target: "out.beatmap.json", targetExists: true,
            arguments: ["format", "{dir}/big.beatmap.json", "--output", "{dir}/out.beatmap.json", "--force"]),
        KillableWriter(
            name: "format --output without --force (must refuse)", target: "out.beatmap.json", targetExists: true,
            arguments: ["format", "{dir}/big.beatmap.json", "--output", "{dir}/out.beatmap.json"], replaces: false),
        KillableWriter(
            name: "import --force", target: "out.beatmap.json", targetExists: true,
            arguments: [
                "import", "{dir}/beats.txt", "--format", "txt", "-o", "{dir}/out.beatmap.json", "--force", "--duration",
                String(CrashSafeWriteTests.seconds(CrashSafeWriteTests.beatCount)),
            ],
            prepare: {
                try CrashSafeWriteTests.beatList(CrashSafeWriteTests.beatCount).write(
                    to: $0.appendingPathComponent("beats.txt"))
            }),
        KillableWriter(
            name: "import without --force (must refuse)", target: "out.beatmap.json", targetExists: true,
            arguments: [
                "import", "{dir}/beats.txt", "--format", "txt", "-o", "{dir}/out.beatmap.json", "--duration",
                String(CrashSafeWriteTests.seconds(CrashSafeWriteTests.beatCount)),
            ],
            replaces: false,
            prepare: {
                try CrashSafeWriteTests.beatList(CrashSafeWriteTests.beatCount).write(
                    to: $0.appendingPathComponent("beats.txt"))
            }),
        KillableWriter(
            name: "analyze --force", target: "out.beatmap.json", targetExists: true,
            arguments: ["analyze", "{dir}/song.wav", "-o", "{dir}/out.beatmap.json", "--force", "--no-progress"],
            killsDuringWrite: false,
            prepare: {
                try WAVWriter.write(
                    TestTracks.drums(bpm: 120, start: 0.3, duration: 20).0, to: $0.appendingPathComponent("song.wav"))
            }),
        // MIDI, .chart, C# and GDScript: each exported from the big map, and imported from a file of
        // `beatCount` + 1 beats. The MIDI and .chart exports of a steady map are a few hundred bytes,
        // too small to hit.
        KillableWriter(
            name: "export midi --force", target: "out.mid", targetExists: true,
            arguments: ["export", "{dir}/big.beatmap.json", "-o", "{dir}/out.mid", "--force"], killsDuringWrite: false),
        KillableWriter(
            name: "export chart --force", target: "out.chart", targetExists: true,
            arguments: ["export", "{dir}/big.beatmap.json", "-o", "{dir}/out.chart", "--force"],
            killsDuringWrite: false),
        KillableWriter(
            name: "export csharp --force", target: "out.cs", targetExists: true,
            arguments: ["export", "{dir}/big.beatmap.json", "-o", "{dir}/out.cs", "--force"]),
        KillableWriter(
            name: "export gdscript --force", target: "out.gd", targetExists: true,
            arguments: ["export", "{dir}/big.beatmap.json", "-o", "{dir}/out.gd", "--force"]),
        KillableWriter(
            name: "import midi --force", target: "out.beatmap.json", targetExists: true,
            arguments: ["import", "{dir}/song.mid", "-o", "{dir}/out.beatmap.json", "--force"],
            prepare: { try CrashSafeWriteTests.engineFile(.midi).write(to: $0.appendingPathComponent("song.mid")) }),
        KillableWriter(
            name: "import chart --force", target: "out.beatmap.json", targetExists: true,
            arguments: [
                "import", "{dir}/notes.chart", "-o", "{dir}/out.beatmap.json", "--force", "--duration",
                String(CrashSafeWriteTests.seconds(CrashSafeWriteTests.beatCount)),
            ],
            prepare: { try CrashSafeWriteTests.engineFile(.chart).write(to: $0.appendingPathComponent("notes.chart")) }
        ),
        KillableWriter(
            name: "import csharp --force", target: "out.beatmap.json", targetExists: true,
            arguments: ["import", "{dir}/Map.cs", "-o", "{dir}/out.beatmap.json", "--force"],
            prepare: { try CrashSafeWriteTests.engineFile(.csharp).write(to: $0.appendingPathComponent("Map.cs")) }),
        KillableWriter(
            name: "import gdscript --force", target: "out.beatmap.json", targetExists: true,
            arguments: ["import", "{dir}/map.gd", "-o", "{dir}/out.beatmap.json", "--force"],
            prepare: { try CrashSafeWriteTests.engineFile(.gdscript).write(to: $0.appendingPathComponent("map.gd")) }),
        // The preview's save (MapSaver) is interactive only; it writes through BeatMapCodec.write, the
        // same AtomicFile path as `format --output --force`.
    ]

    /// Beats in the big map and in the files imported: 20,000 make a map of about 240 kB, big enough for
    /// kills to land while it is written (the extra rounds make sure one does). Every round parses the
    /// whole input before it writes, so the count sets the suite's time: with 60,000 it took 251 s
    /// under AddressSanitizer beside the other suites, which were all done after 112 s.
    static let beatCount = 20_000

    /// The audio's duration, in whole seconds, of a list of `beats` beats at 120 BPM from 0.5 s: the
    /// last beat and 10 s more. The big map, the exported files and the imports' `--duration` all use it.
    static func seconds(_ beats: Int) -> Int { beats / 2 + 10 }

    /// A map of `beatCount` + 1 beats at 120 BPM exported to `format`, for the import writers.
    static func engineFile(_ format: InterchangeFormat) throws -> Data {
        let beats = (0...beatCount).map { Double($0) * 0.5 + 0.5 }
        let map = BeatMap(
            audio: AudioReference(duration: Double(seconds(beatCount))),
            tempo: [TempoSegment(time: 0.5, bpm: 120, beatsPerBar: 4)],
            beats: beats)
        let file = try #require(try format.converter.export(map, options: ExportOptions()).first)
        return file.contents
    }

    /// A beat list in the one-time-per-line text format `import` reads.
    static func beatList(_ count: Int) -> Data {
        Data((0..<count).map { String(Double($0) * 0.5 + 0.5) + "\n" }.joined().utf8)
    }

    /// Kills per writer; half at a random moment of the whole run, half just after the temporary file
    /// appears (that is, during the write itself).
    static let kills = Int(ProcessInfo.processInfo.environment["BEATMAP_KILL_ROUNDS"] ?? "") ?? 16

    /// Rounds added, each killing as soon as the temporary file appears, while no kill has landed
    /// during the write yet.
    static let extraRounds = 48

    /// A non-canonical map of `count` beats (about 13 bytes a beat), so that writing takes a while.
    static func bigMap(beats count: Int, variant: Int) -> Data {
        var text = "{\"beats\": ["
        text.reserveCapacity(count * 14 + 100)
        for index in 0..<count {
            if index > 0 { text += "," }
            text += String(Double(index) * 0.5 + 0.5 + Double(variant) * 0.0000001)
        }
        text += "], \"version\": 1, \"audio\": {\"duration\": \(seconds(count))}, \"x-variant\": \(variant)}"
        return Data(text.utf8)
    }

    /// Hidden temporary files AtomicFile left in `folder` for `target`.
    static func temporaries(in folder: URL, for target: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).filter {
            $0.hasPrefix(".\(target).tmp-")
        }
    }

    /// Whether `data` is a complete map: it decodes with no schema problem.
    static func isCompleteMap(_ data: Data) -> Bool {
        if case .map = BeatMapCodec.decode(Array(data)) { return true }
        return false
    }

    @Test("SIGKILL at any moment leaves the complete old or a complete new map", arguments: writers)
    func killed(_ writer: KillableWriter) throws {
        let folder = try CLI.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let source = folder.appendingPathComponent("big.beatmap.json")
        let target = folder.appendingPathComponent(writer.target)
        let input = Self.bigMap(beats: Self.beatCount, variant: 1)
        try writer.prepare(folder)
        let arguments = writer.arguments.map { $0.replacingOccurrences(of: "{dir}", with: folder.path) }

        // One uninterrupted run: how long it takes, and what the new file is.
        func reset() throws {
            try input.write(to: source)
            if writer.target != "big.beatmap.json" {
                if writer.targetExists {
                    try Self.bigMap(beats: 1_000, variant: 2).write(to: target)
                } else {
                    try? FileManager.default.removeItem(at: target)
                }
            }
        }
        try reset()
        let old = writer.targetExists ? try Data(contentsOf: target) : nil
        let clean = try Spawn.run(arguments, scratch: folder, timeout: 120)
        #expect(clean.signal == nil, "\(clean.stderr)")
        let new = FileManager.default.contents(atPath: target.path)
        if writer.replaces {
            #expect(clean.status == 0, "\(clean.stderr)")
            #expect(new != nil)
            #expect(new != old)
            if writer.target.hasSuffix(BeatMap.fileExtension) { #expect(Self.isCompleteMap(new ?? Data())) }
        } else {
            // An output that may not be replaced: the one file could not be written (exit 2).
            #expect(clean.status == 2)
            #expect(clean.stderr.contains("already exists"))
            #expect(new == old)
        }

        var outcomes = (old: 0, new: 0, duringWrite: 0)
        var generator = SystemRandomNumberGenerator()
        // The kills during the write must land for the test to prove anything, but how long the write
        // lasts depends on the machine's load: on a busy machine a write can finish inside the 3 ms
        // after its temporary file appears, every time. So the rounds go on, killing as soon as the
        // temporary file appears, until one lands during the write (at most `extraRounds` more).
        let wantsDuringWrite = writer.replaces && writer.killsDuringWrite
        var round = 0
        while round < Self.kills
            || (wantsDuringWrite && outcomes.duringWrite == 0 && round < Self.kills + Self.extraRounds)
        {
            defer { round += 1 }
            let extra = round >= Self.kills
            try reset()
            for name in Self.temporaries(in: folder, for: writer.target) {
                try FileManager.default.removeItem(at: folder.appendingPathComponent(name))
            }
            let child = try Spawn.start(arguments, scratch: folder)
            if round % 2 == 0, !extra {
                usleep(UInt32.random(in: 0...UInt32(max(clean.seconds, 0.01) * 1_200_000), using: &generator))
            } else {
                // Wait for the temporary file, then kill within the next 3 ms (at once in an extra round).
                // A writer that refuses its output exits without one: waiting on would only run out the
                // deadline (5 s a round).
                let deadline = Date().addingTimeInterval(clean.seconds * 4 + 5)
                while Self.temporaries(in: folder, for: writer.target).isEmpty, Date() < deadline,
                    !Spawn.hasExited(child)
                {
                    usleep(50)
                }
                if !extra { usleep(UInt32.random(in: 0...3_000, using: &generator)) }
            }
            kill(child.pid, SIGKILL)
            let result = Spawn.wait(child, timeout: 120)
            let onDisk = FileManager.default.contents(atPath: target.path)
            if onDisk == old {
                outcomes.old += 1
            } else if writer.replaces, let onDisk, onDisk == new {
                outcomes.new += 1
            } else {
                Issue.record(
                    "round \(round): \(writer.target) is neither the old nor the new map (\(onDisk?.count ?? -1) bytes, exit \(result.status.map(String.init) ?? "signal"))"
                )
            }
            if !Self.temporaries(in: folder, for: writer.target).isEmpty { outcomes.duringWrite += 1 }
        }
        if writer.replaces {
            // The kills must have landed in the interesting places, or the test proves nothing.
            if writer.killsDuringWrite {
                #expect(outcomes.duringWrite > 0, "no kill landed while the file was being written: \(outcomes)")
            }
            #expect(outcomes.old > 0, "\(outcomes)")
            #expect(outcomes.new + outcomes.old == round, "\(outcomes)")
        } else {
            #expect(outcomes.old == round)
        }
    }
}
