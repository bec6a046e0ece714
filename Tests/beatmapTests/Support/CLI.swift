// SPDX-License-Identifier: GPL-3.0-or-later

import Foundation

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
        let process = Process()
        process.executableURL = binary
        process.arguments = arguments
        if let folder { process.currentDirectoryURL = folder }
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        }
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        let input = Pipe()
        process.standardInput = input
        try process.run()
        if let stdin { input.fileHandleForWriting.write(stdin) }
        try input.fileHandleForWriting.close()
        // Read both pipes to the end before waiting, so a large output cannot block the child.
        let group = DispatchGroup()
        nonisolated(unsafe) var errData = Data()  // written by one queue task, read after group.wait()
        group.enter()
        DispatchQueue.global().async {
            errData = err.fileHandleForReading.readDataToEndOfFile()
            group.leave()
        }
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        group.wait()
        process.waitUntilExit()
        return CLIResult(
            status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
            stderr: String(decoding: errData, as: UTF8.self))
    }

    /// A new empty temporary folder.
    static func temporaryFolder() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("beatmap-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}
