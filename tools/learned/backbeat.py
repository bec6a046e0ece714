#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""The back-beat as evidence of the metric level (session 40; measured, not used: docs/analyze-log.md,
session 40) and of the bar phase (`--bars`; in the analyzer since session 40: docs/bars.md), measured
on analyze's maps.

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

With `--bars` it asks the question the analyzer's bar rule answers instead (Sources/BeatAnalysis/
Bars/BackBeat.swift, docs/bars.md "A downbeat is not the back-beat"): for each map in 4/4 bars, the
weaker snare of its bars' beats 1 and 3 less the stronger of 2 and 4, as a paired t over the bars,
against where the truth's downbeats fall on the map's own beats (the offset, in beats, of the map's
bar lines; odd is a beat out). Read this way on the maps written before the rule (session 39's), it
gave the figures docs/bars.md reports. `--bars --high-band` reads the high band's rise at each beat
(cymbals.py's `hirise`: a snare's or a clap's burst above 5 kHz) in place of the learned snare
(session 96, docs/bars-log.md); the detector's model is then not needed.
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


def bars_bench():
    """tools/bench/bars as a module: its reading of a map's downbeats."""
    import importlib.machinery
    import importlib.util
    bench = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'bench')
    sys.path.insert(0, bench)
    loader = importlib.machinery.SourceFileLoader('bars_bench', os.path.join(bench, 'bars'))
    spec = importlib.util.spec_from_loader('bars_bench', loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


def measure_bars(model, set_name, audio, map_path, truth_path, downbeats_path, bench):
    """The back-beat on a map's own 4/4 bars, and where its bar lines fall against the truth's."""
    if not (truth_path and downbeats_path and os.path.exists(downbeats_path)):
        return None
    m = json.load(open(map_path))
    beats = m['beats']
    flags, meter = bench.map_downbeats(beats, m['tempo'])
    if meter != 4 or True not in flags:
        return None
    truth = np.loadtxt(truth_path, ndmin=1)
    downbeats = np.sort(np.loadtxt(downbeats_path, ndmin=1))
    # The truth's bar position of each of our downbeats that lies on a truth beat (±70 ms).
    offsets = []
    for beat, flag in zip(beats, flags):
        k = int(np.argmin(np.abs(truth - beat)))
        if not flag or abs(truth[k] - beat) > 0.07:
            continue
        j = np.searchsorted(downbeats, truth[k] + 1e-6) - 1
        if j >= 0:
            offsets.append(int(np.sum((truth > downbeats[j] - 1e-6) & (truth < truth[k] - 1e-6))) % 4)
    if len(offsets) < 8:
        return None
    offset = max(set(offsets), key=offsets.count)
    if model is None:   # --high-band: the high band's rise at each beat (cymbals.py) for the snare
        import cymbals
        values = cymbals.columns_at(os.path.join(drums.cl.CORPUS, audio), np.asarray(beats, dtype=float))['hirise']
    else:
        _, snare = drums.corpus_activation(model, set_name, audio)
        values = at(snare, np.asarray(beats))
    differences = []
    start = flags.index(True)
    while start + 3 < len(beats) and beats[start + 3] < SPAN:
        if flags[start] and not any(flags[start + 1:start + 4]):
            one, two, three, four = values[start:start + 4]
            differences.append(min(one, three) - max(two, four))
            start += 4
        else:
            start += 1
    if len(differences) < 8:
        return None
    t = paired_t(np.asarray(differences, dtype=float))
    return {'offset': offset, 'share': round(offsets.count(offset) / len(offsets), 2), 't': round(t, 1),
            'fires': t >= MINIMUM_T}


def report_bars(rows):
    for name, row in rows:
        print(f"{name:56} bar lines {row['offset']} beat(s) from the truth's ({row['share']:.0%} of them)  "
              f"back-beat on the downbeats t {row['t']:6.1f}{'  FIRES' if row['fires'] else ''}")
    out = [row['t'] for _, row in rows if row['offset'] % 2 == 1]
    right = [row['t'] for _, row in rows if row['offset'] % 2 == 0]
    print(f"{len(rows)} maps in 4/4; a beat out: {len(out)}, t {sorted(out, reverse=True)}; "
          f"right parity: {len(right)}, largest t {max(right) if right else float('nan')}")


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
    for p in (c, s):
        p.add_argument('--bars', action='store_true', help="the back-beat on the maps' bars (see above)")
        p.add_argument('--high-band', action='store_true',
                       help="with --bars: the high band's rise at each beat (cymbals.py's `hirise`, a snare's "
                            "or a clap's burst above 5 kHz) in place of the learned snare (session 96)")
    args = parser.parse_args()
    bench = bars_bench() if args.bars else None

    def read(audio, map_path, truth_path, downbeats_path):
        if args.bars:
            return measure_bars(model, set_name, audio, map_path, truth_path, downbeats_path, bench)
        return measure(model, set_name, audio, map_path, truth_path)
    set_name = 'gmmodules'
    model = None
    if not (args.bars and args.high_band):
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
            downbeats = os.path.join(drums.cl.CORPUS, track['downbeats']) if track.get('downbeats') else None
            row = read(track['path'], map_path, os.path.join(drums.cl.CORPUS, track['beats']), downbeats)
            if row:
                rows.append((track['path'], row))
    else:
        folder = os.path.abspath(args.folder)
        below = os.path.relpath(folder, drums.cl.CORPUS)
        for song in json.load(open(os.path.join(folder, 'index.json')))['songs']:
            if drums.cl.song_split(song) != args.split:
                continue
            stem = song['path'][:-len('.wav')]
            map_path = os.path.join(args.maps, stem + '.beatmap.json')
            if not os.path.exists(map_path):
                continue
            downbeats = os.path.join(folder, song['downbeats']) if song.get('downbeats') else None
            row = read(os.path.join(below, song['path']), map_path, os.path.join(folder, song['beats']), downbeats)
            if row:
                rows.append((song['path'], row))
    (report_bars if args.bars else report)(rows)


if __name__ == '__main__':
    main()
