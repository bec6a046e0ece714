// SPDX-License-Identifier: GPL-3.0-or-later

/// Facts about this library.
public enum BeatMapKitInfo {
    /// The toolkit's version.
    public static let version = "0.1.0"
}
