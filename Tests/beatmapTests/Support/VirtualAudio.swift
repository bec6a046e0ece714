// SPDX-License-Identifier: GPL-3.0-or-later

import Foundation

/// Virtual audio devices for the realtime tests on machines without a sound card.
enum VirtualAudio {
    /// An ALSA configuration (for `ALSA_CONFIG_PATH`) whose default device is ALSA's `file` plugin
    /// over the `null` device: the bytes played land in `capture` (raw, in the stream's sample format;
    /// not paced in real time). Returns the environment a `beatmap` run needs to use it.
    static func fileDevice(in folder: URL, capture: URL) throws -> [String: String] {
        try alsaConfiguration(
            in: folder,
            """
            pcm.!default {
                type file
                slave.pcm "null"
                file "\(capture.path)"
                format "raw"
            }
            """)
    }

    /// An ALSA configuration whose default device does not exist (no card 99), and no JACK server.
    static func noDevice(in folder: URL) throws -> [String: String] {
        try alsaConfiguration(in: folder, "pcm.!default { type hw card 99 }\nctl.!default { type hw card 99 }")
    }

    private static func alsaConfiguration(in folder: URL, _ text: String) throws -> [String: String] {
        let url = folder.appendingPathComponent("asound.conf")
        try Data("</usr/share/alsa/alsa.conf>\n\(text)\n".utf8).write(to: url)
        return [
            "ALSA_CONFIG_PATH": url.path,
            // Keep any JACK server of the machine out of the test: a server name nobody runs.
            "JACK_DEFAULT_SERVER": "beatmap-test-none-\(UUID().uuidString.prefix(8))", "JACK_NO_START_SERVER": "1",
        ]
    }

    /// Bytes of a capture read at most: 64 MiB, some three minutes of 48 kHz stereo float. A device that
    /// is not paced takes a starved player's silence as fast as the CPU writes it, and one such capture
    /// grew to 10 GB in a minute (session 93); read whole, it would take the machine's memory.
    static let captureLimit = 64 << 20

    /// Reads raw little-endian float32 samples; `nil` when the file holds more than `limit` bytes.
    static func floats(in url: URL, limit: Int = captureLimit) throws -> [Float]? {
        guard let size = try url.resourceValues(forKeys: [.fileSizeKey]).fileSize, size <= limit else { return nil }
        let data = try Data(contentsOf: url)
        return data.withUnsafeBytes { raw in
            (0..<(data.count / 4)).map {
                Float(bitPattern: UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: $0 * 4, as: UInt32.self)))
            }
        }
    }

    /// The frame offset at which `expected` appears exactly in `captured` (interleaved, `channels`
    /// per frame), with only silence before it and after it; `nil` when it does not.
    static func exactMatchOffset(of expected: [Float], in captured: [Float], channels: Int) -> Int? {
        guard captured.count >= expected.count else { return nil }
        var offset = 0
        while offset + expected.count <= captured.count {
            if captured[offset..<(offset + expected.count)].elementsEqual(expected) {
                let before = captured[0..<offset].allSatisfy { $0 == 0 }
                let after = captured[(offset + expected.count)...].allSatisfy { $0 == 0 }
                return before && after ? offset / channels : nil
            }
            if captured[offset] != 0 { return nil }
            offset += channels
        }
        return nil
    }

    /// Runs `command` through `/bin/sh -c` in the background.
    @discardableResult
    static func shell(_ command: String) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", command]
        try process.run()
        return process
    }

    /// Whether `name` is an executable on the PATH.
    static func hasTool(_ name: String) -> Bool {
        (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":").contains {
            FileManager.default.isExecutableFile(atPath: "\($0)/\(name)")
        }
    }
}
