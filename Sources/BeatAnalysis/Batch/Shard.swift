// SPDX-License-Identifier: GPL-3.0-or-later

public import BeatMapKit
public import Foundation

/// Why a shard could not be chosen.
public enum ShardError: Error, LocalizedError, Sendable, Equatable {
    /// The text is not `I/N`.
    case malformed(String)
    /// The index or count is out of range (`index` 1-based, as given).
    case outOfRange(index: Int, count: Int)
    /// Neither a Kubernetes Indexed Job's nor a Slurm job array's variables are set.
    case noEnvironment
    /// A variable is set but is not a whole number in range.
    case badVariable(name: String, value: String)
    /// `JOB_COMPLETION_INDEX` is set, but the number of shards is not known.
    case countNeeded
    /// The count given differs from the job array's.
    case countMismatch(given: Int, environment: Int, variable: String)

    public var errorDescription: String? {
        switch self {
        case .malformed(let text):
            return "shard '\(text)' is not I/N with 1 ≤ I ≤ N (for example 2/8), or auto"
        case .outOfRange(let index, let count):
            return "shard \(index)/\(count) does not exist: the index runs from 1 to the count"
        case .noEnvironment:
            return
                "no shard index in the environment: neither JOB_COMPLETION_INDEX (a Kubernetes Indexed Job) nor SLURM_ARRAY_TASK_ID (a Slurm job array) is set"
        case .badVariable(let name, let value):
            return "\(name)=\(value) is not a usable shard index or count"
        case .countNeeded:
            return "JOB_COMPLETION_INDEX is set, but a Kubernetes Job does not tell its pods how many shards there are"
        case .countMismatch(let given, let environment, let variable):
            return "\(given) shards were asked for, but \(variable) says \(environment)"
        }
    }

    /// What the user can do about it.
    public var remedy: Remedy? { self == .countNeeded ? .giveShardCount : nil }
}

/// One of `count` parts of a batch. A file belongs to shard `bucket(key) = SHA-256(key) mod count` of its
/// key (its path below the folder given), so the split depends on each file alone: adding files to a
/// library never moves the others to another shard, and every machine computes the same split without
/// talking to the others.
public struct Shard: Sendable, Equatable, CustomStringConvertible {
    /// The shard, 0-based (`0..<count`).
    public let index: Int
    /// How many shards the batch is split into.
    public let count: Int

    /// Shard `index` (0-based) of `count`.
    public init(index: Int, count: Int) throws(ShardError) {
        guard count >= 1, index >= 0, index < count else { throw .outOfRange(index: index + 1, count: count) }
        self.index = index
        self.count = count
    }

    /// `2/8`: 1-based, as people and ``parse(_:)`` count.
    public var description: String { "\(index + 1)/\(count)" }

    /// The shard `I/N` names, `I` counted from 1 (`1/4` … `4/4`).
    public static func parse(_ text: String) throws(ShardError) -> Shard {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let index = Int(parts[0]), let count = Int(parts[1]) else {
            throw .malformed(text)
        }
        guard count >= 1, index >= 1, index <= count else { throw .outOfRange(index: index, count: count) }
        return try Shard(index: index - 1, count: count)
    }

    /// The shard a job runner's environment names: a Kubernetes Indexed Job's `JOB_COMPLETION_INDEX`
    /// (0-based; `count` must be given, as the Job's `completions`), else a Slurm job array's
    /// `SLURM_ARRAY_TASK_ID`, counted from `SLURM_ARRAY_TASK_MIN` in steps of `SLURM_ARRAY_TASK_STEP`,
    /// of `SLURM_ARRAY_TASK_COUNT` tasks (a `count` given must agree).
    public static func fromEnvironment(_ environment: [String: String], count: Int?) throws(ShardError) -> Shard {
        func number(_ name: String) throws(ShardError) -> Int? {
            guard let text = environment[name] else { return nil }
            guard let value = Int(text.trimmingCharacters(in: .whitespaces)) else {
                throw .badVariable(name: name, value: text)
            }
            return value
        }
        if let index = try number("JOB_COMPLETION_INDEX") {
            guard let count else { throw .countNeeded }
            guard index >= 0, index < count else { throw .outOfRange(index: index + 1, count: count) }
            return try Shard(index: index, count: count)
        }
        guard let task = try number("SLURM_ARRAY_TASK_ID") else { throw .noEnvironment }
        guard let tasks = try number("SLURM_ARRAY_TASK_COUNT"), tasks >= 1 else {
            throw .badVariable(name: "SLURM_ARRAY_TASK_COUNT", value: environment["SLURM_ARRAY_TASK_COUNT"] ?? "")
        }
        let first = try number("SLURM_ARRAY_TASK_MIN") ?? 0
        let step = try number("SLURM_ARRAY_TASK_STEP") ?? 1
        guard step >= 1, task >= first, (task - first) % step == 0, (task - first) / step < tasks else {
            throw .badVariable(name: "SLURM_ARRAY_TASK_ID", value: String(task))
        }
        if let count, count != tasks {
            throw .countMismatch(given: count, environment: tasks, variable: "SLURM_ARRAY_TASK_COUNT")
        }
        return try Shard(index: (task - first) / step, count: tasks)
    }

    /// The shard (0-based, of `count`) that the file with `key` belongs to: the first 8 bytes of the
    /// SHA-256 of the key's UTF-8, as a big-endian integer, modulo `count`. In Python:
    /// `int(hashlib.sha256(key.encode()).hexdigest()[:16], 16) % count`.
    public static func bucket(of key: String, count: Int) -> Int {
        guard count > 1 else { return 0 }
        let hex = SHA256Hasher.hex(of: Array(key.utf8))
        let value = UInt64(hex.prefix(16), radix: 16) ?? 0
        return Int(value % UInt64(count))
    }

    /// Whether the file with `key` belongs to this shard.
    public func contains(key: String) -> Bool { Self.bucket(of: key, count: count) == index }
}
