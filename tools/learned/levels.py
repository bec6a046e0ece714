#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""The metric level chosen by one likelihood over the candidate levels, with one tempo prior:
measured on the train split before anything is built on it (session 91).

Sessions 65 and 90 traced the maps at the wrong level to three separate hard choices (step 3's comb
pick, the preferred octave, the hierarchy's thresholds), each crossed by a small change of the
audio, and named the redesign: one likelihood over all levels at once, with the prior. This asks,
offline, whether a likelihood built on the metrical hierarchy alone chooses the notated level more
often than the maps do.

For each map four candidates, as tools/learned/octave.py (session 32): the map's beats, twice them
(the midpoints added), and half them on either parity. Along a candidate's beats the onset curve
(the rises of 24 log bands, summed: tools/learned/experiment.py's frame features) is read at eight
points of each beat (the strongest frame within one of each point). The points fall in four classes
of the hierarchy: the beat (0), the half (4⁄8), the quarters (2⁄8, 6⁄8) and the eighths (odd).
The model: one mean per class, ordered beat ≥ half ≥ quarter ≥ eighth (isotonic, pool adjacent
violators, so a candidate whose off-beats outweigh its beats gains nothing from them), and one shared
variance. Its log-likelihood ratio against one mean, per point, times the number of the map's beats
(one observation per beat: the points within a beat are not independent draws, as the bar
likelihoods are divided for the same reason), plus a log-normal tempo prior centred at 120 BPM with
a width of one octave (the preferred tempo of step 3, librosa's and Ellis's prior), is the
candidate's score; the highest wins, among the candidates within the analyzer's level limits
(60–200 BPM with 3 % slack; the map's own level always counts). Every candidate has the same number of parameters (four means
and a variance), so their likelihoods compare directly. Nothing is fitted.

The rule, fixed before the run: worth a Swift trial only if, on the train sets (the corpus's train
midi and lmms songs of one tempo, its warped and rewarped train copies, Freedoom's and the modules'
train songs, the even composed songs and their warped copies), the choice is at the notated level
(beat F ≥ 0.8 against the truth) for more songs than the maps are, in total and in no set for fewer.
The validation split is not read. `--n-scale` and `--prior-width` print the same table with the
observation count or the prior's width changed (sensitivity, train only).

`--fitted` (added after the first run had failed the rule): a conditional logit over the same
candidates instead, fitted by maximum likelihood with an L2 penalty and read out of fold (5 folds by
song, a song's time-warped copies in its fold). Its features are the ratios step 3's rules read along
each candidate (`ratios`), the prior's term, and whether the candidate is the map's own level
(`--without-map` leaves that out). It asks whether any weighing of what the rules read does better
than the rules.

`--drums` (session 93): the fitted logit reads the learned drums too. The analyzer's own network
(the weights of Sources/BeatAnalysis/Drums/DrumDetectorWeights.swift, run here on drums.py's frame
features; activations cached in tools/learned/out/drumact/) gives a kick and a snare per hop; along
each candidate, for the kick, the snare and their sum, the same three ratios (parity, off-beats,
strongest between), and the share of the candidate's beats with a drum heard (kick plus snare at
least 0.5). `--drums-only` leaves the onsets' ratios out.

    tools/learned/out/venv/bin/python3 tools/learned/levels.py --maps DIR [--scratch FOLDER] [--list]
    tools/learned/out/venv/bin/python3 tools/learned/levels.py --maps DIR [--scratch FOLDER] --fitted [--without-map]
    tools/learned/out/venv/bin/python3 tools/learned/levels.py --maps DIR [--scratch FOLDER] --fitted --drums[-only] [--without-map]
"""
import argparse
import json
import math
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import experiment  # noqa: E402 (its frame features and their cache, and the accuracy bench as `bench`)
import drums  # noqa: E402 (the drum network's frame features and context, for --drums)
import accuracy_module  # noqa: E402 (on experiment's path: tools/bench)

bench = experiment.bench
trial = accuracy_module.load_script('trial', 'bench_trial')
SETS = ('midi', 'lmms', 'warped', 'rewarped', 'freedoom', 'modules', 'songs')
VARYING = ('medley', 'accelerando', 'ritardando', 'step')  # corpus songs whose tempo changes
CLASSES = np.array([0, 3, 2, 3, 1, 3, 2, 3])  # of the eight points of a beat: beat, eighth, quarter, …


def candidates(beats):
    """The map's level and the three around it."""
    doubled = np.sort(np.r_[beats, (beats[:-1] + beats[1:]) / 2])
    return {'map': beats, '×2': doubled, '½ even': beats[0::2], '½ odd': beats[1::2]}


def isotonic_decreasing(means, weights):
    """Pool adjacent violators: the weighted least-squares non-increasing fit to `means`."""
    blocks = [[m, w, 1] for m, w in zip(means, weights)]
    merged = []
    for block in blocks:
        merged.append(block)
        while len(merged) >= 2 and merged[-2][0] < merged[-1][0]:
            (m2, w2, c2), (m1, w1, c1) = merged[-2], merged[-1]
            w = w1 + w2
            merged[-2:] = [[(m1 * w1 + m2 * w2) / w if w > 0 else 0, w, c1 + c2]]
    out = []
    for m, _, c in merged:
        out += [m] * c
    return np.array(out)


def gain(curve, beats):
    """The hierarchy's log-likelihood ratio per point along `beats` (see the docstring)."""
    if len(beats) < 3:
        return 0.0
    start, interval = beats[:-1], np.diff(beats)
    times = start[:, None] + interval[:, None] * (np.arange(8) / 8)[None, :]
    frames = np.round(times * experiment.FPS).astype(int)
    last = len(curve) - 1
    values = np.max([curve[np.clip(frames + o, 0, last)] for o in (-1, 0, 1)], axis=0)
    total = values.var()
    if total <= 0:
        return 0.0
    sums = np.array([values[:, CLASSES == c].sum() for c in range(4)])
    counts = np.array([values[:, CLASSES == c].size for c in range(4)], float)
    means = isotonic_decreasing(sums / counts, counts)
    within = ((values - means[CLASSES][None, :]) ** 2).mean()
    return -0.5 * math.log(max(within, 1e-12) / total)


def along(curve, beats, step, offset, fps, reach):
    """`curve` (one value per frame, `fps` frames a second) at points every `step` beats from
    `offset` along `beats` (fractions of a beat between them), each the largest value within `reach`
    frames."""
    n = len(beats) - 1
    u = np.arange(offset, n + 1e-9, step)
    index = np.minimum(n - 1, np.floor(u).astype(int))
    t = beats[index] + (u - index) * (beats[index + 1] - beats[index])
    frames = np.round(t * fps).astype(int)
    last = len(curve) - 1
    return np.max([curve[np.clip(frames + o, 0, last)] for o in range(-reach, reach + 1)], axis=0)


def ratios(curve, low, beats):
    """What the level rules read along `beats`, as logs of ratios (step 3's hierarchy and the low
    band's vetoes): the weaker parity over the stronger, the off-beats over the beats, the strongest
    point between the beats over the beats, and the low band's parity and off-beats."""

    def mean(c, step, offset):
        return along(c, beats, step, offset, experiment.FPS, 1).mean() + 1e-6

    out = []
    for c in (curve, low):
        on = mean(c, 1, 0)
        even, odd = mean(c, 2, 0), mean(c, 2, 1)
        between = max(mean(c, 1, f) for f in (0.25, 1 / 3, 0.5, 2 / 3, 0.75))
        out += [math.log(min(even, odd) / max(even, odd)), math.log(mean(c, 1, 0.5) / on), math.log(between / on)]
    return np.array(out)


class DrumNetwork:
    """The analyzer's drum network, its weights read back from the Swift source `drums.py export`
    wrote, with the `predict_proba` that `drums.activation` calls (kick, snare per frame)."""

    PATH = os.path.join(drums.ROOT, 'Sources', 'BeatAnalysis', 'Drums', 'DrumDetectorWeights.swift')

    def __init__(self):
        import re
        with open(self.PATH) as f:
            text = f.read()
        arrays = {}
        for name in ('firstWeights', 'firstBiases', 'secondWeights', 'secondBiases'):
            body = re.search(r'static let ' + name + r': \[Float\] = \[(.*?)\]', text, re.S).group(1)
            arrays[name] = np.array([float(v) for v in body.split(',') if v.strip()], np.float32)
        hidden = int(re.search(r'static let hiddenCount = (\d+)', text).group(1))
        self.w1, self.b1 = arrays['firstWeights'].reshape(-1, hidden), arrays['firstBiases']
        self.w2, self.b2 = arrays['secondWeights'].reshape(hidden, 2), arrays['secondBiases']

    def predict_proba(self, x):
        hidden = np.maximum(0, x @ self.w1 + self.b1)
        return 0.5 * (1 + np.tanh(0.5 * (hidden @ self.w2 + self.b2)))  # the logistic, without overflow


def drum_activation(network, audio_folder, audio):
    """Kick and snare per hop (drums.py's hop) of one WAV, as rows of (kick, snare); cached until the
    network's weights change."""
    cache = os.path.join(drums.ROOT, 'tools', 'learned', 'out', 'drumact',
                         os.path.basename(audio_folder) + '_' + audio + '.npy')
    if os.path.exists(cache) and os.path.getmtime(cache) > os.path.getmtime(DrumNetwork.PATH):
        return np.load(cache)
    kick, snare = drums.activation(network, drums.corpus_audio(os.path.join(audio_folder, audio)))
    out = np.stack([kick, snare], axis=1).astype(np.float32)
    os.makedirs(os.path.dirname(cache), exist_ok=True)
    np.save(cache, out)
    return out


def drum_ratios(activation, beats):
    """Along `beats`, for the kick, the snare and their sum: the weaker parity over the stronger, the
    midpoints over the beats, the strongest point between the beats over the beats (each the largest
    value within two hops); and the share of the beats with a drum heard (kick plus snare ≥ 0.5). Logs."""

    def at(c, step, offset):
        return along(c, beats, step, offset, drums.SR / drums.HOP, 2)

    both = activation[:, 0] + activation[:, 1]
    out = []
    for c in (activation[:, 0], activation[:, 1], both):
        on = at(c, 1, 0).mean() + 1e-3
        even, odd = at(c, 2, 0).mean() + 1e-3, at(c, 2, 1).mean() + 1e-3
        between = max(at(c, 1, f).mean() for f in (0.25, 1 / 3, 0.5, 2 / 3, 0.75)) + 1e-3
        out += [math.log(min(even, odd) / max(even, odd)), math.log((at(c, 1, 0.5).mean() + 1e-3) / on),
                math.log(between / on)]
    out.append(math.log((at(both, 1, 0) >= 0.5).mean() + 0.02))
    return np.array(out)


def fitted_choice(rows, penalty, without_map=False):
    """Out of fold (5 folds by song, a song's copies in its fold): each row's candidate by a conditional
    logit over its candidates within the limits, on their `ratios`, the prior's term and whether it is
    the map's own level (left out with `without_map`)."""
    from scipy.optimize import minimize

    def x_of(row):
        gains, bpms, right, n, labels, features = row[2], row[3], row[4], row[5], row[6], row[7]
        prior = -np.log2(bpms / 120) ** 2
        is_map = (np.arange(len(bpms)) == 0).astype(float) * (0 if without_map else 1)
        inside = (np.arange(len(bpms)) == 0) | ((bpms >= 60 * 0.97) & (bpms <= 200 * 1.03))
        return np.column_stack([features, prior, is_map]), inside

    def fit(subset):
        data = []
        for row in subset:
            x, inside = x_of(row)
            right = row[4] & inside
            if right.any() and not right.all():
                data.append((x[inside], right[inside]))
        width = data[0][0].shape[1]

        def objective(w):
            loss, grad = penalty * (w @ w), 2 * penalty * w
            for x, right in data:
                score = x @ w
                p = np.exp(score - score.max())
                p /= p.sum()
                q = p * right / (p[right].sum())
                loss -= np.log(p[right].sum() + 1e-300)
                grad -= q @ x - p @ x
            return loss, grad
        return minimize(objective, np.zeros(width), jac=True, method='L-BFGS-B').x

    def song(row):
        stem = row[1]
        for suffix in ('-drift', '-ramp', '-step'):
            stem = stem.replace(suffix, '')
        return stem

    names = sorted({song(r) for r in rows})
    fold = {name: i % 5 for i, name in enumerate(names)}
    choice = {}
    weights = []
    for k in range(5):
        w = fit([r for r in rows if fold[song(r)] != k])
        weights.append(w)
        for r in rows:
            if fold[song(r)] == k:
                x, inside = x_of(r)
                score = np.where(inside, x @ w, -np.inf)
                choice[(r[0], r[1])] = int(np.argmax(score))
    return choice, np.mean(weights, axis=0)


def tracks(maps, scratch):
    """(set, stem, audio folder, audio file, map path, truth path) of every train map with truth."""
    known = trial.truths(scratch=scratch)
    kinds = {}
    with open(os.path.join(trial.CORPUS, 'manifest.json')) as f:
        for track in json.load(f)['tracks']:
            kinds[(track['part'], os.path.splitext(os.path.basename(track['path']))[0])] = track.get('kind')
    names = set(SETS) | {os.path.basename(os.path.normpath(s)) for s in scratch}
    result = []
    for (folder, stem), (split, truth) in sorted(known.items()):
        if split != 'train' or folder not in names or not truth or any(v in stem for v in VARYING):
            continue
        if kinds.get((folder, stem)) == 'tempo-change':
            continue
        map_path = os.path.join(maps, folder, stem + '.beatmap.json')
        audio = os.path.join(os.path.dirname(truth), stem + '.wav')
        if os.path.exists(map_path) and os.path.exists(audio):
            result.append((folder, stem, os.path.dirname(audio), os.path.basename(audio), map_path, truth))
    return result


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--maps', required=True, help='a tools/bench/trial maps DIR')
    parser.add_argument('--scratch', action='append', default=[], help='a train scratch folder')
    parser.add_argument('--n-scale', type=float, action='append', help='observations per map beat (default 1)')
    parser.add_argument('--prior-width', type=float, action='append', help="the prior's width, octaves (1)")
    parser.add_argument('--low-band', action='store_true', help="the low bands' likelihood added")
    parser.add_argument('--fitted', action='store_true',
                        help="a conditional logit on the rules' ratios, the prior and the map, out of fold")
    parser.add_argument('--without-map', action='store_true', help="--fitted without the map's own level")
    parser.add_argument('--penalty', type=float, default=1.0, help="--fitted's L2 penalty (1)")
    parser.add_argument('--drums', action='store_true', help="--fitted reads the learned kick and snare too")
    parser.add_argument('--drums-only', action='store_true', help="--drums without the onsets' ratios")
    parser.add_argument('--list', action='store_true', help='every map the choice changes')
    args = parser.parse_args()
    if (args.drums or args.drums_only) and not args.fitted:
        parser.error('--drums and --drums-only read the drums into --fitted only')
    rows = []
    network = DrumNetwork() if args.drums or args.drums_only else None
    for folder, stem, audio_folder, audio, map_path, truth_path in tracks(args.maps, args.scratch):
        with open(map_path) as f:
            beats = np.array(json.load(f)['beats'])
        if len(beats) < 16:
            continue
        # The folder in the cached name, so that two sets' files of one name keep their own features.
        features = experiment.frame_features(os.path.dirname(audio_folder),
                                             os.path.join(os.path.basename(audio_folder), audio))
        curve = features[:, experiment.BANDS:].sum(axis=1)
        # The low bands' rises (30–150 Hz: the kick and the bass), for --low-band.
        edges = np.geomspace(30, 11000, experiment.BANDS + 1)
        low = features[:, experiment.BANDS:][:, edges[1:] <= 160].sum(axis=1)
        truth = np.asarray(bench.read_times(truth_path))
        named = candidates(beats)
        gains = np.array([gain(curve, b) + (gain(low, b) if args.low_band else 0) for b in named.values()])
        bpms = np.array([60 / np.median(np.diff(b)) for b in named.values()])
        right = np.array([bench.score(truth, b)['F'] >= 0.8 for b in named.values()])
        features = np.array([ratios(curve, low, b) for b in named.values()])
        if network is not None:
            activation = drum_activation(network, audio_folder, audio)
            read = np.array([drum_ratios(activation, b) for b in named.values()])
            features = read if args.drums_only else np.column_stack([features, read])
        rows.append((folder, stem, gains, bpms, right, len(beats), list(named), features))
    if args.fitted:
        choice, weights = fitted_choice(rows, args.penalty, args.without_map)
        report(rows, 0, 1, args.list, choice)
        print('\nmean weights over the folds (broadband parity, off-beats, between; low band the same; '
              '[--drums: kick, snare, both the same; drums heard]; prior; the map):', np.round(weights, 3).tolist())
        return
    for scale in args.n_scale or [1.0]:
        for width in args.prior_width or [1.0]:
            report(rows, scale, width, args.list)


def report(rows, scale, width, listed, fitted=None):
    title = ('a conditional logit on the rules\' ratios, out of fold' if fitted is not None
             else f'observations per map beat {scale}, prior width {width} octaves')
    print(f'\n{title}: songs at the notated level (of those with it among the four candidates)\n')
    print('| set | n | map right | likelihood right | changed | right → wrong | wrong → right |')
    print('|---|---|---|---|---|---|---|')
    totals = np.zeros(6, int)
    changes = []
    for name in sorted({r[0] for r in rows}):
        counts = np.zeros(6, int)
        for folder, stem, gains, bpms, right, n, labels, _ in rows:
            if folder != name or not right.any():
                continue
            score = scale * n * gains - np.log2(bpms / 120) ** 2 / (2 * width ** 2)
            # The analyzer's level limits (the default 60–200 BPM with its 3 % slack), the map's own excepted.
            score[1:][(bpms[1:] < 60 * 0.97) | (bpms[1:] > 200 * 1.03)] = -np.inf
            choice = int(np.argmax(score)) if fitted is None else fitted[(folder, stem)]
            counts += [1, right[0], right[choice], choice != 0, choice != 0 and right[0] and not right[choice],
                       choice != 0 and not right[0] and right[choice]]
            if choice != 0:
                changes.append(f'{folder}/{stem}: {labels[choice]} ({"right" if right[choice] else "wrong"}; the map '
                               f'{"right" if right[0] else "wrong"}; gains {np.round(gains, 4).tolist()}, '
                               f'BPM {np.round(bpms, 1).tolist()})')
        totals += counts
        print(f'| {name} | ' + ' | '.join(str(c) for c in counts) + ' |')
    print('| all | ' + ' | '.join(str(c) for c in totals) + ' |')
    if listed:
        print()
        for line in changes:
            print('  ' + line)


if __name__ == '__main__':
    main()
