// SPDX-License-Identifier: GPL-3.0-or-later

public import Foundation

/// A Sonic Visualiser time-instants layer as CSV (File › Import Annotation Layer; the layer's own
/// "Export Annotation Layer" writes the same): one `time,label` line per instant, time in seconds.
/// Export labels each beat with its position in the bar (or its number). Import takes the first column
/// and skips a header line.
public struct SonicVisualiserFormat: BeatMapConverter {
    /// A converter.
    public init() {}

    public var identifier: String { "sonic-visualiser" }
    public var fileExtension: String { "csv" }

    public func export(_ map: BeatMap, options: ExportOptions) throws(InterchangeError) -> [ExportedFile] {
        try FormatSupport.checkExportable(map, for: .sonicVisualiser)
        let labels = TimeListReader.labels(for: map)
        var out = ""
        for (index, beat) in map.beats.enumerated() {
            out += "\(String(format: "%.6f", NumberFormatting.roundedToMicroseconds(beat))),\(labels[index])\n"
        }
        return [ExportedFile(text: out)]
    }

    public func importMap(from url: URL, options: ImportOptions) throws(InterchangeError) -> ImportedMap {
        try parse(try FormatSupport.text(of: url), url: url, options: options)
    }

    /// Parses layer CSV `text` read from `url`.
    public func parse(_ text: String, url: URL, options: ImportOptions) throws(InterchangeError) -> ImportedMap {
        let times = try TimeListReader.times(
            in: text, path: url.path, separators: [",", "\t"], commentPrefixes: ["#"], allowHeader: true,
            what: "expected time,label")
        return try TimeListReader.map(times, format: .sonicVisualiser, url: url, options: options)
    }
}

extension InterchangeFormat {
    /// Sonic Visualiser time-instants annotation layer as CSV (`time,label`).
    public static let sonicVisualiser = InterchangeFormat(SonicVisualiserFormat())
}
