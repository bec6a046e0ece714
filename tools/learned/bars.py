#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""The 4/4 bar template (session 34): which beat of a 4/4 bar is beat 1, learned from songs with bar
truth instead of read off the features by hand (docs/bars.md, "The 4/4 bar template").

The meter estimate (Sources/BeatAnalysis/Bars/MeterEstimator.swift) reads four features at each
beat: the kick, the bass, and the harmonic change over one and two beats. For each song and each
candidate phase p of a 4/4 bar, the song's beats at each position k = 0…3 of the bar give a mean of
each feature: 16 numbers. The template is 16 weights, one per feature and position; a phase's score
is the weighted sum of its 16 means, and the phase with the highest score is chosen. The weights are
those of a conditional logit (the score's softmax over the four phases is the probability of each),
fitted by maximum likelihood with an L2 penalty, one observation per song.

  features   runs `beatmap bar-features` (a developer command, left out of its help) on each song with
             bar truth: the corpus's midi, lmms and warped parts (both splits: only `--split
             validation` of `evaluate` reads the validation ones), Freedoom's songs (their own split)
             and tools/learned/songs.py's composed songs. Cached in tools/learned/out/bars/.
  fit        fits the template on the training pool (corpus train, Freedoom train, composed songs of
             even number), prints each group's phase accuracy out of fold (5 folds by song, a song's
             time-warped copies in its fold) against the hand-read estimate's, and the composed songs
             of odd number, which no fit sees. `--export` writes the weights fitted on the whole pool
             to Sources/BeatAnalysis/Bars/BarTemplateWeights.swift.
  evaluate   the same table for the exported weights; `--split validation` adds the corpus's and
             Freedoom's validation songs (run it once per change).

A song counts where 80 % of its map's beats are within 70 ms of a truth beat and its truth meter is
4; its true phase is the one that puts the most of the map's beats on truth downbeats.

  tools/learned/out/venv/bin/python3 tools/learned/bars.py features --beatmap .build/release/beatmap
  tools/learned/out/venv/bin/python3 tools/learned/bars.py fit [--penalty 10] [--pool wider] [--balance] [--first-beat]
      [--against MAPS] [--export]

Session 66: `fit` also reads the corpus's rewarped copies, the tracker modules and Frets on Fire
(their train songs) and prints every train group's phase accuracy, out of fold for the groups it
fits; `--pool wider` fits them too, `--balance` weighs each source's songs alike. A corpus copy now
shares its source song's fold (before, the copies' song key differed from their source's).

Session 97: `fit --first-beat` adds a 17th weight, on an indicator that is 1 for the phase that puts the
map's first beat on a downbeat (songs mostly start on one), fitted with the 16 (trial FT: built, failed
on train, docs/bars-log.md; not exported, the analyzer does not read it). `fit --against MAPS` reads a
template's choice against the analysis's own bar phases (a base's maps) as well: out of fold against a
refit, the first-beat weight promised far more than the analysis, whose later rules had already set
right most of the songs it moved, let it do.
"""
import argparse
import json
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

import numpy as np
from scipy.optimize import minimize

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..'))
OUT = os.path.join(ROOT, 'tools', 'learned', 'out', 'bars')
SONGS = os.path.join(ROOT, 'tools', 'learned', 'out', 'songs')
SWIFT = os.path.join(ROOT, 'Sources', 'BeatAnalysis', 'Bars', 'BarTemplateWeights.swift')
NAMES = ['kick', 'bass', 'harmony1', 'harmony2']   # BarFeatures' features, in its order
METER = 4
POOL = ('corpus-train', 'freedoom-train', 'composed-even')
# Since session 66 also the corpus's rewarped train copies, the tracker modules' and Frets on Fire's train songs.
WIDER = POOL + ('rewarped-train', 'modules-train', 'fof-train')
TRAIN = WIDER
FOLDS = 5
MARGIN = 0.06   # BarTemplate.noiseMargin: the encodings' spread of a score difference, twice


def tracks():
    """(key, audio, truth base path, group, song) of every song with bar truth."""
    result = []
    manifest = json.load(open(os.path.join(ROOT, 'corpus', 'manifest.json')))
    for t in manifest['tracks']:
        if t['part'] in ('midi', 'lmms', 'warped', 'rewarped') and t.get('downbeats'):
            song = t['song']   # a warped copy's is its source song's: the copies go in its fold
            base = os.path.join(ROOT, 'corpus', t['path'][:-4])
            group = ('rewarped-' if t['part'] == 'rewarped' else 'corpus-') + t['split']
            result.append(('corpus/' + t['path'][:-4], base + '.wav', base, group, song))
    for name in ('freedoom', 'modules', 'fof'):
        folder = os.path.join(ROOT, 'corpus', name)
        if not os.path.exists(os.path.join(folder, 'index.json')):
            continue
        for t in json.load(open(os.path.join(folder, 'index.json')))['songs']:
            if not t.get('downbeats'):
                continue
            base = os.path.join(folder, t['path'][:-4])
            result.append((f"{name}/{t['song']}", base + '.wav', base, f"{name}-{t['split']}", t['song']))
    if os.path.exists(os.path.join(SONGS, 'index.json')):
        for t in json.load(open(os.path.join(SONGS, 'index.json')))['songs']:
            name = os.path.basename(t['path'])[:-4]
            number = int(name.split('-')[-1])
            group = 'composed-even' if number % 2 == 0 else 'composed-odd'
            base = os.path.join(SONGS, name)
            result.append(('songs/' + name, base + '.wav', base, group, name))
    return result


def cache_path(key):
    return os.path.join(OUT, key + '.json')


def features(args):
    todo = [t for t in tracks() if args.force or not os.path.exists(cache_path(t[0]))]

    def run(track):
        key, audio = track[0], track[1]
        out = subprocess.run([args.beatmap, 'bar-features', audio], capture_output=True, text=True)
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
        print('no features:', failure, file=sys.stderr)
    print(f'{len(todo) - len(failures)} of {len(todo)} songs read into {OUT}')


def times(path):
    with open(path) as fh:
        return np.array([float(line.split()[0]) for line in fh if line.strip() and not line.startswith('#')])


def songs(groups):
    """Each usable song of `groups`: its features, true phase, and the hand-read estimate's choice."""
    result = []
    for key, _, base, group, song in tracks():
        if group not in groups or not os.path.exists(cache_path(key)):
            continue
        table = json.load(open(cache_path(key)))
        beats = np.array(table['beats'])
        truth_beats, downbeats = times(base + '.beats'), times(base + '.downbeats')
        if len(beats) < 2 * METER or len(downbeats) < 3:
            continue
        per_bar = [((truth_beats >= a - 0.01) & (truth_beats < b - 0.01)).sum()
                   for a, b in zip(downbeats[:-1], downbeats[1:])]
        if int(np.median(per_bar)) != METER:
            continue
        near = [np.min(np.abs(truth_beats - b)) <= 0.07 for b in beats]
        if np.mean(near) < 0.8:
            continue
        on_downbeat = np.array([np.min(np.abs(downbeats - b)) <= 0.07 for b in beats])
        index = np.arange(len(beats))
        phase = max(range(METER), key=lambda p: on_downbeat[index % METER == p].sum())
        values = {name: np.array(v) for name, v in table['features'].items()}
        likeliest, estimate = hand_read(values)
        result.append(dict(key=key, group=group, song=song, phase=phase, means=means(values),
                           likeliest=likeliest, estimate=estimate))
    return result


def means(values):
    """The mean of each feature (NAMES order) at each position of the bar for phase 0: 4 × 4."""
    count = len(next(iter(values.values())))
    index = np.arange(count)
    return np.array([[values[name][index % METER == k].mean() if name in values else 0.0
                      for k in range(METER)] for name in NAMES])


def phase_rows(table, first=False):
    """The 16 means as seen from each phase p: row p holds the means at positions p, p + 1, …; with
    `first`, a 17th column that is 1 for phase 0, the phase that puts the map's first beat on a
    downbeat (session 97)."""
    rows = np.stack([np.roll(table, -p, axis=1).ravel() for p in range(METER)])
    return np.hstack([rows, (np.arange(METER) == 0).astype(float)[:, None]]) if first else rows


def hand_read(values):
    """The likelihoods' phase in 4/4 (the Gaussian log-likelihoods of each feature's downbeats-against-
    the-rest split), and the hand-read estimate's (MeterEstimator before session 34: that phase, then
    the half-bar rule)."""
    def log_likelihood(v, phase):
        index = np.arange(len(v))
        down = (index >= phase) & ((index - phase) % METER == 0)
        a, b = v[down].mean(), v[~down].mean()
        if a <= b:
            return 0.0
        total = ((v - v.mean()) ** 2).sum()
        within = ((v[down] - a) ** 2).sum() + ((v[~down] - b) ** 2).sum()
        noise = len(v) * 0.05
        return -len(v) / 2 * np.log((within + noise) / (total + noise))
    scores = [sum(log_likelihood(v, p) for v in values.values()) for p in range(METER)]
    likeliest = best = int(np.argmax(scores))
    if 'harmony2' in values:
        other = (best + 2) % METER
        if log_likelihood(values['harmony2'], other) > log_likelihood(values['harmony2'], best):
            best = other
    return likeliest, best


def group_weights(rows, balance):
    """Each row's weight in the likelihood: 1, or with `balance` each group's songs together as much as
    any other group's (the mean weight still 1), so that one source's style does not outweigh the rest."""
    if not balance:
        return [1.0] * len(rows)
    sizes = {}
    for r in rows:
        sizes[r['group']] = sizes.get(r['group'], 0) + 1
    return [len(rows) / (len(sizes) * sizes[r['group']]) for r in rows]


def fit_weights(rows, penalty, balance=False, first=False):
    data = [(phase_rows(r['means'], first), r['phase'], weight)
            for r, weight in zip(rows, group_weights(rows, balance))]

    def objective(w):
        loss, grad = penalty * (w @ w), 2 * penalty * w
        for x, truth, weight in data:
            s = x @ w
            p = np.exp(s - s.max())
            p /= p.sum()
            loss -= weight * np.log(p[truth] + 1e-300)
            grad -= weight * (x[truth] - p @ x)
        return loss, grad
    return minimize(objective, np.zeros(len(NAMES) * METER + first), jac=True, method='L-BFGS-B').x


def choose(row, w):
    """The template's phase, unless it beats the likelihoods' by less than MARGIN (BarTemplate.phase).
    Weights with a 17th entry read the first beat too (`fit --first-beat`)."""
    scores = phase_rows(row['means'], len(w) > len(NAMES) * METER) @ w
    best = int(np.argmax(scores))
    return row['likeliest'] if scores[best] - scores[row['likeliest']] < MARGIN else best


def table(rows, pick, groups):
    print(f"{'group':<22}{'songs':>6}{'hand-read':>12}{'template':>12}  moved right / wrong")
    for group in groups:
        g = [r for r in rows if r['group'] == group]
        if not g:
            continue
        before = sum(r['estimate'] == r['phase'] for r in g)
        after = sum(pick(r) == r['phase'] for r in g)
        right = sum(pick(r) == r['phase'] != r['estimate'] for r in g)
        wrong = sum(r['estimate'] == r['phase'] != pick(r) for r in g)
        print(f'{group:<22}{len(g):>6}{100 * before / len(g):>11.1f}%{100 * after / len(g):>11.1f}%  {right} / {wrong}')


def map_phase(key, folder):
    """The bar phase in 4/4 (the index mod 4 of most of its downbeats) of the map of song `key` in the
    folder of maps `folder` (`tools/bench/trial maps`' layout: FOLDER/PART/NAME.beatmap.json), counted
    over its beats as the cached table's are (the same analyzer's map has the same beats); None where
    there is no map, no meter of 4, or another count of beats."""
    part, name = key.split('/')[-2:]
    path = os.path.join(folder, part, name + '.beatmap.json')
    if not os.path.exists(path):
        return None
    document = json.load(open(path))
    beats = document.get('beats') or []
    if len(beats) != len(json.load(open(cache_path(key)))['beats']):
        return None
    # The map's downbeats as tools/bench/bars reads them (its map_downbeats, one definition for both).
    flags, meter = bench_bars().map_downbeats(beats, document.get('tempo'))
    if meter != METER:
        return None
    counts = [0] * METER
    for index, flag in enumerate(flags):
        counts[index % METER] += flag
    return int(np.argmax(counts)) if sum(counts) else None


def bench_bars():
    """tools/bench/bars as a module (loaded once, through that folder's accuracy_module)."""
    sys.path.insert(0, os.path.join(ROOT, 'tools', 'bench'))
    import accuracy_module
    return accuracy_module.load_script('bars', 'bench_bars')


def against_table(rows, pick, folder, groups):
    """How a template's choice (`pick`) would move the analysis's own bar phases (session 97): a song
    whose choice differs from the shipped template's is read as ending at that choice, every other
    song keeps its map's phase (the maps in `folder`, written by the analyzer that ships the weights).
    The back-beat and one-drop rules and the followed maps' sections come after the template in the
    analysis; a reading against the template alone (`table`) overstates what a cue leaves to do."""
    shipped = read_exported()
    print(f"against the maps in {folder} (where the choice differs from the shipped template's):")
    print(f"{'group':<22}{'songs':>6}{'analysis':>12}{'with it':>12}  moved right / wrong")
    for group in groups:
        g = [(r, map_phase(r['key'], folder)) for r in rows if r['group'] == group]
        g = [(r, phase) for r, phase in g if phase is not None]
        if not g:
            continue
        after = [pick(r) if pick(r) != choose(r, shipped) else phase for r, phase in g]
        before_right = sum(phase == r['phase'] for r, phase in g)
        after_right = sum(a == r['phase'] for (r, _), a in zip(g, after))
        right = sum(a == r['phase'] != phase for (r, phase), a in zip(g, after))
        wrong = sum(phase == r['phase'] != a for (r, phase), a in zip(g, after))
        print(f'{group:<22}{len(g):>6}{100 * before_right / len(g):>11.1f}%{100 * after_right / len(g):>11.1f}%  {right} / {wrong}')


def fit(args):
    groups = WIDER if args.pool == 'wider' else POOL
    rows = songs(TRAIN + ('composed-odd',))
    pool = [r for r in rows if r['group'] in groups]
    names = sorted({r['song'] for r in rows if r['group'] in TRAIN})
    fold = {s: i % FOLDS for i, s in enumerate(names)}
    models = [fit_weights([r for r in pool if fold[r['song']] != k], args.penalty, args.balance, args.first_beat)
              for k in range(FOLDS)]
    whole = fit_weights(pool, args.penalty, args.balance, args.first_beat)
    print(f'penalty {args.penalty}, pool {args.pool}{", groups balanced" if args.balance else ""}'
          f'{", the first beat read" if args.first_beat else ""}; '
          'out of fold in the pool, the whole pool\'s fit on the other groups')

    def pick(r):
        return choose(r, models[fold[r['song']]] if r['group'] in groups and r['song'] in fold else whole)
    table(rows, pick, TRAIN + ('composed-odd',))
    if args.against:
        against_table(rows, pick, args.against, TRAIN + ('composed-odd',))
    train = [r for r in rows if r['group'] in TRAIN]
    print(f"all train groups: {100 * sum(pick(r) == r['phase'] for r in train) / len(train):.1f}% of {len(train)}; "
          f"mean over groups {np.mean([np.mean([pick(r) == r['phase'] for r in train if r['group'] == g]) for g in TRAIN]) * 100:.1f}%")
    print('weights (rows: ' + ', '.join(NAMES) + '; columns: positions 1-4 of the bar)')
    for name, row in zip(NAMES, whole[:len(NAMES) * METER].reshape(len(NAMES), METER)):
        print(f'  {name:<10}' + ' '.join(f'{v:+.4f}' for v in row))
    if args.first_beat:
        print(f'  first beat a downbeat {whole[-1]:+.4f}')
    if args.export and args.first_beat:
        sys.exit('bars.py: the analyzer reads no first-beat weight (trial FT failed on train, '
                 'docs/bars-log.md session 97); --export writes the 16 weights only')
    if args.export:
        export(whole, args.penalty, len(pool))


def export(w, penalty, count):
    rows = w[:len(NAMES) * METER].reshape(len(NAMES), METER)
    lines = [f'        "{name}": [{", ".join(f"{v:.4f}" for v in row)}],' for name, row in zip(NAMES, rows)]
    text = f'''// SPDX-License-Identifier: GPL-3.0-or-later
// Generated by tools/learned/bars.py fit --export (penalty {penalty:g}, {count} songs): do not edit.

extension BarTemplate {{
    /// The weight of each feature's mean at positions 1, 2, 3 and 4 of a 4/4 bar.
    static let weights: [String: [Double]] = [
{chr(10).join(lines)}
    ]
}}
'''
    with open(SWIFT + '.tmp', 'w') as fh:
        fh.write(text)
    os.replace(SWIFT + '.tmp', SWIFT)
    print('wrote', os.path.relpath(SWIFT, ROOT))


def read_exported():
    text = open(SWIFT).read()
    w = []
    for name in NAMES:
        line = next(line for line in text.splitlines() if line.strip().startswith(f'"{name}"'))
        w += [float(v) for v in line.split('[')[1].split(']')[0].split(',')]
    return np.array(w)


def evaluate(args):
    groups = TRAIN + ('composed-odd',)
    if args.split == 'validation':
        groups += ('corpus-validation', 'rewarped-validation', 'freedoom-validation', 'modules-validation',
                   'fof-validation')
    w = read_exported()
    print('exported weights (in-sample on the pool)')
    table(songs(groups), lambda r: choose(r, w), groups)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest='command', required=True)
    f = sub.add_parser('features')
    f.add_argument('--beatmap', default=os.path.join(ROOT, '.build', 'release', 'beatmap'))
    f.add_argument('--jobs', type=int, default=2)
    f.add_argument('--force', action='store_true')
    t = sub.add_parser('fit')
    t.add_argument('--penalty', type=float, default=10.0)
    t.add_argument('--export', action='store_true')
    t.add_argument('--pool', choices=['session34', 'wider'], default='session34',
                   help='the sources fitted: session 34\'s (the shipped weights\') or WIDER')
    t.add_argument('--balance', action='store_true', help="each source's songs weigh as much as another's")
    t.add_argument('--against', metavar='MAPS',
                   help="also read the choice against the analysis's own bar phases, the maps in MAPS "
                        "(tools/bench/trial maps' folder, written by the analyzer that ships the weights)")
    t.add_argument('--first-beat', action='store_true',
                   help="one more weight: the phase that puts the map's first beat on a downbeat (session 97)")
    e = sub.add_parser('evaluate')
    e.add_argument('--split', choices=['train', 'validation'], default='train')
    args = parser.parse_args()
    {'features': features, 'fit': fit, 'evaluate': evaluate}[args.command](args)


if __name__ == '__main__':
    main()
