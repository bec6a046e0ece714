// SPDX-License-Identifier: GPL-3.0-or-later

public import BeatAudio
public import BeatMapKit
public import Foundation

/// Saves a map moved by the preview's nudge through the editors' one save path: the nudge is
/// ``BeatMapEditor``'s, the write ``MapFileSaver``'s (validated first, the previous file kept as a
/// backup, written atomically).
public struct MapSaver: Sendable {
    private var saver: MapFileSaver

    /// The map file.
    public var mapURL: URL { saver.mapURL }
    /// The map as it was loaded (the nudge is relative to it).
    public var original: BeatMap { saver.original }
    /// The validator used before saving.
    public var validator: Validator {
        get { saver.validator }
        set { saver.validator = newValue }
    }
    /// The backup made by this saver's first save, if any.
    public var backupURL: URL? { saver.backupURL }

    /// A saver for `original`, read from `mapURL`.
    public init(
        mapURL: URL, original: BeatMap, validator: Validator = Validator(audioInspector: SndfileAudioInspector())
    ) {
        saver = MapFileSaver(mapURL: mapURL, original: original, validator: validator)
    }

    /// `map` with every beat and tempo anchor moved by `offset` seconds (`BeatMapEditor.nudged(_:by:)`:
    /// beats moved out of the track are dropped).
    public static func nudged(_ map: BeatMap, by offset: TimeInterval) -> BeatMap {
        BeatMapEditor.nudged(map, by: offset)
    }

    /// Validates `original` moved by `offset` (after every beat is moved half a beat later, with
    /// `halfBeatLater`: ``BeatMapEditor``'s shift, as `beatmap edit --shift-beats ½` makes it), keeps the
    /// current file as `NAME.bak` (or `NAME.bak.2`, …) on the first save, then replaces the map file
    /// atomically. The outcome counts the beats the nudge moved out of the track.
    public mutating func save(offset: TimeInterval, halfBeatLater: Bool = false) throws(SaveError) -> SaveOutcome {
        var map = original
        if halfBeatLater {
            do { map = try BeatMapEditor.apply(.shiftBeats(fraction: 0.5), to: map).map } catch {
                throw .invalid(path: mapURL.path, problems: [error.localizedDescription])
            }
        }
        let nudged = Self.nudged(map, by: offset)
        var outcome = try saver.save(nudged, offset: offset)
        outcome.droppedBeats = map.beats.count - nudged.beats.count
        return outcome
    }

    /// Validates `edited` (an edit of `original`; `offset` is the nudge it includes, for the outcome) and
    /// saves it as ``save(offset:)`` does.
    public mutating func save(_ edited: BeatMap, offset: TimeInterval = 0) throws(SaveError) -> SaveOutcome {
        try saver.save(edited, offset: offset)
    }
}
