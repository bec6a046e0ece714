// SPDX-License-Identifier: GPL-3.0-or-later

import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// How a spawned `beatmap` ended.
struct SpawnResult {
    /// The exit status, when it exited.
    var status: Int32?
    /// The signal that ended it, when one did (SIGKILL from a timeout or from the test).
    var signal: Int32?
    /// Whether the time limit ran out (the process was then killed).
    var timedOut: Bool
    /// Peak resident memory in bytes (the child's VmHWM on Linux, `wait4`'s ru_maxrss elsewhere).
    var maxResidentBytes: Int
    /// Wall-clock seconds.
    var seconds: Double
    var stdout: String
    var stderr: String
}

/// Runs the real `beatmap` binary with `posix_spawn`, so that the test can kill it at any moment and
/// read its peak memory from `wait4` (Foundation's `Process` reaps children itself).
enum Spawn {
    /// A started process: its id and where its output goes.
    struct Child {
        var pid: pid_t
        var started: Date
        var stdout: URL
        var stderr: URL
    }

    /// Starts `beatmap arguments…` (paths in `arguments` should be absolute); output goes to files in
    /// `scratch`.
    static func start(_ arguments: [String], scratch: URL) throws -> Child {
        let id = UUID().uuidString
        let out = scratch.appendingPathComponent("stdout-\(id)")
        let err = scratch.appendingPathComponent("stderr-\(id)")
        #if canImport(Darwin)
            var actions: posix_spawn_file_actions_t? = nil
        #else
            var actions = posix_spawn_file_actions_t()
        #endif
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, out.path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_addopen(&actions, 2, err.path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        let argv: [UnsafeMutablePointer<CChar>?] = ([CLI.binary.path] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        let started = Date()
        let code = posix_spawn(&pid, CLI.binary.path, &actions, nil, argv, environ)
        guard code == 0 else {
            throw NSError(
                domain: NSPOSIXErrorDomain, code: Int(code), userInfo: [NSLocalizedDescriptionKey: "posix_spawn failed"]
            )
        }
        return Child(pid: pid, started: started, stdout: out, stderr: err)
    }

    /// Waits for `child`, killing it when `timeout` seconds have passed since it started.
    static func wait(_ child: Child, timeout: Double) -> SpawnResult {
        var status: Int32 = 0
        var usage = rusage()
        var timedOut = false
        var highWater = 0
        while true {
            // The child's own peak (VmHWM of the image it exec'd): wait4's ru_maxrss also counts the
            // parent's memory at spawn time, which the kernel carries over exec.
            highWater = max(highWater, peakResidentBytes(of: child.pid))
            let reaped = wait4(child.pid, &status, WNOHANG, &usage)
            if reaped == child.pid { break }
            if reaped < 0 && errno != EINTR { break }
            if !timedOut && Date().timeIntervalSince(child.started) > timeout {
                timedOut = true
                kill(child.pid, SIGKILL)
            }
            usleep(2_000)
        }
        let seconds = Date().timeIntervalSince(child.started)
        let signalled = status & 0x7F != 0
        #if canImport(Darwin)
            let maxResident = Int(usage.ru_maxrss)  // bytes on Darwin
        #else
            let maxResident = highWater > 0 ? highWater : Int(usage.ru_maxrss) * 1024  // KiB on Linux
        #endif
        let stdout = (try? String(contentsOf: child.stdout, encoding: .utf8)) ?? ""
        let stderr = (try? String(contentsOf: child.stderr, encoding: .utf8)) ?? ""
        try? FileManager.default.removeItem(at: child.stdout)
        try? FileManager.default.removeItem(at: child.stderr)
        return SpawnResult(
            status: signalled ? nil : (status >> 8) & 0xFF, signal: signalled ? status & 0x7F : nil, timedOut: timedOut,
            maxResidentBytes: maxResident, seconds: seconds, stdout: stdout, stderr: stderr)
    }

    /// The peak resident memory of a live process (Linux `/proc/PID/status` VmHWM), or 0.
    static func peakResidentBytes(of pid: pid_t) -> Int {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return 0 }
        for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
            let digits = line.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
            return digits * 1024
        }
        return 0
    }

    /// Whether `child` has exited and waits to be reaped (its state in Linux `/proc/PID/stat` is `Z`);
    /// `false` while it runs, and where `/proc` cannot tell.
    static func hasExited(_ child: Child) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(child.pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return false }
        return stat[stat.index(after: close)...].drop { $0 == " " }.first == "Z"
    }

    /// Runs `beatmap arguments…` to the end or for at most `timeout` seconds.
    static func run(_ arguments: [String], scratch: URL, timeout: Double = 120) throws -> SpawnResult {
        wait(try start(arguments, scratch: scratch), timeout: timeout)
    }
}
