// SPDX-License-Identifier: GPL-3.0-or-later

import Foundation

/// A stretch of the song whose own tempo lies beyond the tracker's reach from the song's tempo.
struct TempoRegion: Sendable, Equatable {
    /// Where it lies (seconds).
    var span: ClosedRange<Double>
    /// Its beat period (seconds).
    var period: Double
}

// Tempo changes the tracker cannot reach. The tracker holds its tempo within 30 % of the song's
// (``GridFitter/trackBeats(novelty:peaks:period:span:range:regions:)``), which keeps the metric level
// but cannot follow a song that steps from 90 to 120 BPM or from 150 to 200: past the step it keeps to
// its range at another pulse (80 BPM for 120: every third eighth note), and half the map is wrong. So
// the tempo is also estimated window by window; where windows in a row agree on a tempo beyond the
// range, the song is tracked again with the tracker's range centred there, and the two trackings
// compete as the beat-time reading does: the beats that stand out more are kept, so long as a
// tracking across regions that replaces one grid finds a tempo change rather than beats to follow.
extension GridFitter {
    /// Length of the windows whose tempo is estimated on their own (seconds): some 30 beats at 120 BPM,
    /// as many as a tempo piece needs (``GridModelSelector/minimumPieceBeats``).
    static let regionWindow = 15.0
    /// Step between those windows (seconds).
    static let regionStep = 5.0
    /// How far (as a tempo ratio) a window's tempo must lie from the song's to start a region: 1.2,
    /// beyond which the tracker, whose range stops at ``GridFitter/trackerRange`` (1.3), rarely holds a tempo.
    static let regionDeparture = 1.2
    /// How closely (natural log, 4 %) the windows of one region agree.
    static let regionAgreement = 0.04

    /// `selected`, tracked again from `period` (the whole-song estimate, where the first tracking
    /// started: the level a first tracking half lost in another tempo was read at can be off) with the
    /// range centred on each region where the tempo leaves the tracker's reach
    /// (``tempoRegions(_:period:)``, ``trackAndSelect(from:_:regions:)``), when the new beats stand out
    /// more (``trackedScore(_:novelty:span:)``) and found a tempo change where the first tracking
    /// found one grid (``regionTrackingReplaces(_:with:)``); otherwise `nil`.
    func acrossTempoRegions(
        _ selected: TrackedSelection, from period: Double, _ context: TrackingContext
    ) -> TrackedSelection? {
        guard period > 0 else { return nil }
        let regions = tempoRegions(context, period: period)
        guard !regions.isEmpty else { return nil }
        guard let again = try? trackAndSelect(from: period, context, regions: regions),
            again.salience > selected.salience, Self.regionTrackingReplaces(selected.model, with: again.model)
        else { return nil }
        return again
    }

    /// Whether beats tracked with the range centred on the regions, modelled as `again`, may replace
    /// the first tracking's, modelled as `first` (when they also stand out more). A region is there to
    /// find a tempo change; where the first tracking's beats lie on one grid (the simplest model,
    /// chosen over following them) and the second's on none (they would be followed), the second
    /// tracking found no change, only a tracker that went elsewhere, and the one grid stands. Found on
    /// a game song (tools/bench/games, train) whose MP3 copy was followed at 73–80 BPM where its Ogg and
    /// FLAC copies, and madmom, have one grid at 80 BPM.
    static func regionTrackingReplaces(_ first: GridModel, with again: GridModel) -> Bool {
        if case .grid(let pieces) = first, pieces.count <= 1, again == .follow { return false }
        return true
    }

    /// Whether the beat-time reading's tracking (step 5), modelled as `again`, replaces the first
    /// tracking, modelled as `first`, whatever their salience says: where the first tracking's beats
    /// are followed (no grid explains them) and still are once repaired (`firstOnceRepaired`: step 5's
    /// repairs and the model chosen again on them, as the pipeline ends a followed tracking), and the
    /// new tracking's lie on one grid, as tracked or, where followed, once repaired the same way
    /// (`againOnceRepaired`), the music supports the simpler model at the level the beat-time reading
    /// heard. The converse of ``regionTrackingReplaces(_:with:)``, where one grid stands against a
    /// second tracking that would be followed. Found on two composed swing songs (train) tracked at
    /// half their 192 BPM and followed: one's beat-time tracking at 192 lay on one grid (151 of 194
    /// beats) and stood out a little less; the other's lay on one grid once repaired. A recorded rock
    /// song whose first tracking is one grid once repaired keeps it (its beat-time tracking at twice
    /// its tempo lay on one grid too, and stood out much less). The repairs are run only when asked.
    static func beatTimeTrackingReplaces(
        _ first: GridModel, with again: GridModel, firstOnceRepaired: () -> GridModel,
        againOnceRepaired: () -> GridModel
    ) -> Bool {
        guard first == .follow else { return false }
        let model = again == .follow ? againOnceRepaired() : again
        guard case .grid(let pieces) = model, pieces.count == 1 else { return false }
        return firstOnceRepaired() == .follow
    }

    /// Stretches whose own tempo lies over ``regionDeparture`` from `period`: the tempo of each window of
    /// ``regionWindow`` seconds (the whole-song estimate's autocorrelation comb and level rules,
    /// ``chooseLevel(_:novelty:matcher:span:lowBand:)``, without its least-squares refinement, which a
    /// region's tempo does not need; taken at the octave nearest `period` within the tempo limits, so
    /// that a window at 120 BPM in a 170 BPM song is not read at 240 over a limit of 200), where at
    /// least two windows in a row agree within ``regionAgreement``.
    /// A change needs the song's own tempo somewhere too, in two windows in a row: where no window
    /// agrees with it, the windows disagree with the whole-song estimate about the metric level, which
    /// is not a tempo change. Octaves are not regions either: a half-time section is not a tempo change.
    func tempoRegions(_ context: TrackingContext, period: Double) -> [TempoRegion] {
        let span = context.span
        guard span.upperBound - span.lowerBound >= 2 * Self.regionWindow else { return [] }
        var estimates: [(span: ClosedRange<Double>, period: Double?)] = []
        var atSongTempo = 0
        var longestAtSongTempo = 0
        var start = span.lowerBound
        while start + Self.regionWindow <= span.upperBound + Self.regionStep / 2 {
            let window = start...min(span.upperBound, start + Self.regionWindow)
            start += Self.regionStep
            guard
                let estimate = context.novelty.period(
                    in: window, minimumBPM: options.minimumBPM, maximumBPM: options.maximumBPM)
            else {
                atSongTempo = 0
                estimates.append((window, nil))
                continue
            }
            let phase = context.novelty.bestPhase(period: estimate.seconds, in: window)
            let own = chooseLevel(
                Grid(anchor: phase.anchor, period: estimate.seconds), novelty: context.novelty,
                matcher: context.matcher, span: window, lowBand: context.lowBand
            ).grid.period
            let nearest =
                [own, own * 2, own / 2].filter { levelTempoLimits.contains(60 / $0) }
                .min { abs(log($0 / period)) < abs(log($1 / period)) } ?? own
            if abs(log(nearest / period)) <= log(Self.regionDeparture) {
                atSongTempo += 1
                longestAtSongTempo = max(longestAtSongTempo, atSongTempo)
                estimates.append((window, nil))
            } else {
                atSongTempo = 0
                estimates.append((window, nearest))
            }
        }
        guard longestAtSongTempo >= 2 else { return [] }
        var regions: [TempoRegion] = []
        var index = 0
        while index < estimates.count {
            guard let first = estimates[index].period else {
                index += 1
                continue
            }
            var end = index + 1
            var periods = [first]
            while end < estimates.count, let next = estimates[end].period, abs(log(next / first)) < Self.regionAgreement
            {
                periods.append(next)
                end += 1
            }
            if periods.count >= 2 {
                periods.sort()
                regions.append(
                    TempoRegion(
                        span: estimates[index].span.lowerBound...estimates[end - 1].span.upperBound,
                        period: periods[periods.count / 2]))
            }
            index = end
        }
        return regions
    }

    /// The beat intervals (seconds) a beat at `time` may start: within `range` of the region's period
    /// well inside a region (over half a window from its edges), within `range` of `period` well
    /// outside every region, and either near a region's edge, where the tempo changes.
    static func allowedIntervals(
        at time: Double, period: Double, range: Double, regions: [TempoRegion]
    ) -> ClosedRange<Double> {
        var low = period / range
        var high = period * range
        let margin = regionWindow / 2
        for region in regions {
            let edges = (region.span.lowerBound - margin)...(region.span.upperBound + margin)
            guard edges.contains(time) else { continue }
            if time - region.span.lowerBound > margin, region.span.upperBound - time > margin {
                return (region.period / range)...(region.period * range)
            }
            low = min(low, region.period / range)
            high = max(high, region.period * range)
        }
        return low...high
    }
}
