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

/**
 * Where each beat of `map` sits in its bar, as the preview counts it: a tempo segment's anchor is a
 * downbeat; without beatsPerBar nothing is known (null).
 */
export function barPositions(map) {
  const segments = (map.tempo || []).slice().sort((a, b) => a.time - b.time);
  const out = [];
  let bar = 0, previous = 0;
  for (const t of map.beats) {
    let index = 0;
    for (let i = 0; i < segments.length; i++) if (segments[i].time <= t) index = i;
    const segment = segments[index];
    if (!segment || !segment.beatsPerBar) { out.push(null); continue; }
    const length = 60 / segment.bpm;
    const k = Math.round((t - segment.time) / length);
    const n = segment.beatsPerBar;
    const beat = ((k % n) + n) % n + 1;
    if (beat === 1 || beat <= previous) bar += 1;
    previous = beat;
    out.push({ bar, beat, bpm: segment.bpm, perBar: n });
  }
  return out;
}
