#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Where sections start, as evidence of the bar phase (session 96: a reading on the train split).

A verse, a chorus, a break or a new instrument starts on a bar line in nearly all composed music,
most often on the first bar of a four- or eight-bar phrase; the bar estimate's features look one or
two beats either side of a beat, and level rises alone were tried and left out (docs/bars.md). This
script asks, before any Swift is written, whether the sound's change over whole bars, in timbre and
in harmony, would choose better bar phases:

  features   for every song `bars.py features` has read (same beats, same songs), the audio at
             22.05 kHz (scipy's polyphase resampler), 2048-point Hann frames every 512 samples: the
             log energy of 16 log-spaced bands from 60 Hz to 10 kHz (timbre) and chroma.py's treble
             pitch-class profile (harmony), each averaged over every beat's span. Per beat b and
             window W beats, the Euclidean distance between the mean timbre of beats b…b+W−1 and of
             b−W…b−1 (`timbre4`, `timbre8`), and 1 − the correlation of the summed profiles over
             the same windows (`harmony8`). Standardised as BarFeatures does, cached in
             tools/learned/out/sections/.
  compare    chroma.py's comparison (`bars.py fit`'s table, out of fold in the pool) for the template
             with and without the columns.
  onsets     where each song's strongest changes (z ≥ 2.5) fall: the share on the truth's downbeats,
             against the 1 in 4 of a feature that knows nothing, per train group.

  tools/learned/out/venv/bin/python3 tools/learned/sections.py features [--jobs 2]
  tools/learned/out/venv/bin/python3 tools/learned/sections.py compare [--penalty 10]
  tools/learned/out/venv/bin/python3 tools/learned/sections.py onsets
"""
import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bars  # noqa: E402
import chroma  # noqa: E402
import cymbals  # noqa: E402

OUT = os.path.join(bars.ROOT, 'tools', 'learned', 'out', 'sections')
RATE, SIZE, HOP = chroma.RATE, 2048, 512
BASE = cymbals.BASE
SETS = [(BASE, BASE), (BASE + ',timbre4', BASE), (BASE + ',timbre8', BASE), (BASE + ',harmony8', BASE),
        (BASE + ',timbre4,timbre8,harmony8', BASE)]
COLUMNS = ('timbre4', 'timbre8', 'harmony8')


def bands(signal):
    """(frame centre times, log energy of 16 log-spaced bands per frame)."""
    window = np.hanning(SIZE).astype(np.float32)
    count = max(0, 1 + (len(signal) - SIZE) // HOP)
    frequencies = np.arange(SIZE // 2 + 1) * RATE / SIZE
    edges = np.geomspace(60, 10000, 17)
    member = np.digitize(frequencies, edges) - 1
    fold = np.zeros((len(frequencies), 16))
    inside = (member >= 0) & (member < 16)
    fold[np.where(inside)[0], member[inside]] = 1
    result = np.zeros((count, 16))
    for start in range(0, count, 512):
        frames = np.arange(start, min(count, start + 512))
        block = np.stack([signal[f * HOP:f * HOP + SIZE] for f in frames]) * window
        result[frames] = (np.abs(np.fft.rfft(block, axis=1)) ** 2) @ fold
    return (np.arange(count) * HOP + SIZE / 2) / RATE, np.log(result + 1e-10)


def per_beat(times, values, beats):
    """The mean of `values` (frames × k) over each beat's span."""
    period = float(np.median(np.diff(beats)))
    ends = np.append(beats[1:], beats[-1] + period)
    return np.stack([cymbals.span_mean(times, values[:, k], beats, ends) for k in range(values.shape[1])], 1)


def distance(spans, width):
    result = np.zeros(len(spans))
    for i in range(width, len(spans) - width + 1):
        result[i] = np.linalg.norm(spans[i:i + width].mean(0) - spans[i - width:i].mean(0))
    return result


def columns(audio, beats):
    """This script's three columns (unstandardised) at `beats` in the WAV file `audio`."""
    signal = chroma.mono(audio)
    timbre = per_beat(*bands(signal), beats)
    harmony = chroma.per_beat(*chroma.profile(signal, 4096, 150, 2500), beats)
    return {'timbre4': distance(timbre, 4), 'timbre8': distance(timbre, 8), 'harmony8': chroma.change(harmony, 8)}


def features(args):
    chroma.cache_columns(OUT, columns, 0.05, args.jobs)


def compare(args):
    chroma.compare_columns(OUT, SETS, args.penalty)


def onsets(args):
    for column in COLUMNS:
        print(column)
        cymbals.strong_share(OUT, column)


def main():
    chroma.command_line(__doc__, features, compare, onsets=onsets)


if __name__ == '__main__':
    main()
