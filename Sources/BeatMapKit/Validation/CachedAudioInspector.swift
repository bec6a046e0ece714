// SPDX-License-Identifier: GPL-3.0-or-later

public import Foundation

/// An ``AudioInspector`` that asks `inspector` once per file and hash request, then answers from what it
/// kept. A map checked again and again against one audio file (the studio after every edit, a fix
/// checked before it is kept) has its audio's onsets (seconds of analysis for a long song) detected
/// once.
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
