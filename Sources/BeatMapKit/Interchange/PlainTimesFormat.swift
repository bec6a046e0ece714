// SPDX-License-Identifier: GPL-3.0-or-later

public import Foundation

/// One beat time in seconds per line (`.csv` or `.txt`): what mir_eval's `load_events` and most
/// research tools read. Export writes nothing else; import takes the first column of each line
/// (separated by commas, tabs, spaces or semicolons), skips `#` comments and a header line.
public struct PlainTimesFormat: BeatMapConverter {
    /// The two file names of the same content.
    public enum Flavour: Sendable, Equatable {
        /// `.csv`.
        case csv
        /// `.txt`.
        case txt
    }

    /// Which extension this converter is registered for.
    public let flavour: Flavour

    /// A converter for `flavour`.
    public init(flavour: Flavour) { self.flavour = flavour }

    public var identifier: String { flavour == .csv ? "csv" : "txt" }
    public var fileExtension: String { identifier }

    public func export(_ map: BeatMap, options: ExportOptions) throws(InterchangeError) -> [ExportedFile] {
        try FormatSupport.checkExportable(map, for: format)
        var out = ""
        out.reserveCapacity(map.beats.count * 12)
        for beat in map.beats {
            out += NumberFormatting.decimal(beat)
            out += "\n"
        }
        return [ExportedFile(text: out)]
    }

    public func importMap(from url: URL, options: ImportOptions) throws(InterchangeError) -> ImportedMap {
        try parse(try FormatSupport.text(of: url), url: url, options: options)
    }

    /// Parses times `text` read from `url`.
    public func parse(_ text: String, url: URL, options: ImportOptions) throws(InterchangeError) -> ImportedMap {
        let times = try TimeListReader.times(
            in: text, path: url.path, separators: [",", "\t", " ", ";"], commentPrefixes: ["#", "%"], allowHeader: true,
            what: "expected one time per line")
        return try TimeListReader.map(times, format: format, url: url, options: options)
    }
}

extension InterchangeFormat {
    /// One beat time in seconds per line, `.csv` (mir_eval and most research tools read it).
    public static let csv = InterchangeFormat(PlainTimesFormat(flavour: .csv))
    /// One beat time in seconds per line, `.txt` (mir_eval's `load_events` format).
    public static let txt = InterchangeFormat(PlainTimesFormat(flavour: .txt))
}
