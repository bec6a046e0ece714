// SPDX-License-Identifier: GPL-3.0-or-later

public import Foundation

/// How far from a beat a tap still counts, in ± seconds.
public struct HitWindow: Sendable, Equatable {
    /// The half-width of the window in seconds.
    public var seconds: TimeInterval

    /// A window of ± `seconds`.
    public init(seconds: TimeInterval) { self.seconds = seconds }

    /// The default window: ±150 ms.
    public static let standard = HitWindow(seconds: 0.150)
    /// The assist-mode window: ±300 ms.
    public static let assist = HitWindow(seconds: 0.300)
}

/// The verdict on one tap.
public struct TapJudgement: Sendable, Equatable {
    /// Index (into ``HitJudge/beats``) of the beat nearest to the tap, or `nil` when there are none.
    public var beatIndex: Int?
    /// `tap − beat` in seconds: negative when early, positive when late; `nil` without beats.
    public var error: TimeInterval?
    /// Whether the tap lies within the window of that beat.
    public var isHit: Bool

    /// A verdict.
    public init(beatIndex: Int?, error: TimeInterval?, isHit: Bool) {
        self.beatIndex = beatIndex
        self.error = error
        self.isHit = isHit
    }
}

/// Beat lookup over a sorted list of beat times (binary search, O(log n)) and tap judging against
/// a hit window.
public struct HitJudge: Sendable, Equatable {
    /// The finite beat times, sorted ascending.
    public let beats: [TimeInterval]
    /// The window a tap must fall in.
    public var window: HitWindow

    /// A judge over `beats` (sorted here; non-finite values are dropped) with `window`.
    public init(beats: [TimeInterval], window: HitWindow = .standard) {
        self.beats = beats.filter(\.isFinite).sorted()
        self.window = window
    }

    /// A judge over the beats of `map`.
    public init(map: BeatMap, window: HitWindow = .standard) {
        self.init(beats: map.beats, window: window)
    }

    /// The number of beats earlier than `t` (the index of the first beat at or after `t`).
    public func insertionIndex(of t: TimeInterval) -> Int {
        var low = 0
        var high = beats.count
        while low < high {
            let mid = low + (high - low) / 2
            if beats[mid] < t { low = mid + 1 } else { high = mid }
        }
        return low
    }

    /// Index of the first beat at or after `t`, or `nil` when every beat is earlier.
    public func nextBeatIndex(atOrAfter t: TimeInterval) -> Int? {
        let index = insertionIndex(of: t)
        return index < beats.count ? index : nil
    }

    /// Index of the last beat at or before `t`, or `nil` when every beat is later.
    public func lastBeatIndex(atOrBefore t: TimeInterval) -> Int? {
        var low = 0
        var high = beats.count
        while low < high {
            let mid = low + (high - low) / 2
            if beats[mid] <= t { low = mid + 1 } else { high = mid }
        }
        return low > 0 ? low - 1 : nil
    }

    /// Index of the beat nearest to `t` (the earlier one on a tie), or `nil` without beats.
    public func nearestBeatIndex(to t: TimeInterval) -> Int? {
        guard !beats.isEmpty, !t.isNaN else { return nil }
        let next = insertionIndex(of: t)
        if next == 0 { return 0 }
        if next == beats.count { return beats.count - 1 }
        return t - beats[next - 1] <= beats[next] - t ? next - 1 : next
    }

    /// Judges a tap at track time `t` against the nearest beat.
    public func judge(tapAt t: TimeInterval) -> TapJudgement {
        guard let index = nearestBeatIndex(to: t) else { return TapJudgement(beatIndex: nil, error: nil, isHit: false) }
        let error = t - beats[index]
        return TapJudgement(beatIndex: index, error: error, isHit: abs(error) <= window.seconds)
    }
}
