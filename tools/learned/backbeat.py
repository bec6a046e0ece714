#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""The back-beat as evidence of the metric level, measured on analyze's maps (session 40; measured,
not used: docs/analyze.md, session 40).

At the level a rock or pop song is notated at, the kick and the snare alternate from beat to beat
(the kick on 1 and 3, the snare on 2 and 4). Read at half that tempo, each beat is a snare and the
kick falls between the beats. So the question: where the learned detector (drums.py, the model of
`--set gmmodules`, the one the analyzer runs) finds the kick clearly more between a map's beats than
on them, and the snare clearly more on them than between them, is the map at half its notated level?

For each map, over its beats in the first 300 s (as the analyzer's drum check reads them), the
kick's and the snare's activation at each beat and at the midpoint after it (the largest within two
hops, as drums.py reads them), and two paired t statistics: the kick's midpoint less its beat, and
the snare's beat less its midpoint. The rule would fire where both reach 5, the drum check's margin
(DrumDetector.minimumT), and twice the map's tempo stays within the default range (200 BPM).

  backbeat.py corpus MAPDIR [--split train] [--parts midi,lmms,warped]
      the corpus's tracks (corpus/manifest.json), maps as tools/bench/accuracy writes them
      (MAPDIR/PART/NAME.beatmap.json)
  backbeat.py songs FOLDER MAPDIR [--split train]
      a song folder with its own index.json (corpus/freedoom, corpus/modules), maps as
      tools/bench/composed writes them (MAPDIR/NAME.beatmap.json)

Prints one line per map (its tempo over the truth's, the two t statistics, whether the rule fires)
and the maps it would move. Run it with tools/learned/setup.sh's venv; the activations are cached
by drums.py.
"""

import argparse
import json
import os
import pickle
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import drums  # noqa: E402

MINIMUM_T = 5.0  # DrumDetector.minimumT
SPAN = 300.0  # DrumBands.span
MAXIMUM_BPM = 200.0  # analyze's default --max-bpm
REACH = 2  # hops either side, as drums.strength reads


def at(curve, times):
    """The curve's largest value within REACH hops of each time (NaN where the hops are not all there)."""
    rows = np.round(np.asarray(times) * drums.SR / drums.HOP).astype(int)
    inside = (rows >= REACH) & (rows < len(curve) - REACH)
    values = np.full(len(rows), np.nan)
    values[inside] = np.max(np.stack([curve[rows[inside] + o] for o in range(-REACH, REACH + 1)]), axis=0)
    return values


def paired_t(differences):
    d = differences[~np.isnan(differences)]
    if len(d) < 3:
        return 0.0
    spread = d.std(ddof=1)
    return float(d.mean() / (spread / np.sqrt(len(d)))) if spread > 0 else 0.0


def measure(model, set_name, audio, map_path, truth_path):
    beats = np.array(json.load(open(map_path))['beats'])
    beats = beats[beats < SPAN]
    if len(beats) < 16:
        return None
    kick, snare = drums.corpus_activation(model, set_name, audio)
    mids = (beats[:-1] + beats[1:]) / 2
    kick_between = paired_t(at(kick, mids) - at(kick, beats[:-1]))
    snare_on = paired_t(at(snare, beats[:-1]) - at(snare, mids))
    bpm = float(np.median(60 / np.diff(beats)))
    truth = np.loadtxt(truth_path, ndmin=1) if truth_path and os.path.exists(truth_path) else np.array([])
    ratio = bpm / float(np.median(60 / np.diff(truth))) if len(truth) > 2 else float('nan')
    fires = min(kick_between, snare_on) >= MINIMUM_T and 2 * bpm <= MAXIMUM_BPM
    return {'bpm': round(bpm, 2), 'ratio': round(ratio, 3), 'kickBetween': round(kick_between, 2),
            'snareOn': round(snare_on, 2), 'fires': fires}


def report(rows):
    for name, row in rows:
        print(f"{name:56} ×{row['ratio']:<6} {row['bpm']:7.2f} BPM  kick between t {row['kickBetween']:6.2f}  "
              f"snare on t {row['snareOn']:6.2f}{'  FIRES' if row['fires'] else ''}")
    fired = [(name, row) for name, row in rows if row['fires']]
    right = sum(1 for _, row in fired if abs(row['ratio'] - 0.5) < 0.05)
    print(f'{len(rows)} maps; the rule fires on {len(fired)}: {right} at half the truth\'s tempo (doubling puts them '
          f'right), {len(fired) - right} not')


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    sub = parser.add_subparsers(dest='command', required=True)
    c = sub.add_parser('corpus')
    c.add_argument('maps')
    c.add_argument('--split', default='train')
    c.add_argument('--parts', default='midi,lmms,warped')
    s = sub.add_parser('songs')
    s.add_argument('folder')
    s.add_argument('maps')
    s.add_argument('--split', default='train')
    args = parser.parse_args()
    set_name = 'gmmodules'
    with open(os.path.join(drums.set_dir(set_name), 'model.pkl'), 'rb') as fh:
        model = pickle.load(fh)
    rows = []
    if args.command == 'corpus':
        parts = set(args.parts.split(','))
        manifest = json.load(open(os.path.join(drums.cl.CORPUS, 'manifest.json')))
        for track in manifest['tracks']:
            if track['split'] != args.split or track.get('encoding') or track['part'] not in parts:
                continue
            stem = track['path'][:-len('.wav')]
            map_path = os.path.join(args.maps, stem + '.beatmap.json')
            if not os.path.exists(map_path) or not track.get('beats'):
                continue
            row = measure(model, set_name, track['path'], map_path, os.path.join(drums.cl.CORPUS, track['beats']))
            if row:
                rows.append((track['path'], row))
    else:
        folder = os.path.abspath(args.folder)
        below = os.path.relpath(folder, drums.cl.CORPUS)
        for song in json.load(open(os.path.join(folder, 'index.json')))['songs']:
            if song['split'] != args.split:
                continue
            stem = song['path'][:-len('.wav')]
            map_path = os.path.join(args.maps, stem + '.beatmap.json')
            if not os.path.exists(map_path):
                continue
            row = measure(model, set_name, os.path.join(below, song['path']), map_path,
                          os.path.join(folder, song['beats']))
            if row:
                rows.append((song['path'], row))
    report(rows)


if __name__ == '__main__':
    main()
