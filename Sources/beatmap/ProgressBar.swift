// SPDX-License-Identifier: GPL-3.0-or-later

import BeatAnalysis
import Foundation

/// A progress display on standard error (used only when it is a terminal): one line per running file
/// and an overall line with an ETA, redrawn at most ten times a second.
///
/// `@unchecked Sendable` is safe here: every stored property is read and written only while `lock` is
/// held, and the analysis tasks reach the object only through ``update(_:)`` and ``finish()``.
final class ProgressBar: @unchecked Sendable {
    private let lock = NSLock()
    private let names: [String]
    private var fractions: [Double]
    private var running: [Int] = []
    private var done = 0
    private var failed = 0
    private let start = Date()
    private var lastDraw = Date.distantPast
    private var drawnLines = 0

    init(files: [String]) {
        names = files
        fractions = [Double](repeating: 0, count: files.count)
    }

    /// A progress bar for `files` when `enabled` and standard error is a terminal, else `nil`.
    static func onTerminal(files: [String], enabled: Bool) -> ProgressBar? {
        enabled && isatty(STDERR_FILENO) == 1 ? ProgressBar(files: files) : nil
    }

    func update(_ event: AnalysisProgress) {
        lock.lock()
        defer { lock.unlock() }
        switch event {
        case .started(let index):
            running.append(index)
        case .advanced(let index, let fraction):
            fractions[index] = fraction
        case .finished(let index, let succeeded):
            fractions[index] = 1
            running.removeAll { $0 == index }
            done += 1
            if !succeeded { failed += 1 }
        }
        let now = Date()
        if now.timeIntervalSince(lastDraw) >= 0.1 || done == names.count {
            lastDraw = now
            draw(now)
        }
    }

    /// Clears the display.
    func finish() {
        lock.lock()
        defer { lock.unlock() }
        var text = ""
        for _ in 0..<drawnLines { text += "\u{1B}[1A\u{1B}[2K" }
        drawnLines = 0
        FileHandle.standardError.write(Data(text.utf8))
    }

    private func bar(_ fraction: Double, width: Int = 24) -> String {
        let filled = Int((fraction * Double(width)).rounded(.down))
        return "[" + String(repeating: "#", count: max(0, min(width, filled)))
            + String(repeating: "-", count: max(0, width - filled)) + "]"
    }

    private func draw(_ now: Date) {
        var text = ""
        for _ in 0..<drawnLines { text += "\u{1B}[1A\u{1B}[2K" }
        var lines: [String] = []
        for index in running {
            lines.append(
                "  \(bar(fractions[index])) \(String(format: "%3.0f", fractions[index] * 100))% \(names[index])")
        }
        let total = fractions.reduce(0, +) / Double(max(1, names.count))
        let elapsed = now.timeIntervalSince(start)
        let eta = total > 0.01 ? elapsed * (1 - total) / total : 0
        let failures = failed > 0 ? ", \(failed) failed" : ""
        lines.append(
            "\(bar(total)) \(done)/\(names.count) files\(failures), ETA \(String(format: "%.0f", eta)) s")
        text += lines.joined(separator: "\n") + "\n"
        drawnLines = lines.count
        FileHandle.standardError.write(Data(text.utf8))
    }
}
