// SPDX-License-Identifier: GPL-3.0-or-later

import Foundation
import TestSynth

/// What a run of the `beatmap` executable produced.
struct CLIResult {
    var status: Int32
    var stdout: String
    var stderr: String
}

/// Runs the real `beatmap` executable (built by SwiftPM because this test target depends on it).
enum CLI {
    /// The package's root folder.
    static let packageRoot: URL = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// This test target's fixtures folder.
    static let fixtures: URL = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures")

    /// The `beatmap` binary: `$BEATMAP_BIN`, or next to the test bundle, or in `.build/debug`.
    static let binary: URL = {
        var candidates: [String] = []
        if let explicit = ProcessInfo.processInfo.environment["BEATMAP_BIN"] { candidates.append(explicit) }
        if let first = CommandLine.arguments.first {
            var folder = URL(fileURLWithPath: first).deletingLastPathComponent()
            // Inside an .xctest bundle on Apple platforms the binary is a few levels down.
            for _ in 0..<4 {
                candidates.append(folder.appendingPathComponent("beatmap").path)
                folder = folder.deletingLastPathComponent()
            }
        }
        candidates.append(packageRoot.appendingPathComponent(".build/debug/beatmap").path)
        let found = candidates.first { FileManager.default.isExecutableFile(atPath: $0) }
        return URL(fileURLWithPath: found ?? candidates.last ?? "beatmap")
    }()

    /// Runs `beatmap arguments…` in `folder` and waits for it; `environment` adds to (or replaces)
    /// the test process's variables.
    static func run(
        _ arguments: [String], in folder: URL? = nil, stdin: Data? = nil, environment: [String: String] = [:]
    ) throws -> CLIResult {
        let result = try Subprocess.run(binary, arguments, in: folder, stdin: stdin, environment: environment)
        return CLIResult(status: result.status, stdout: result.stdout, stderr: result.stderr)
    }

    /// A new empty temporary folder.
    static func temporaryFolder() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("beatmap-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}
