// SPDX-License-Identifier: GPL-3.0-or-later

public import Foundation

/// What to do with maps that may not be in canonical form.
public enum CanonicalFormMode: Sendable, Equatable {
    /// Give the canonical text of one map.
    case print
    /// List the maps that are not canonical; write nothing.
    case check
    /// Rewrite the maps that are not canonical, atomically.
    case rewriteInPlace
    /// Write the canonical text of one map to a file (shown as `shownAs`), replacing an existing one
    /// only when `overwrite`.
    case write(to: URL, shownAs: String, overwrite: Bool)
}

/// Why a canonical-form run could not start.
public enum CanonicalFormError: Error, LocalizedError, Sendable, Equatable {
    /// The paths could not be expanded to map files.
    case paths(ValidationError)
    /// Printing or writing one map's text was asked for, but the paths name this many maps.
    case needsOneMap(count: Int)

    public var errorDescription: String? {
        switch self {
        case .paths(let error): return error.localizedDescription
        case .needsOneMap(let count): return "\(count) maps given; printing or writing a map's text takes one map"
        }
    }
}

/// What a canonical-form run did.
public struct CanonicalFormReport: Sendable, Equatable {
    /// The maps looked at.
    public var files: Int
    /// What goes to the output: the canonical text (``CanonicalFormMode/print``), `formatted PATH` lines
    /// (``CanonicalFormMode/rewriteInPlace``) or the maps not in canonical form, one per line
    /// (``CanonicalFormMode/check``).
    public var output: String
    /// The maps that are not in canonical form (``CanonicalFormMode/check``).
    public var notCanonical: [String]
    /// The maps that could not be read or written, in order.
    public var failures: [BeatMapError]

    /// Whether the run fails: a map failed, or one is not canonical.
    public var fails: Bool { !failures.isEmpty || !notCanonical.isEmpty }
}

extension BeatMapFormatter {
    /// Applies `mode` to the maps under `paths` (files, and folders searched for `*.beatmap.json`). The
    /// path ``MapFileFinder/standardInputPath`` (`-`) stands for the map `standardInput` returns, shown as
    /// `<stdin>` (it cannot be rewritten in place).
    public static func run(_ mode: CanonicalFormMode, paths: [String], standardInput: () -> [UInt8] = { [] })
        throws(CanonicalFormError) -> CanonicalFormReport
    {
        let files: [MapFileFinder.File]
        do { files = try MapFileFinder.find(paths) } catch { throw .paths(error) }
        if mode != .check && mode != .rewriteInPlace && files.count != 1 { throw .needsOneMap(count: files.count) }
        var report = CanonicalFormReport(files: files.count, output: "", notCanonical: [], failures: [])
        for file in files {
            do throws(BeatMapError) {
                let formatted =
                    try file.isStandardInput
                    ? format(bytes: standardInput(), path: file.path, url: file.url)
                    : format(fileAt: file.url, path: file.path)
                switch mode {
                case .check: if !formatted.isCanonical { report.notCanonical.append(file.path) }
                case .rewriteInPlace where file.isStandardInput:
                    throw BeatMapError.writeFailed(path: file.path, reason: "standard input cannot be rewritten")
                case .rewriteInPlace: if try rewriteInPlace(formatted) { report.output += "formatted \(file.path)\n" }
                case .write(let url, let shownAs, let overwrite):
                    try write(formatted, to: url, shownAs: shownAs, overwrite: overwrite)
                case .print: report.output += formatted.canonical
                }
            } catch {
                report.failures.append(error)
            }
        }
        report.output += report.notCanonical.map { $0 + "\n" }.joined()
        return report
    }
}
