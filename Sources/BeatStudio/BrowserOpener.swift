// SPDX-License-Identifier: GPL-3.0-or-later

import Foundation

/// Opens a URL in the desktop's browser, quietly, and never fails: where no browser can be started it
/// only says so.
public enum BrowserOpener {
    /// Asks `open` (macOS) or `xdg-open` (elsewhere, in a desktop session: `DISPLAY` or `WAYLAND_DISPLAY`
    /// set) to open `url`; whether the opener could be started (not whether a browser appeared). Its
    /// output is discarded.
    @discardableResult
    public static func open(_ url: String) -> Bool {
        #if os(macOS)
            let candidates = ["/usr/bin/open"]
        #else
            // Without a desktop session (over SSH, in CI) xdg-open would fall back to a text browser.
            let environment = ProcessInfo.processInfo.environment
            guard environment["DISPLAY"] != nil || environment["WAYLAND_DISPLAY"] != nil else { return false }
            let path = environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
            let candidates = path.split(separator: ":").map { "\($0)/xdg-open" }
        #endif
        guard let tool = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            return false
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = [url]
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        do { try process.run() } catch { return false }
        return true
    }
}
