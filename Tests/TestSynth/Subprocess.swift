// SPDX-License-Identifier: GPL-3.0-or-later

public import Foundation

/// What a finished child process produced.
public struct SubprocessResult: Sendable {
    /// Its exit status.
    public var status: Int32
    /// Its standard output, as UTF-8.
    public var stdout: String
    /// Its standard error, as UTF-8.
    public var stderr: String
}

/// The tests' one way to run a program and capture its output.
public enum Subprocess {
    /// Runs `executable arguments…` (in `folder`, with `stdin` on its standard input and `environment`
    /// added to this process's variables) and waits for it. Both output pipes are read to the end before
    /// waiting, so a large output cannot block the child.
    public static func run(
        _ executable: URL, _ arguments: [String], in folder: URL? = nil, stdin: Data? = nil,
        environment: [String: String] = [:]
    ) throws -> SubprocessResult {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if let folder { process.currentDirectoryURL = folder }
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        }
        let out = Pipe()
        let err = Pipe()
        let input = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = input
        try process.run()
        if let stdin { input.fileHandleForWriting.write(stdin) }
        try input.fileHandleForWriting.close()
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
        return SubprocessResult(
            status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
            stderr: String(decoding: errData, as: UTF8.self))
    }
}
