// SPDX-License-Identifier: GPL-3.0-or-later

public import Foundation

/// Walking a folder tree the way the command-line tool does for every command that takes folders.
public enum FileTree {
    /// The deepest folder nesting searched.
    public static let maximumDepth = 64

    /// Paths, relative to `folder` and sorted, of the files below it whose name satisfies `matches`.
    /// Hidden entries (names starting with `.`) are skipped, and links to folders are not followed, so
    /// a link cycle cannot loop.
    public static func relativePaths(under folder: URL, matching matches: (String) -> Bool) -> [String] {
        var found: [String] = []
        collect(folder, relative: "", depth: 0, matches: matches, into: &found)
        return found.sorted()
    }

    private static func collect(
        _ folder: URL, relative: String, depth: Int, matches: (String) -> Bool, into found: inout [String]
    ) {
        guard depth < maximumDepth, let entries = try? FileManager.default.contentsOfDirectory(atPath: folder.path)
        else { return }
        for name in entries where !name.hasPrefix(".") {
            let url = folder.appendingPathComponent(name)
            let path = relative.isEmpty ? name : relative + "/" + name
            guard let values = try? url.resourceValues(forKeys: [.isDirectoryKey, .isSymbolicLinkKey]) else { continue }
            if values.isDirectory == true {
                if values.isSymbolicLink != true {
                    collect(url, relative: path, depth: depth + 1, matches: matches, into: &found)
                }
            } else if matches(name) {
                found.append(path)
            }
        }
    }
}
