#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""A cymbal feature for the 4/4 bar template (session 96: a reading on the train split).

A crash cymbal marks the first downbeat of a phrase or section in most popular music: it is struck
with the kick on beat 1 and rings on for a bar or more. None of the bar estimate's features hears it
(docs/bars.md: the kick, the bass, the harmony's change over one and two beats). This script asks,
before any Swift is written, whether the high band at each beat would choose better bar phases:

  features   for every song `bars.py features` has read (same beats, same songs), the audio at
             22.05 kHz (scipy's polyphase resampler; a measurement, not the analysis), through a
             second-order Butterworth high-pass at 5 kHz, its mean square every 256 samples (the
             analysis's hop), in log. Per beat of period P (its span to the next beat):
               `hirise`  the mean log level over [t + 0.1 P, t + 0.6 P] less that over
                         [t − 0.5 P, t − 0.1 P]: a cymbal struck on the beat;
               `hitail`  the mean log level over the second half of the span: one still ringing
                         when a closed hi-hat or a snare has died away.
             Standardised as BarFeatures does (floor 0.1, as the bass's log level), cached in
             tools/learned/out/cymbals/.
  compare    chroma.py's comparison (`bars.py fit`'s table, out of fold in the pool) for the template
             with and without the columns, and the likelihoods with and without them.
  onsets     where the song's strongest `hirise` beats (z ≥ 2.5) fall: the share on the truth's
             downbeats, against the 1 in 4 of a feature that knows nothing, per train group
             (the songs `bars.py fit` reads: in 4/4, the map's beats right).

  tools/learned/out/venv/bin/python3 tools/learned/cymbals.py features [--jobs 2]
  tools/learned/out/venv/bin/python3 tools/learned/cymbals.py compare [--penalty 10]
  tools/learned/out/venv/bin/python3 tools/learned/cymbals.py onsets
"""
import json
import os
import sys

import numpy as np
from scipy.signal import butter, sosfilt

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bars  # noqa: E402
import chroma  # noqa: E402

OUT = os.path.join(bars.ROOT, 'tools', 'learned', 'out', 'cymbals')
RATE = chroma.RATE
HOP = 256
CUTOFF = 5000.0
BASE = 'kick,bass,harmony1,harmony2'
SETS = [  # (template columns, likelihood columns)
    (BASE, BASE),
    (BASE + ',hirise', BASE),
    (BASE + ',hirise', BASE + ',hirise'),
    (BASE + ',hitail', BASE),
    (BASE + ',hirise,hitail', BASE),
    (BASE + ',hirise,hitail', BASE + ',hirise,hitail'),
]


def levels(signal):
    """The high band's log mean square per hop, and the hops' centre times."""
    band = sosfilt(butter(2, CUTOFF, 'highpass', fs=RATE, output='sos'), signal)
    count = len(band) // HOP
    power = (band[:count * HOP].reshape(count, HOP) ** 2).mean(1)
    loud = np.percentile(power[power > 0], 95) if (power > 0).any() else 1.0
    return (np.arange(count) + 0.5) * HOP / RATE, np.log(np.maximum(power, loud * 1e-6) / loud)


def span_mean(times, values, starts, ends):
    """The mean of `values` over the hops centred in each [start, end), at least one hop."""
    sums = np.concatenate([[0.0], np.cumsum(values)])
    low = np.clip(np.searchsorted(times, starts), 0, len(values) - 1)
    high = np.maximum(low + 1, np.clip(np.searchsorted(times, ends), 0, len(values)))
    return (sums[high] - sums[low]) / (high - low)


def columns_at(audio, beats):
    """The raw (unstandardised) `hirise` and `hitail` of `beats` (seconds) in the WAV file `audio`."""
    times, values = levels(chroma.mono(audio, np.float64))
    period = np.diff(beats)
    period = np.append(period, np.median(period))
    after = span_mean(times, values, beats + 0.1 * period, beats + 0.6 * period)
    before = span_mean(times, values, beats - 0.5 * period, beats - 0.1 * period)
    tail = span_mean(times, values, beats + 0.5 * period, beats + period)
    return {'hirise': after - before, 'hitail': tail}


def features(args):
    chroma.cache_columns(OUT, columns_at, 0.1, args.jobs)


def compare(args):
    chroma.compare_columns(OUT, SETS, args.penalty)


def strong_share(folder, column, threshold=2.5):
    """Per train group, where each song's values of `column` (cached per song under `folder`) reach
    `threshold`: how many such beats, and the share of them on the truth's downbeats (±70 ms). The
    songs `bars.py fit` reads: in 4/4, the map's beats right."""
    counts = {}
    usable = {r['key'] for r in bars.songs(bars.TRAIN + ('composed-odd',))}
    for key, _, base, group, _ in bars.tracks():
        path = os.path.join(folder, key + '.json')
        if key not in usable or not os.path.exists(path):
            continue
        beats = np.array(json.load(open(bars.cache_path(key)))['beats'])
        downbeats = bars.times(base + '.downbeats')
        strong = beats[np.array(json.load(open(path))[column]) >= threshold]
        on = sum(np.min(np.abs(downbeats - t)) <= 0.07 for t in strong)
        songs, events, hits = counts.get(group, (0, 0, 0))
        counts[group] = (songs + 1, events + len(strong), hits + on)
    print(f"{'group':<22}{'songs':>6}{'strong beats':>14}{'on downbeats':>14}")
    for group, (songs, events, hits) in sorted(counts.items()):
        print(f'{group:<22}{songs:>6}{events:>14}{100 * hits / max(events, 1):>13.1f}%')


def onsets(args):
    strong_share(OUT, 'hirise')


def main():
    chroma.command_line(__doc__, features, compare, onsets=onsets)


if __name__ == '__main__':
    main()
