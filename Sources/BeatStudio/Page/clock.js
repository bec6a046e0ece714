// SPDX-License-Identifier: GPL-3.0-or-later
// The clock model of BeatMapKit's PlaybackClock, on any monotonic time source (here the AudioContext's
// clock): elapsed = (now − playbackStartTime) × rate. Pausing saves the position; resuming, seeking and
// synchronising recalibrate playbackStartTime = time − savedPosition / rate, so a pause never shifts
// later beats.
export class PlaybackClock {
  constructor(now) {
    this.now = now;
    this.playbackStartTime = now();
    this.savedPosition = 0;
    this.isPlaying = false;
    this.rate = 1;
  }

  get elapsed() { return this.positionAt(this.now()); }

  positionAt(time) { return this.isPlaying ? (time - this.playbackStartTime) * this.rate : this.savedPosition; }

  /** The source time at which track position `position` plays (while playing). */
  timeOf(position) { return this.playbackStartTime + position / this.rate; }

  start(position = 0) { this.savedPosition = position; this.isPlaying = true; this.recalibrate(this.now()); }

  pause() {
    if (!this.isPlaying) return;
    this.savedPosition = this.positionAt(this.now());
    this.isPlaying = false;
  }

  resume() {
    if (this.isPlaying) return;
    this.isPlaying = true;
    this.recalibrate(this.now());
  }

  seek(position) { this.savedPosition = position; if (this.isPlaying) this.recalibrate(this.now()); }

  /** The sample at track position `position` plays at source time `time`. */
  synchronize(position, time) { this.savedPosition = position; if (this.isPlaying) this.recalibrate(time); }

  recalibrate(time) { this.playbackStartTime = time - this.savedPosition / this.rate; }
}

/** The index of the first of the ascending `times` at or after `t`. */
export function firstAtOrAfter(times, t) {
  let low = 0, high = times.length;
  while (low < high) { const mid = (low + high) >> 1; if (times[mid] < t) low = mid + 1; else high = mid; }
  return low;
}

/** The map's tempo segments with a finite time and a positive finite tempo, sorted by time. */
function usableSegments(map) {
  return (map.tempo || [])
    .filter((s) => Number.isFinite(s.time) && Number.isFinite(s.bpm) && s.bpm > 0)
    .sort((a, b) => a.time - b.time);
}

/** The index of the last of `segments` (sorted by time) at or before `t`, or 0. */
function segmentIndexAt(segments, t) {
  let low = 0, high = segments.length;
  while (low < high) { const mid = (low + high) >> 1; if (segments[mid].time <= t) low = mid + 1; else high = mid; }
  return Math.max(0, low - 1);
}

/**
 * Where each beat of `map` sits in its bar, as the library counts it (BarPositions): a segment with
 * beatsPerBar has a downbeat at its anchor and every beatsPerBar-th beat of its grid from there; the
 * beats of a segment without it that follows one with it count on from the last position (a map that
 * follows the music gives beatsPerBar on some of its one-beat segments only); before any segment with
 * beatsPerBar, nothing is known (null). Each entry: {bar, beat, bpm, perBar}; bars are counted from 1 at
 * the first downbeat (a pickup's beats are in bar 0).
 */
export function barPositions(map) {
  const segments = usableSegments(map);
  const out = [];
  let bar = 0, last = null;
  for (const t of map.beats) {
    const segment = segments.length && Number.isFinite(t) ? segments[segmentIndexAt(segments, t)] : null;
    let beat = null, perBar = null;
    if (segment && segment.beatsPerBar > 0) {
      const k = Math.round((t - segment.time) / (60 / segment.bpm));
      perBar = segment.beatsPerBar;
      beat = ((k % perBar) + perBar) % perBar + 1;
    } else if (segment && segment.beatsPerBar == null && last) {
      perBar = last.perBar;
      beat = last.beat % perBar + 1;
    }
    if (beat === null) { out.push(null); continue; }
    if (beat === 1 || beat <= (last ? last.beat : 0)) bar += 1;
    last = { beat, perBar };
    out.push({ bar, beat, bpm: segment.bpm, perBar });
  }
  return out;
}

/** A segment holding fewer of the map's beats than this is short (as the library's TempoStretch). */
export const SHORT_SEGMENT_BEATS = 4;

/**
 * The map's tempo as a reader takes it in (the library's TempoStretch): each steady segment a stretch
 * of its own, and each run of two or more short segments (beats followed through the music) one moving
 * stretch. Each: {at, to, segments, moving, low, high, meters}; `at` is its first segment's time, `to`
 * the next stretch's (Infinity for the last).
 */
export function tempoStretches(map) {
  const segments = usableSegments(map);
  const counts = segments.map(() => 0);
  if (segments.length) for (const t of map.beats) if (Number.isFinite(t)) counts[segmentIndexAt(segments, t)] += 1;
  const out = [];
  for (let index = 0; index < segments.length;) {
    let last = index;
    if (counts[index] < SHORT_SEGMENT_BEATS) {
      while (last + 1 < segments.length && counts[last + 1] < SHORT_SEGMENT_BEATS) last += 1;
    }
    const members = segments.slice(index, last + 1);
    const bpms = members.map((s) => s.bpm);
    const meters = [];
    for (const s of members) if (s.beatsPerBar && !meters.includes(s.beatsPerBar)) meters.push(s.beatsPerBar);
    out.push({
      at: members[0].time, to: last + 1 < segments.length ? segments[last + 1].time : Infinity,
      segments: members, moving: members.length > 1, low: Math.min(...bpms), high: Math.max(...bpms), meters,
    });
    index = last + 1;
  }
  return out;
}

/** A tempo for display: at most two decimals, no trailing zeros. */
export function bpmText(bpm) { return String(Math.round(bpm * 100) / 100); }

/** A stretch's label: its tempo, or its range and segment count when it moves, and its meters. */
export function stretchLabel(stretch) {
  const meter = stretch.meters.length ? ", " + stretch.meters.map((n) => `${n} per bar`).join(", ") : "";
  if (!stretch.moving) return `${bpmText(stretch.segments[0].bpm)} BPM${meter}`;
  return `${bpmText(stretch.low)}–${bpmText(stretch.high)} BPM over ${stretch.segments.length} segments${meter}`;
}
