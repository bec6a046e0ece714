#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""The drums as evidence for the beat tracker (session 61): how much more likely the learned kick and
snare detector's output is at a beat than elsewhere, measured on songs of the train split.

The tracker (Sources/BeatAnalysis/Tracking/BeatTracker.swift) scores each frame's "beat" states by a
log-likelihood ratio of the onset strength there. The detector's kick plus snare at the frame is a
second observation; its log-likelihood ratio is read off train songs with exact beat truth: the
detector's output binned, counted at the frames a tracker's beat states cover (the beat's frame and
the next interval/16) and at every other frame, and the log ratio of the two shares taken per bin
(with one pseudo-count per bin). Nothing is fitted per song.

  frames     runs `beatmap drum-frames` (a developer command, left out of its help) on each train
             song: the corpus's train midi, lmms, hydrogen and warped parts, Freedoom's train songs
             and the composed songs of even number. Cached in tools/learned/out/tracker_drums/.
  fit        prints the table per group and for all, and `--export` writes it to
             Sources/BeatAnalysis/Tracking/TrackerDrumEvidenceWeights.swift.

  tools/learned/out/venv/bin/python3 tools/learned/tracker_drums.py frames --beatmap .build/release/beatmap
  tools/learned/out/venv/bin/python3 tools/learned/tracker_drums.py fit [--export]
"""
import argparse
import json
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

import numpy as np

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..'))
OUT = os.path.join(ROOT, 'tools', 'learned', 'out', 'tracker_drums')
SONGS = os.path.join(ROOT, 'tools', 'learned', 'out', 'songs')
FREEDOOM = os.path.join(ROOT, 'corpus', 'freedoom')
SWIFT = os.path.join(ROOT, 'Sources', 'BeatAnalysis', 'Tracking', 'TrackerDrumEvidenceWeights.swift')
EDGES = [0.0, 0.02, 0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9]   # bins of min(1, kick + snare)
ONSET_EDGES = [0.0, 0.05, 0.1, 0.2, 0.35, 0.5, 0.75, 1.0]   # bins of the tracker's onset activation
BEAT_SHARE = 1.0 / 16.0   # BeatTracker.beatShare


def tracks():
    """(key, audio, beats file, group) of every train song used."""
    result = []
    manifest = json.load(open(os.path.join(ROOT, 'corpus', 'manifest.json')))
    for t in manifest['tracks']:
        if t['split'] == 'train' and t['part'] in ('midi', 'lmms', 'hydrogen', 'warped') and t.get('beats'):
            result.append(('corpus/' + t['path'][:-4], os.path.join(ROOT, 'corpus', t['path']),
                           os.path.join(ROOT, 'corpus', t['beats']), 'corpus-' + t['part']))
    if os.path.exists(os.path.join(FREEDOOM, 'index.json')):
        for t in json.load(open(os.path.join(FREEDOOM, 'index.json')))['songs']:
            if t['split'] == 'train':
                result.append(('freedoom/' + t['song'], os.path.join(FREEDOOM, t['path']),
                               os.path.join(FREEDOOM, t['beats']), 'freedoom'))
    if os.path.exists(os.path.join(SONGS, 'index.json')):
        for t in json.load(open(os.path.join(SONGS, 'index.json')))['songs']:
            name = os.path.basename(t['path'])[:-4]
            if int(name.split('-')[-1]) % 2 == 0:
                result.append(('songs/' + name, os.path.join(SONGS, name + '.wav'), os.path.join(SONGS, t['beats']),
                               'composed-even'))
    return result


def cache_path(key):
    return os.path.join(OUT, key + '.json')


def frames(args):
    todo = [t for t in tracks() if args.force or not os.path.exists(cache_path(t[0]))]

    def run(track):
        key, audio = track[0], track[1]
        out = subprocess.run([args.beatmap, 'drum-frames', audio], capture_output=True, text=True)
        if out.returncode != 0:
            return f'{key}: {out.stderr.strip()}'
        os.makedirs(os.path.dirname(cache_path(key)), exist_ok=True)
        with open(cache_path(key) + '.tmp', 'w') as fh:
            fh.write(out.stdout)
        os.replace(cache_path(key) + '.tmp', cache_path(key))
        return None

    with ThreadPoolExecutor(args.jobs) as pool:
        failures = [f for f in pool.map(run, todo) if f]
    for failure in failures:
        print('no frames:', failure, file=sys.stderr)
    print(f'{len(todo) - len(failures)} of {len(todo)} songs read into {OUT}')


def times(path):
    with open(path) as fh:
        return np.array([float(line.split()[0]) for line in fh if line.strip() and not line.startswith('#')])


def counts(track):
    """Per bin: frames in a beat's states, frames elsewhere (within the truth's span)."""
    key, _, beats_file, _ = track
    table = json.load(open(cache_path(key)))
    hop = table['frameDuration']
    drums = np.minimum(1.0, np.array(table['kicks']) + np.array(table['snares']))
    beats = times(beats_file)
    if len(beats) < 4 or len(drums) == 0:
        return None
    at_beat = np.zeros(len(drums), dtype=bool)
    for b, nxt in zip(beats[:-1], beats[1:]):
        first = int(round(b / hop))
        width = max(1, int(round((nxt - b) / hop * BEAT_SHARE)))
        at_beat[max(0, first):max(0, min(len(drums), first + width))] = True
    lo, hi = int(beats[0] / hop), min(len(drums), int(beats[-1] / hop))
    inside = np.zeros(len(drums), dtype=bool)
    inside[lo:hi] = True
    onset = activation(table, beats, len(drums))
    bins = np.digitize(onset, ONSET_EDGES[1:]) * len(EDGES) + np.digitize(drums, EDGES[1:])
    size = len(ONSET_EDGES) * len(EDGES)
    beat = np.bincount(bins[inside & at_beat], minlength=size)
    other = np.bincount(bins[inside & ~at_beat], minlength=size)
    return beat, other


def activation(table, beats, count):
    """The tracker's onset activation at the detector's frames: the envelope over the 90th percentile
    of its peaks' strengths within the truth's span (GridFitter.trackBeats, OnsetEnvelope.peaks),
    clipped to 1."""
    values = np.array(table['onsets'])
    hop = table['frameDuration']
    start = table['onsetStart']
    window = max(2, int(round(0.1 / hop)))
    floor = values.mean() * 0.3
    kernel = np.ones(2 * window + 1)
    sums = np.convolve(values, kernel, mode='same')
    widths = np.convolve(np.ones(len(values)), kernel, mode='same')
    means = sums / widths
    inner = np.arange(1, len(values) - 1)
    peak = inner[(values[inner] > values[inner - 1]) & (values[inner] >= values[inner + 1]) & (values[inner] > floor)
                 & (values[inner] > 1.5 * means[inner])]
    times_ = start + peak * hop
    strengths = values[peak][(times_ >= beats[0]) & (times_ <= beats[-1])]
    level = np.quantile(strengths, 0.9) if len(strengths) else 1.0
    # frame i of the detector is at i * hop; the envelope's hop j at start + j * hop.
    index = np.clip(np.round((np.arange(count) * hop - start) / hop).astype(int), 0, len(values) - 1)
    return np.minimum(1.0, values[index] / level)


def ratios(beat, other):
    """log P(drums bin | beat, onset bin) − log P(drums bin | other, onset bin), one row per onset bin."""
    beat = beat.reshape(len(ONSET_EDGES), len(EDGES)) + 1
    other = other.reshape(len(ONSET_EDGES), len(EDGES)) + 1
    return np.log(beat / beat.sum(axis=1, keepdims=True)) - np.log(other / other.sum(axis=1, keepdims=True))


def fit(args):
    groups = {}
    for track in tracks():
        if not os.path.exists(cache_path(track[0])):
            continue
        c = counts(track)
        if c is None:
            continue
        size = len(ONSET_EDGES) * len(EDGES)
        g = groups.setdefault(track[3], [np.zeros(size), np.zeros(size), 0])
        g[0] += c[0]
        g[1] += c[1]
        g[2] += 1
    total = [sum(g[0] for g in groups.values()), sum(g[1] for g in groups.values())]
    print('drums bins (columns): ' + ' '.join(f'{e:5.2f}' for e in EDGES) + '; onset bins (rows): '
          + ' '.join(f'{e:.2f}' for e in ONSET_EDGES))
    llr = ratios(*total)
    print(f'all {sum(g[2] for g in groups.values())} songs')
    for edge, row, b, o in zip(ONSET_EDGES, llr, total[0].reshape(len(ONSET_EDGES), -1),
                               total[1].reshape(len(ONSET_EDGES), -1)):
        print(f'  onset >= {edge:4.2f} (beat frames {int(b.sum()):7}, other {int(o.sum()):8}) '
              + ' '.join(f'{v:+5.2f}' for v in row))
    for name, (beat, other, n) in sorted(groups.items()):
        r = ratios(beat, other)
        print(f'{name:<15} n {n:4} onset >= 0.35 row: ' + ' '.join(f'{v:+5.2f}' for v in r[4]))
    if args.export:
        export(llr, sum(g[2] for g in groups.values()))


def export(llr, count):
    text = f'''// SPDX-License-Identifier: GPL-3.0-or-later
// Generated by tools/learned/tracker_drums.py fit --export ({count} train songs): do not edit.

extension TrackerDrumEvidence {{
    /// The lower edge of each bin of the detector's kick plus snare (clipped to 1).
    static let edges: [Float] = [{", ".join(f"{e:g}" for e in EDGES)}]
    /// The lower edge of each bin of the tracker's onset activation (0…1).
    static let onsetEdges: [Float] = [{", ".join(f"{e:g}" for e in ONSET_EDGES)}]
    /// The log-likelihood ratio of a beat state against any other state for the drums, given the
    /// onset activation: one row per onset bin, one column per drums bin.
    static let logRatios: [[Double]] = [
{chr(10).join("        [" + ", ".join(f"{v:.4f}" for v in row) + "]," for row in llr)}
    ]
}}
'''
    with open(SWIFT + '.tmp', 'w') as fh:
        fh.write(text)
    os.replace(SWIFT + '.tmp', SWIFT)
    print('wrote', os.path.relpath(SWIFT, ROOT))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest='command', required=True)
    f = sub.add_parser('frames')
    f.add_argument('--beatmap', default=os.path.join(ROOT, '.build', 'release', 'beatmap'))
    f.add_argument('--jobs', type=int, default=2)
    f.add_argument('--force', action='store_true')
    t = sub.add_parser('fit')
    t.add_argument('--export', action='store_true')
    args = parser.parse_args()
    {'frames': frames, 'fit': fit}[args.command](args)


if __name__ == '__main__':
    main()
