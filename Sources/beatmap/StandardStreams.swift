// SPDX-License-Identifier: GPL-3.0-or-later

import ArgumentParser
import BeatMapKit
import Foundation

/// `-` as a path, the Unix convention every command follows: standard input where one file is read,
/// standard output where one file is written. A file really named `-` is `./-`.
///
/// Maps read from standard input are taken as files in the current folder (a relative `audio.path` in
/// them is resolved from there). Inputs the libraries must open by path (audio for `analyze` and `plot`,
/// a file to `import` or `export`) are first copied to a temporary file (libsndfile reads only some
/// formats from a pipe, and MP3 and Ogg need seeking); messages name it `<stdin>`.
enum StandardStreams {
    /// The path that means standard input or output.
    static let dash = MapFileFinder.standardInputPath

    /// How standard input is named in messages.
    static let inputName = MapFileFinder.standardInputName

    /// Whether `path` is `-`.
    static func isDash(_ path: String?) -> Bool { path == dash }

    /// All of standard input.
    static func readInput() -> [UInt8] { [UInt8](FileHandle.standardInput.readDataToEndOfFile()) }

    /// This process's folder for copies of standard input (removed by ``removeSpooled()``).
    static let spoolFolder = FileManager.default.temporaryDirectory
        .appendingPathComponent("beatmap-stdin-\(ProcessInfo.processInfo.processIdentifier)", isDirectory: true)

    /// Copies standard input to a temporary file named `stdin` (with `pathExtension`, for readers that go
    /// by it) and returns its URL.
    static func spool(pathExtension: String = "") throws -> URL {
        try FileManager.default.createDirectory(at: spoolFolder, withIntermediateDirectories: true)
        var url = spoolFolder.appendingPathComponent("stdin")
        if !pathExtension.isEmpty { url.appendPathExtension(pathExtension) }
        let data = FileHandle.standardInput.readDataToEndOfFile()
        guard !data.isEmpty else { throw StandardInputError.empty }
        try data.write(to: url)
        return url
    }

    /// The URL of `path` for reading: a copy of standard input for `-` (see ``spool(pathExtension:)``).
    static func readableURL(_ path: String, pathExtension: String = "") throws -> URL {
        isDash(path) ? try spool(pathExtension: pathExtension) : URL(fileURLWithPath: path)
    }

    /// Removes the copies of standard input, if any.
    static func removeSpooled() {
        try? FileManager.default.removeItem(at: spoolFolder)
    }

    /// `message` with the temporary copy of standard input named `<stdin>`.
    static func naming(_ message: String) -> String {
        let prefix = spoolFolder.path + "/stdin"
        guard message.contains(prefix) else { return message }
        var text = message
        while let range = text.range(of: prefix) {
            var end = range.upperBound
            // The copy's extension, if any (`stdin.sm`), is part of its name.
            if end < text.endIndex, text[end] == "." {
                end = text.index(after: end)
                while end < text.endIndex, text[end].isLetter || text[end].isNumber { end = text.index(after: end) }
            }
            text.replaceSubrange(range.lowerBound..<end, with: inputName)
        }
        return text
    }

    /// `path`'s file name as a title shows it: `<stdin>` for `-`.
    static func displayName(_ path: String) -> String {
        isDash(path) ? inputName : (path as NSString).lastPathComponent
    }

    /// A current-folder URL for a map read from standard input, so that its relative audio path
    /// resolves from the current folder.
    static var inputMapURL: URL {
        URL(fileURLWithPath: FileManager.default.currentDirectoryPath, isDirectory: true)
            .appendingPathComponent(inputName)
    }
}

/// Standard input was named as an input but held nothing.
enum StandardInputError: Error, LocalizedError {
    case empty

    var errorDescription: String? { "\(StandardStreams.inputName): standard input is empty" }
}

/// Checks on output paths made before any work, so that nothing is computed for a file the command
/// would refuse, and nothing is written with content its name does not promise.
enum OutputName {
    /// Refuses `path` unless it is `-` or ends with one of `suffixes` (case-insensitive); `what` says
    /// what the command writes (`SVG`, `a beat map (JSON)`).
    static func require(_ path: String?, option: String, suffixes: [String], writes what: String) throws {
        guard let path, !StandardStreams.isDash(path) else { return }
        let lower = path.lowercased()
        guard !suffixes.contains(where: { lower.hasSuffix($0) }) else { return }
        let named = (path as NSString).pathExtension
        let list = suffixes.joined(separator: " or ")
        throw ValidationError(
            "\(option) \(path): this command writes \(what), so the name must end in \(list) (or be - for "
                + "standard output)" + (named.isEmpty ? "" : "; .\(named) is not supported"))
    }
}
