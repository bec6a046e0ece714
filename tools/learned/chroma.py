#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""A finer pitch-class profile for the 4/4 bar template (session 36: measured, not used).

docs/bars.md named "a stronger harmonic feature (a real chroma at a finer frequency resolution, the
bass note's pitch)" as the bar phase's next step. The analysis's own profile (ChromaProfile.swift) adds
the onset detector's 43 Hz bins from 300 Hz up, so a semitone is resolved only above about 700 Hz.
This script asks, before any Swift is written, whether a finer one would choose better bar phases:

  features   for every song `bars.py features` has read (same beats, same songs), the audio at
             22.05 kHz (scipy's polyphase resampler; this is a measurement, not the analysis) and two
             profiles: treble, 150 Hz to 2.5 kHz from 4096-point Hann frames (5.4 Hz bins), and bass,
             50 to 200 Hz from 8192-point frames (2.7 Hz bins), both every 512 samples (23 ms) and
             log-compressed. Per beat, over the first half of its span (the note struck on the beat;
             a chord pushed ahead of the next bar falls in the second half), the change of each
             profile over one and two beats: 1 − the correlation of the sums after the beat with
             those before it, as BarFeatures reads `harmony1` and `harmony2`. Columns `fine1`,
             `fine2` (treble) and `bass1`, `bass2` (bass), standardised as BarFeatures does, cached in
             tools/learned/out/chroma/.
  compare    `bars.py fit`'s table (out of fold in the pool, the whole pool's fit on the odd composed
             songs) for the template with each set of columns, and the likelihoods' phase read from
             the analysis's harmony columns or from the finer ones. Train groups only.

  tools/learned/out/venv/bin/python3 tools/learned/chroma.py features [--jobs 2]
  tools/learned/out/venv/bin/python3 tools/learned/chroma.py compare [--penalty 10]
"""
import argparse
import json
import os
import sys
from concurrent.futures import ProcessPoolExecutor
from functools import partial

import numpy as np
from scipy.signal import resample_poly

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bars  # noqa: E402

sys.path.insert(0, os.path.join(bars.ROOT, 'tools', 'corpus'))
import corpuslib as cl  # noqa: E402

OUT = os.path.join(bars.ROOT, 'tools', 'learned', 'out', 'chroma')
RATE = 22050
HOP = 512
FIRST_PART = 0.5   # of each beat's span, read for its profile
SETS = [  # (template columns, likelihood columns)
    ('kick,bass,harmony1,harmony2', 'kick,bass,harmony1,harmony2'),
    ('kick,bass,fine1,fine2', 'kick,bass,harmony1,harmony2'),
    ('kick,bass,fine1,fine2', 'kick,bass,fine1,fine2'),
    ('kick,bass,harmony1,harmony2,fine1,fine2', 'kick,bass,harmony1,harmony2'),
    ('kick,bass,fine1,fine2,bass1,bass2', 'kick,bass,fine1,fine2'),
    ('kick,bass,harmony1,harmony2,bass1,bass2', 'kick,bass,harmony1,harmony2'),
]


def profile(signal, size, low, high):
    """(frame centre times, log-compressed 12-class profile per frame) from `size`-point Hann frames."""
    window = np.hanning(size).astype(np.float32)
    count = max(0, 1 + (len(signal) - size) // HOP)
    frequencies = np.arange(size // 2 + 1) * RATE / size
    bins = np.where((frequencies >= low) & (frequencies <= high))[0]
    classes = np.round(69 + 12 * np.log2(frequencies[bins] / 440)).astype(int) % 12
    fold = np.zeros((len(bins), 12))
    fold[np.arange(len(bins)), classes] = 1
    result = np.zeros((count, 12))
    for start in range(0, count, 512):
        frames = np.arange(start, min(count, start + 512))
        block = np.stack([signal[f * HOP:f * HOP + size] for f in frames]) * window
        result[frames] = np.abs(np.fft.rfft(block, axis=1))[:, bins] @ fold
    result = np.log1p(100 * result / (np.percentile(result, 99) + 1e-12))
    return (np.arange(count) * HOP + size / 2) / RATE, result


def per_beat(times, values, beats):
    """The profile summed over the frames centred in the first FIRST_PART of each beat's span."""
    period = float(np.median(np.diff(beats)))
    ends = beats + FIRST_PART * (np.append(beats[1:], beats[-1] + period) - beats)
    low, high = np.searchsorted(times, beats), np.searchsorted(times, ends)
    sums = np.vstack([np.zeros(12), np.cumsum(values, axis=0)])
    result = np.zeros((len(beats), 12))
    for i in range(len(beats)):
        h = min(len(values), max(high[i], low[i] + 1))
        result[i] = sums[h] - sums[min(low[i], max(0, h - 1))]
    return result


def change(spans, width):
    """1 − the correlation of the profiles summed over `width` beats after each beat and before it."""
    result = np.zeros(len(spans))
    for i in range(1, len(spans)):
        after = spans[i:i + width].sum(0)
        before = spans[max(0, i - width):i].sum(0)
        after, before = after - after.mean(), before - before.mean()
        norm = np.sqrt((after @ after) * (before @ before))
        result[i] = 0 if norm <= 0 else 1 - (after @ before) / norm
    return result


def standardised(values, floor=0.02):
    """BarFeatures.interior then BarFeatures.standardised."""
    values = np.asarray(values, float).copy()
    if len(values) >= 3:
        values[0] = values[-1] = values[1:-1].mean()
    deviation = np.sqrt(values.var() + floor * floor)
    return np.clip((values - values.mean()) / deviation, -4, 4) if deviation > 1e-9 else values * 0


def mono(audio, dtype=np.float32):
    """The WAV file `audio` mixed to mono at RATE (scipy's polyphase resampler)."""
    rate, signal = cl.read_wav(audio)
    signal = signal.mean(1).astype(dtype)
    return signal if rate == RATE else resample_poly(signal, RATE, rate).astype(dtype)


def columns(audio, beats):
    """This script's four columns (unstandardised) at `beats` in the WAV file `audio`."""
    signal = mono(audio)
    treble = per_beat(*profile(signal, 4096, 150, 2500), beats)
    bass = per_beat(*profile(signal, 8192, 50, 200), beats)
    return {'fine1': change(treble, 1), 'fine2': change(treble, 2),
            'bass1': change(bass, 1), 'bass2': change(bass, 2)}


def cache_track(track, folder, columns_of, floor):
    """`columns_of(audio, beats)` at the beats `bars.py features` read for `track`, standardised with
    `floor`, written to `folder` (the track's key + .json); the key, or None where there was nothing to
    do (already there, or no usable beats)."""
    key, audio = track[0], track[1]
    out = os.path.join(folder, key + '.json')
    if os.path.exists(out) or not os.path.exists(bars.cache_path(key)):
        return None
    beats = np.array(json.load(open(bars.cache_path(key)))['beats'])
    if len(beats) < 2 * bars.METER:
        return None
    values = columns_of(audio, beats)
    os.makedirs(os.path.dirname(out), exist_ok=True)
    with open(out + '.tmp', 'w') as fh:
        json.dump({name: standardised(v, floor).tolist() for name, v in values.items()}, fh)
    os.replace(out + '.tmp', out)
    return key


def cache_columns(folder, columns_of, floor, jobs):
    """`cache_track` for every song `bars.py features` has read, `jobs` at a time."""
    with ProcessPoolExecutor(jobs) as pool:
        task = partial(cache_track, folder=folder, columns_of=columns_of, floor=floor)
        done = [k for k in pool.map(task, bars.tracks()) if k]
    print(f'{len(done)} songs read into {folder}')


def features(args):
    cache_columns(OUT, columns, 0.02, args.jobs)


def compare_columns(folder, sets, penalty):
    """`bars.py fit`'s table (out of fold in the pool, the whole pool's fit on the odd composed songs)
    for each (template columns, likelihood columns) of `sets`, the columns cached per song under
    `folder` (as `features` writes them here) joined to `bars.py features`' own. Train groups only."""
    groups = bars.POOL + ('composed-odd',)
    load = json.load

    def with_columns(fh):   # bars.songs reads each song's features with json.load
        table = load(fh)
        name = getattr(fh, 'name', '')
        if name.startswith(bars.OUT) and 'features' in table:
            extra = os.path.join(folder, os.path.relpath(name, bars.OUT))
            table['features'] = {**table['features'], **load(open(extra))} if os.path.exists(extra) else {}
        return table
    json.load = with_columns
    hand_read, names_before = bars.hand_read, bars.NAMES
    try:
        for template, likelihoods in sets:
            names, kept = template.split(','), likelihoods.split(',')
            bars.NAMES = names
            bars.hand_read = lambda values: hand_read({k: v for k, v in values.items() if k in kept})
            rows = [r for r in bars.songs(groups) if len(r['means']) == len(names)]
            pool = [r for r in rows if r['group'] in bars.POOL]
            fold = {s: i % bars.FOLDS for i, s in enumerate(sorted({r['song'] for r in pool}))}
            models = [bars.fit_weights([r for r in pool if fold[r['song']] != k], penalty)
                      for k in range(bars.FOLDS)]
            whole = bars.fit_weights(pool, penalty)
            print(f'\ntemplate {template}; likelihoods {likelihoods}; penalty {penalty:g}')
            bars.table(rows, lambda r: bars.choose(r, models[fold[r['song']]] if r['song'] in fold else whole),
                       groups)
    finally:
        json.load, bars.hand_read, bars.NAMES = load, hand_read, names_before


def compare(args):
    compare_columns(OUT, SETS, args.penalty)


def command_line(doc, features, compare, **more):
    """Runs the command the arguments name: `features [--jobs N]`, `compare [--penalty P]`, or one of
    `more` (name → function, no options); each is called with the parsed arguments."""
    parser = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest='command', required=True)
    sub.add_parser('features').add_argument('--jobs', type=int, default=2)
    sub.add_parser('compare').add_argument('--penalty', type=float, default=10.0)
    for name in more:
        sub.add_parser(name)
    args = parser.parse_args()
    {'features': features, 'compare': compare, **more}[args.command](args)


def main():
    command_line(__doc__, features, compare)


if __name__ == '__main__':
    main()
