// SPDX-License-Identifier: GPL-3.0-or-later

public import BeatMapKit
public import Foundation

/// An ``AudioInspector`` that asks `inspector` once per file and hash request, then answers from what it
/// kept: the studio validates the map after every edit, and its one audio file does not change while
/// it is open, so its onsets (seconds of analysis for a long song) are detected once.
///
/// `@unchecked Sendable` is safe: `facts` is only read or written while `lock` is held, and `inspector`
/// is `Sendable` and never replaced.
public final class CachedAudioInspector: AudioInspector, @unchecked Sendable {
    private let inspector: any AudioInspector
    private let lock = NSLock()
    private var facts: [String: AudioFacts] = [:]

    /// A cache in front of `inspector`.
    public init(_ inspector: any AudioInspector) {
        self.inspector = inspector
    }

    /// The facts of the audio at `url`, inspected on the first request for it (with or without the
    /// hash) and kept. A failed inspection is not kept: the next request tries again.
    public func inspect(_ url: URL, computeHash: Bool) throws -> AudioFacts {
        let key = (computeHash ? "hash:" : "") + url.standardizedFileURL.path
        if let known = lock.withLock({ facts[key] }) { return known }
        let inspected = try inspector.inspect(url, computeHash: computeHash)
        lock.withLock { facts[key] = inspected }
        return inspected
    }
}
