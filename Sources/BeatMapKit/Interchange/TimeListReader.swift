// SPDX-License-Identifier: GPL-3.0-or-later

import Foundation

/// Reads the first column of a text file of times (one event per line), with errors that name the line.
enum TimeListReader {
    /// The first field of each line as seconds. Fields are split on `separators`; empty lines and lines
    /// starting with one of `commentPrefixes` are skipped; a first line whose first field is not a number
    /// is skipped as a header when `allowHeader`.
    static func times(
        in text: String, path: String, separators: Set<Character>, commentPrefixes: [String], allowHeader: Bool,
        what: String
    ) throws(InterchangeError) -> [TimeInterval] {
        var times: [TimeInterval] = []
        var sawContent = false
        for (number, raw) in FormatSupport.numberedLines(text) {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || commentPrefixes.contains(where: { line.hasPrefix($0) }) { continue }
            let field =
                line.split(maxSplits: 1, omittingEmptySubsequences: true, whereSeparator: { separators.contains($0) })
                .first
                .map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
            guard let time = FormatSupport.number(field) else {
                if allowHeader && !sawContent {
                    sawContent = true
                    continue
                }
                throw InterchangeError(
                    path: path, line: number, "'\(FormatSupport.shown(field))' is not a time in seconds (\(what))")
            }
            sawContent = true
            times.append(time)
        }
        return times
    }

    /// A label for each beat: its position in the bar when the map knows it, else its 1-based number.
    static func labels(for map: BeatMap) -> [String] {
        let positions = BarPositions.positions(of: map)
        return positions.enumerated().map { index, position in position.map { String($0) } ?? String(index + 1) }
    }

    /// The map an import of plain times gives.
    static func map(
        _ times: [TimeInterval], format: InterchangeFormat, url: URL, options: ImportOptions,
        fileDuration: TimeInterval? = nil
    ) throws(InterchangeError) -> ImportedMap {
        var notes: [ImportNote] = []
        let duration = try FormatSupport.duration(
            fromFile: fileDuration, audioPath: nil, source: url, beats: times.sorted(), options: options, notes: &notes)
        let map = BeatMap(
            audio: AudioReference(duration: duration), beats: times,
            analysis: FormatSupport.analysis(format: format, source: url))
        return ImportedMap(map: map, notes: notes)
    }
}
