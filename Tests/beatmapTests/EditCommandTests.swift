// SPDX-License-Identifier: GPL-3.0-or-later

import BeatMapKit
import Foundation
import Testing

@Suite("beatmap edit")
struct EditCommandTests {
    /// A folder holding a copy of the demo map `name`.
    static func project(_ name: String = "demo-120") throws -> URL {
        let folder = try CLI.temporaryFolder()
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        try FileManager.default.copyItem(
            at: root.appendingPathComponent("BeatMaps/\(name).beatmap.json"),
            to: folder.appendingPathComponent("map.beatmap.json"))
        return folder
    }

    @Test("--metric ½ then --metric ×2 gives back the beats within 1 µs, the first keeping a backup")
    func halfThenDouble() throws {
        let folder = try Self.project()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("map.beatmap.json")
        let original = try BeatMapCodec.read(from: url)
        let half = try CLI.run(["edit", "map.beatmap.json", "--metric", "½"], in: folder)
        #expect(half.status == 0, "\(half.stderr)")
        #expect(half.stdout.contains("metric level ½"))
        #expect(half.stdout.contains("previous version kept as map.beatmap.json.bak"))
        let double = try CLI.run(["edit", "map.beatmap.json", "--metric", "x2", "--no-backup"], in: folder)
        #expect(double.status == 0, "\(double.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("map.beatmap.json.bak.2").path))
        let back = try BeatMapCodec.read(from: url)
        try #require(back.beats.count == original.beats.count)
        #expect(zip(back.beats, original.beats).allSatisfy { abs($0 - $1) <= 1e-6 + 1e-9 })
    }

    @Test("negative values parse after their flag: --nudge -12, --shift-bar -1")
    func negativeValues() throws {
        let folder = try Self.project()
        defer { try? FileManager.default.removeItem(at: folder) }
        let nudge = try CLI.run(["edit", "map.beatmap.json", "--nudge", "-12", "--no-backup"], in: folder)
        #expect(nudge.status == 0, "\(nudge.stderr)")
        #expect(nudge.stdout.contains("moved by -12.0 ms"))
        let shift = try CLI.run(["edit", "map.beatmap.json", "--shift-bar", "-1", "--no-backup"], in: folder)
        #expect(shift.status == 0, "\(shift.stderr)")
        #expect(shift.stdout.contains("bar lines 1 beat earlier"))
        let map = try BeatMapCodec.read(from: folder.appendingPathComponent("map.beatmap.json"))
        #expect(map.beats.first == 0.488)
        #expect(BarPositions.positions(of: map).first == 2)
    }

    @Test("--shift-beats ½ then --shift-beats -1/2 gives back the beats the map keeps; a bad fraction is refused")
    func shiftBeats() throws {
        let folder = try Self.project()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("map.beatmap.json")
        let original = try BeatMapCodec.read(from: url)
        let later = try CLI.run(["edit", "map.beatmap.json", "--shift-beats", "½", "--no-backup"], in: folder)
        #expect(later.status == 0, "\(later.stderr)")
        #expect(later.stdout.contains("every beat half a beat later"))
        let earlier = try CLI.run(["edit", "map.beatmap.json", "--shift-beats", "-1/2", "--no-backup"], in: folder)
        #expect(earlier.status == 0, "\(earlier.stderr)")
        #expect(earlier.stdout.contains("every beat half a beat earlier"))
        let back = try BeatMapCodec.read(from: url)
        try #require(back.beats.count >= original.beats.count - 1)
        #expect(zip(back.beats, original.beats).allSatisfy { abs($0 - $1) <= 1e-6 + 1e-9 })
        #expect(back.tempo?.map(\.time) == original.tempo?.map(\.time))
        let before = try Data(contentsOf: url)
        let whole = try CLI.run(["edit", "map.beatmap.json", "--shift-beats", "1"], in: folder)
        #expect(whole.status != 0)
        #expect(whole.stderr.contains("--shift-beats must be a fraction of a beat between -1 and 1"))
        #expect(try Data(contentsOf: url) == before)
    }

    @Test("a bad edit writes nothing and says why; a bad flag value is a usage error")
    func refused() throws {
        let folder = try Self.project()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("map.beatmap.json")
        let before = try Data(contentsOf: url)
        let segment = try CLI.run(["edit", "map.beatmap.json", "--beats-per-bar", "3", "--segment", "4"], in: folder)
        #expect(segment.status == 2)
        #expect(segment.stderr.contains("there is no tempo segment 4: the map has 1"))
        let short = try CLI.run(["edit", "map.beatmap.json", "--trim", "0", "0.1"], in: folder)
        #expect(short.status == 2)
        #expect(short.stderr.contains("the trim would leave fewer than two beats"))
        let metric = try CLI.run(["edit", "map.beatmap.json", "--metric", "5/4"], in: folder)
        #expect(metric.status != 0)
        #expect(metric.stderr.contains("--metric must be"))
        #expect(try Data(contentsOf: url) == before)
        #expect(!FileManager.default.fileExists(atPath: url.path + ".bak"))
    }

    @Test("a nudge before 0 s drops the beats it moves out of the track and says so")
    func nudgeOutOfTheTrack() throws {
        let folder = try Self.project()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("map.beatmap.json")
        let original = try BeatMapCodec.read(from: url)
        let first = try #require(original.beats.first)
        let early = try CLI.run(["edit", "map.beatmap.json", "--nudge", "-1000", "--no-backup"], in: folder)
        #expect(early.status == 0, "\(early.stderr)")
        let kept = original.beats.filter { $0 - 1 >= 0 }
        let dropped = original.beats.count - kept.count
        #expect(dropped >= 1 && first < 1)
        #expect(early.stdout.contains("of them out of the track and dropped"))
        let edited = try BeatMapCodec.read(from: url)
        #expect(edited.beats.count == kept.count)
        #expect(zip(edited.beats, kept).allSatisfy { abs($0 - ($1 - 1)) <= 1e-6 })
    }

    @Test(
        "a beat list that already fails off-grid (its tempo drifts) can be doubled; an edit that would empty it is refused"
    )
    func alreadyFailing() throws {
        let folder = try CLI.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        // 60 beats accelerating from 100 to about 112 BPM: off its one inferred grid by up to 90 ms.
        var beats: [Double] = [0.5]
        for index in 1..<60 { beats.append(beats[index - 1] + 0.6 * (1 - 0.002 * Double(index))) }
        let text =
            "{ \"version\": 1, \"audio\": { \"duration\": 40 }, \"beats\": [\(beats.map { String($0) }.joined(separator: ", "))] }\n"
        let url = folder.appendingPathComponent("map.beatmap.json")
        try Data(text.utf8).write(to: url)
        let checked = try CLI.run(["validate", "--no-config", "map.beatmap.json"], in: folder)
        #expect(checked.status == 1)
        #expect(checked.stdout.contains("[off-grid]"), "\(checked.stdout)")
        #expect(!checked.stdout.contains("[out-of-duration]"))

        let doubled = try CLI.run(["edit", "map.beatmap.json", "--metric", "x2", "--no-backup"], in: folder)
        #expect(doubled.status == 0, "\(doubled.stderr)")
        let map = try BeatMapCodec.read(from: url)
        // Every beat kept at an even index, a midpoint between each pair (and one after the last).
        try #require(map.beats.count >= 2 * beats.count - 1)
        #expect(beats.indices.allSatisfy { abs(map.beats[2 * $0] - beats[$0]) <= 1e-6 })
        #expect(abs(map.beats[1] - (beats[0] + beats[1]) / 2) <= 1e-6)

        let before = try Data(contentsOf: url)
        let late = try CLI.run(["edit", "map.beatmap.json", "--nudge", "39700"], in: folder)
        #expect(late.status == 2)
        #expect(late.stderr.contains("the nudge would leave fewer than two beats inside the track"), "\(late.stderr)")
        #expect(try Data(contentsOf: url) == before)
    }

    @Test("--at names the tempo playing then: on a followed map the whole run of one-beat segments")
    func atATime() throws {
        let folder = try Self.project("demo-drift")
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("map.beatmap.json")
        let original = try BeatMapCodec.read(from: url)
        let meter = try CLI.run(
            ["edit", "map.beatmap.json", "--beats-per-bar", "3", "--at", "0:10", "--no-backup"], in: folder)
        #expect(meter.status == 0, "\(meter.stderr)")
        #expect(meter.stdout.contains("3 beats per bar in the tempo at 10.000 s"), "\(meter.stdout)")
        let map = try BeatMapCodec.read(from: url)
        #expect(map.beats == original.beats)
        // Bars of three over the whole map, not in the one segment a beat long that plays at 10 s.
        let positions = BarPositions.positions(of: map)
        let downbeats = positions.indices.filter { positions[$0] == 1 }
        try #require(downbeats.count >= 15)
        #expect(downbeats.first == 0)
        #expect(zip(downbeats.dropFirst(), downbeats).allSatisfy { $0 - $1 == 3 })
    }

    @Test("--tempo BPM --at TIME lays the tempo there out again with a beat at TIME, as the studio's tapped tempo")
    func tappedTempo() throws {
        let folder = try Self.project("demo-drift")
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("map.beatmap.json")
        let original = try BeatMapCodec.read(from: url)
        let expected = try BeatMapEditor.apply(.tempo(bpm: 100, anchor: 5.2), to: original).map
        let run = try CLI.run(["edit", "map.beatmap.json", "--tempo", "100", "--at", "5.2", "--no-backup"], in: folder)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("tempo 100 BPM through 5.200 s"), "\(run.stdout)")
        let map = try BeatMapCodec.read(from: url)
        #expect(map == expected)
        #expect(map.tempo?.map(\.bpm) == [100])
        try #require(map.beats.count >= 40)
        #expect(map.beats.contains { abs($0 - 5.2) <= 1e-6 })
        #expect(zip(map.beats.dropFirst(), map.beats).allSatisfy { abs($0 - $1 - 0.6) <= 2e-6 })
    }

    @Test("--at and --tempo are refused where they mean nothing, and nothing is written")
    func atRefused() throws {
        let folder = try Self.project()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("map.beatmap.json")
        let before = try Data(contentsOf: url)
        let cases: [([String], String)] = [
            (["--tempo", "120"], "--tempo needs --at TIME"),
            (["--at", "3"], "--at applies to --tempo, --beats-per-bar or --shift-bar"),
            (["--shift-bar", "1", "--segment", "1", "--at", "3"], "--segment and --at both choose the tempo"),
            (["--tempo", "-120", "--at", "3"], "--tempo must be a tempo in BPM above 0"),
            (["--beats-per-bar", "3", "--at", "-1"], "--at"),
        ]
        for (flags, message) in cases {
            let run = try CLI.run(["edit", "map.beatmap.json"] + flags, in: folder)
            #expect(run.status == 64, "\(flags)")
            #expect(run.stderr.contains(message), "\(flags): \(run.stderr)")
        }
        let slow = try CLI.run(["edit", "map.beatmap.json", "--tempo", "5", "--at", "3"], in: folder)
        #expect(slow.status == 2)
        #expect(slow.stderr.contains("the tempo must be from 20 to 400 BPM"), "\(slow.stderr)")
        #expect(try Data(contentsOf: url) == before)
        #expect(!FileManager.default.fileExists(atPath: url.path + ".bak"))
    }

    @Test("- reads the map from standard input and prints it edited; a refused edit prints nothing")
    func standardInput() throws {
        let folder = try Self.project()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("map.beatmap.json")
        let input = try Data(contentsOf: url)
        let original = try BeatMapCodec.read(from: url)
        let run = try CLI.run(["edit", "-", "--nudge", "12"], in: folder, stdin: input)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("<stdin>: edited"))
        #expect(run.stderr.contains("nudge +12.0 ms"))
        let printed = try BeatMapCodec.map(from: Array(run.stdout.utf8), path: "stdout")
        #expect(printed == (try BeatMapEditor.apply(.nudge(seconds: 0.012), to: original).map))
        #expect(try Data(contentsOf: url) == input)
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        #expect(names == ["map.beatmap.json"])
        let refused = try CLI.run(["edit", "-", "--tempo", "5", "--at", "2"], in: folder, stdin: input)
        #expect(refused.status == 2)
        #expect(refused.stdout.isEmpty)
        #expect(refused.stderr.contains("<stdin>: the tempo must be from 20 to 400 BPM"), "\(refused.stderr)")
        let broken = try CLI.run(["edit", "-", "--nudge", "3"], in: folder, stdin: Data("{\"version\": 1}".utf8))
        #expect(broken.status == 2)
        #expect(broken.stdout.isEmpty)
        #expect(broken.stderr.contains("<stdin>:1:1: missing required member"), "\(broken.stderr)")
    }

    @Test("several maps are edited alike, each all or nothing: a bad one is named and the others still edited")
    func severalMaps() throws {
        let folder = try Self.project()
        defer { try? FileManager.default.removeItem(at: folder) }
        let good = folder.appendingPathComponent("map.beatmap.json")
        let other = folder.appendingPathComponent("other.beatmap.json")
        let bad = folder.appendingPathComponent("bad.beatmap.json")
        try FileManager.default.copyItem(at: good, to: other)
        try Data("{}".utf8).write(to: bad)
        let original = try BeatMapCodec.read(from: good)
        let run = try CLI.run(
            ["edit", "map.beatmap.json", "bad.beatmap.json", "other.beatmap.json", "--nudge", "5", "--no-backup"],
            in: folder)
        #expect(run.status == 1)
        #expect(run.stdout.contains("map.beatmap.json: edited"))
        #expect(run.stdout.contains("other.beatmap.json: edited"))
        #expect(run.stderr.contains("bad.beatmap.json"), "\(run.stderr)")
        let expected = try BeatMapEditor.apply(.nudge(seconds: 0.005), to: original).map
        #expect(try BeatMapCodec.read(from: good) == expected)
        #expect(try BeatMapCodec.read(from: other) == expected)
        #expect(try Data(contentsOf: bad) == Data("{}".utf8))
        let mixed = try CLI.run(["edit", "map.beatmap.json", "-", "--nudge", "5"], in: folder, stdin: Data())
        #expect(mixed.status == 64)
        #expect(mixed.stderr.contains("- (standard input) is edited alone"))
    }
}
