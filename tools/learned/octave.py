#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""A learned choice of metric level, measured before anything is built on it (session 32).

Most of the maps `beatmap analyze` gets wrong are at twice or half the notated tempo: on the composed
songs (tools/learned/songs.py) hip-hop and funk at twice, metal at half. The level rules read the
onsets and the low band at a few points of the beat; this asks whether a model that has seen many
songs' beat patterns would pick the level better.

For each map it builds four candidates: the map's beats, twice them (the midpoints added), and half
them on either parity. Each candidate is described by what the song sounds like along it: the
frame features of experiment.py (24 log bands and their rises, standardised over the song) averaged
at 0, 1/4, 1/2 and 3/4 of the way through its beats, and the difference between its even and odd
beats (a back-beat). A logistic regression (scikit-learn, L2) says whether a candidate is at the
notated level (beat F >= 0.8 against the truth), and the map's level becomes its likeliest candidate.

Trained on the corpus's train split (its midi and lmms songs of one tempo) and the even composed
songs; their figures are out of fold (3 folds by song). Checked on the corpus's validation split and
the odd composed songs, with the model fitted on all the training songs. The maps come from one
`tools/bench/accuracy --split all --json` run and one `tools/bench/composed --json` run (their maps
must still be on disk: run them just before).

    tools/learned/out/venv/bin/python3 tools/learned/octave.py --accuracy-json ACC --composed-json COMPOSED
"""
import argparse
import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import experiment  # noqa: E402 (its frame features and their cache, and the accuracy bench as `bench`)

bench = experiment.bench
SONGS = os.path.join(experiment.ROOT, 'tools', 'learned', 'out', 'songs')
VARYING = ('medley', 'accelerando', 'ritardando', 'step')  # corpus songs whose tempo changes


def candidates(beats):
    """The map's level and the three around it."""
    doubled = np.sort(np.r_[beats, (beats[:-1] + beats[1:]) / 2])
    return {'map': beats, '×2': doubled, '½ even': beats[0::2], '½ odd': beats[1::2]}


def describe(features, beats):
    """What the song sounds like along `beats`: mean features at four points of each beat, and the
    even beats' less the odd beats' (absolute)."""
    frame = lambda t: np.clip(np.round(t * experiment.FPS).astype(int), 0, len(features) - 1)
    start, interval = beats[:-1], np.diff(beats)
    points = [features[frame(start + q * interval)].mean(axis=0) for q in (0, 0.25, 0.5, 0.75)]
    parity = np.abs(features[frame(beats[0::2])].mean(axis=0) - features[frame(beats[1::2])].mean(axis=0))
    return np.concatenate(points + [parity])


def songs(accuracy_json, composed_json, corpus):
    """(group, name, wav path for experiment.frame_features, its folder, beats of the map, truth)."""
    result = []
    with open(accuracy_json) as f:
        for t in json.load(f)['tracks']:
            if t['part'] not in ('midi', 'lmms') or any(v in t['path'] for v in VARYING):
                continue
            if t['ours'].get('map') and os.path.exists(t['ours']['map']):
                result.append((t['split'], t['path'], t['path'], corpus, t['ours']['map'],
                               os.path.join(corpus, t['path'][:-4] + '.beats')))
    with open(composed_json) as f:
        for t in json.load(f)['tracks']:
            half = 'composed even' if int(t['song'][-4:]) % 2 == 0 else 'composed odd'
            if t['ours'].get('map') and os.path.exists(t['ours']['map']):
                result.append((half, f"{t['song']} ({t['style']})", t['path'], SONGS, t['ours']['map'],
                               os.path.join(SONGS, t['song'] + '.beats')))
    return result


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--accuracy-json', required=True)
    parser.add_argument('--composed-json', required=True)
    parser.add_argument('--corpus', default=os.path.join(experiment.ROOT, 'corpus'))
    parser.add_argument('--c', type=float, default=0.1, help='inverse L2 strength (default 0.1)')
    args = parser.parse_args()
    from sklearn.linear_model import LogisticRegression
    from sklearn.preprocessing import StandardScaler

    rows = []
    for group, name, path, folder, map_path, truth_path in songs(args.accuracy_json, args.composed_json, args.corpus):
        features = experiment.standardised(experiment.frame_features(folder, path))
        with open(map_path) as f:
            beats = np.array(json.load(f)['beats'])
        if len(beats) < 16:
            continue
        truth = np.asarray(bench.read_times(truth_path))
        named = candidates(beats)
        x = np.array([describe(features, b) for b in named.values()])
        right = np.array([bench.score(truth, b)['F'] >= 0.8 for b in named.values()])
        rows.append((group, name, x, right, list(named)))
    training = [r for r in rows if r[0] in ('train', 'composed even')]

    def fitted(subset):
        x = np.vstack([r[2] for r in subset])
        y = np.concatenate([r[3] for r in subset])
        scaler = StandardScaler().fit(x)
        return scaler, LogisticRegression(C=args.c, max_iter=5000).fit(scaler.transform(x), y)

    def choice(model, row):
        scaler, regression = model
        return int(np.argmax(regression.predict_proba(scaler.transform(row[2]))[:, 1]))

    chosen = {}
    for k in range(experiment.FOLDS):
        held = [r for r in training if experiment.fold(r[1]) == k]
        model = fitted([r for r in training if experiment.fold(r[1]) != k])
        chosen.update({r[1]: choice(model, r) for r in held})
    model = fitted(training)
    chosen.update({r[1]: choice(model, r) for r in rows if r[0] not in ('train', 'composed even')})

    print('Songs of one tempo whose map has the notated level among its four candidates; how many the map '
          'has right, and how many the learned choice has (train and composed even: out of fold).\n')
    print('| group | n | map right | learned right | changed | right after change |')
    print('|---|---|---|---|---|---|')
    for group in ('train', 'validation', 'composed even', 'composed odd'):
        scored = [r for r in rows if r[0] == group and r[3].any()]
        changed = [r for r in scored if chosen[r[1]] != 0]
        print(f'| {group} | {len(scored)} | {sum(r[3][0] for r in scored)} | '
              f'{sum(r[3][chosen[r[1]]] for r in scored)} | {len(changed)} | '
              f'{sum(r[3][chosen[r[1]]] for r in changed)} |')
    print('\nChanged maps of the corpus:\n')
    for r in rows:
        if r[0] in ('train', 'validation') and r[3].any() and chosen[r[1]] != 0:
            print(f'  {r[0]}: {r[1]}: {r[4][chosen[r[1]]]} ({"right" if r[3][chosen[r[1]]] else "wrong"}; '
                  f'the map was {"right" if r[3][0] else "wrong"})')


if __name__ == '__main__':
    main()
