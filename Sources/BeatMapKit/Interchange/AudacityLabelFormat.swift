// SPDX-License-Identifier: GPL-3.0-or-later

public import Foundation

/// An Audacity label track as text (File › Import › Labels / Export Labels): one `start<TAB>end<TAB>label`
/// line per label. Export writes a point label (start = end) on each beat, labelled with its position in
/// the bar (or its number when the map has no bar length). Import takes each label's start; the extra
/// `\`-lines of spectral labels are skipped.
public struct AudacityLabelFormat: BeatMapConverter {
    /// A converter.
    public init() {}

    public var identifier: String { "audacity" }
    public var fileExtension: String { "txt" }

    public func export(_ map: BeatMap, options: ExportOptions) throws(InterchangeError) -> [ExportedFile] {
        try FormatSupport.checkExportable(map, for: .audacity)
        let labels = TimeListReader.labels(for: map)
        var out = ""
        for (index, beat) in map.beats.enumerated() {
            let time = String(format: "%.6f", NumberFormatting.roundedToMicroseconds(beat))
            out += "\(time)\t\(time)\t\(labels[index])\n"
        }
        return [ExportedFile(text: out)]
    }

    public func importMap(from url: URL, options: ImportOptions) throws(InterchangeError) -> ImportedMap {
        try parse(try FormatSupport.text(of: url), url: url, options: options)
    }

    /// Parses label-track `text` read from `url`.
    public func parse(_ text: String, url: URL, options: ImportOptions) throws(InterchangeError) -> ImportedMap {
        let times = try TimeListReader.times(
            in: text, path: url.path, separators: ["\t"], commentPrefixes: ["\\"], allowHeader: false,
            what: "expected start<TAB>end<TAB>label")
        return try TimeListReader.map(times, format: .audacity, url: url, options: options)
    }
}

extension InterchangeFormat {
    /// Audacity label track (tab-separated `start end label`, exported/imported by Audacity).
    public static let audacity = InterchangeFormat(AudacityLabelFormat())
}
