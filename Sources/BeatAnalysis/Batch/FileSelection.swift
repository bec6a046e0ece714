// SPDX-License-Identifier: GPL-3.0-or-later

import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Which of the audio files found in folders a batch takes: shell glob patterns to include and
/// exclude, and — by default — not the stems of a multitrack song (`guitar.ogg`, `drums.ogg` beside
/// the mix `song.ogg`, as Frets on Fire, Clone Hero and Rock Band libraries lay them out).
///
/// A pattern is matched case-insensitively with `fnmatch(3)`: one with a `/` against the path below the
/// folder given (`*` may cross a `/`), one without against the file name. Files named one by one (not
/// found in a folder) are always taken.
public struct FileSelection: Sendable, Equatable {
    /// The stems left out by default: the instrument, vocal, crowd and preview tracks a multitrack song
    /// keeps beside its mix.
    public static let stemPatterns = [
        "guitar.*", "bass.*", "rhythm.*", "keys.*", "vocals.*", "vocals_*.*", "drums.*", "drums_*.*", "crowd.*",
        "preview.*",
    ]

    /// Patterns a file must match one of to be taken (none: every file is).
    public var include: [String]
    /// Patterns that leave a file out.
    public var exclude: [String]
    /// Whether files matching ``stemPatterns`` are left out unless an ``include`` pattern names them.
    public var skipStems: Bool

    /// A selection: every file (but stems, when `skipStems`) matching one of `include` (if any) and none
    /// of `exclude`.
    public init(include: [String] = [], exclude: [String] = [], skipStems: Bool = true) {
        self.include = include
        self.exclude = exclude
        self.skipStems = skipStems
    }

    /// Why the file at `relativePath` (below the folder given) is left out, or `nil` if it is taken.
    /// A file an include pattern matches is taken even if it looks like a stem.
    public func exclusion(of relativePath: String) -> FileExclusion? {
        let included = include.contains { Self.matches($0, relativePath) }
        if !include.isEmpty && !included { return .notIncluded }
        if let pattern = exclude.first(where: { Self.matches($0, relativePath) }) { return .excluded(pattern: pattern) }
        if skipStems, !included, let pattern = Self.stemPatterns.first(where: { Self.matches($0, relativePath) }) {
            return .stem(pattern: pattern)
        }
        return nil
    }

    /// Whether glob `pattern` matches `relativePath`: the whole path if the pattern has a `/`, else the
    /// file name; case-insensitive.
    public static func matches(_ pattern: String, _ relativePath: String) -> Bool {
        let subject = pattern.contains("/") ? relativePath : (relativePath as NSString).lastPathComponent
        return fnmatch(pattern.lowercased(), subject.lowercased(), 0) == 0
    }
}

/// Why a file found in a folder is left out of a batch.
public enum FileExclusion: Sendable, Equatable, Hashable {
    /// It looks like a stem of a multitrack song (it matches this one of ``FileSelection/stemPatterns``).
    case stem(pattern: String)
    /// It matches this exclude pattern.
    case excluded(pattern: String)
    /// Include patterns were given and it matches none.
    case notIncluded
}

/// A file left out of a batch, and why.
public struct ExcludedFile: Sendable, Equatable {
    /// The file, as the user gave its folder (`Library/Artist/Song/guitar.ogg`).
    public var path: String
    /// Why it was left out.
    public var reason: FileExclusion

    /// `path`, left out for `reason`.
    public init(path: String, reason: FileExclusion) {
        self.path = path
        self.reason = reason
    }

    /// One sentence naming the files left out, grouped by reason: the paths when there are few, the
    /// file names with their counts when there are many.
    public static func describe(_ files: [ExcludedFile]) -> [String] {
        // Stems are one group whatever pattern matched them; exclude patterns one group each.
        func group(_ reason: FileExclusion) -> FileExclusion {
            if case .stem = reason { return .stem(pattern: "") }
            return reason
        }
        var groups: [(FileExclusion, [String])] = []
        for file in files {
            if let index = groups.firstIndex(where: { $0.0 == group(file.reason) }) {
                groups[index].1.append(file.path)
            } else {
                groups.append((group(file.reason), [file.path]))
            }
        }
        return groups.map { reason, paths in
            let count = paths.count
            let what: String
            switch reason {
            case .stem:
                what =
                    count == 1
                    ? "that looks like a stem of a multitrack song" : "that look like stems of multitrack songs"
            case .excluded(let pattern): what = "matching the exclude pattern '\(pattern)'"
            case .notIncluded: what = "matching no include pattern"
            }
            return "left out \(count) file\(count == 1 ? "" : "s") \(what): \(list(paths))"
        }
    }

    /// Up to five paths, or the file names by how often they occur.
    private static func list(_ paths: [String]) -> String {
        if paths.count <= 5 { return paths.joined(separator: ", ") }
        var counts: [String: Int] = [:]
        for path in paths { counts[(path as NSString).lastPathComponent, default: 0] += 1 }
        let names = counts.sorted { ($0.value, $1.key) > ($1.value, $0.key) }
        let shown = names.prefix(6).map { "\($0.value) × \($0.key)" }
        return shown.joined(separator: ", ") + (names.count > shown.count ? ", …" : "")
    }
}
