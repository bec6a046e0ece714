#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Differential check of `beatmap evaluate` against mir_eval on random beat sequences.

    python3 tools/fuzz-evaluate.py [--seed N] [--cases N] [--binary PATH]

Draws reference/estimate pairs (0 to 400 beats; jitter, dropped and inserted beats, offsets at the
±70 ms edge, other metric levels, random estimates, duplicates, 10 ms quantisation), scores each with
mir_eval and with the beatmap binary (debug build by default), and reports every score that differs
by more than 1e-9. Exit status 1 when any does. The committed fixtures (tools/make-eval-fixtures.py)
are what the tests use; this is for looking further. mir_eval is installed into .build-eval-venv/ when
it is not importable.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import warnings

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mir_eval_env import ensure_mir_eval  # noqa: E402

ensure_mir_eval(__file__)

import mir_eval  # noqa: E402
import numpy as np  # noqa: E402

NAMES = {
    "F-measure": "fMeasure", "Cemgil": "cemgil", "Goto": "goto", "P-score": "pScore",
    "Correct Metric Level Continuous": "cmlc", "Correct Metric Level Total": "cmlt",
    "Any Metric Level Continuous": "amlc", "Any Metric Level Total": "amlt", "Information gain": "informationGain",
}


def draw(rng):
    """One random (reference, estimate) pair, times rounded to microseconds and sorted."""
    n = int(rng.choice([0, 1, 2, 3, 4, 5, 8, 20, 100, 400]))
    period = 60 / rng.uniform(60, 200)
    start = rng.uniform(0, 8)
    reference = start + period * np.arange(n)
    if rng.rand() < 0.3:
        reference = reference + rng.normal(0, 0.01, n)
    estimate = reference.copy()
    kind = rng.randint(8)
    if kind == 0:
        estimate = estimate + rng.normal(0, rng.choice([0.005, 0.03, 0.07, 0.15]), n)
    elif kind == 1:
        estimate = estimate[rng.rand(n) > rng.uniform(0, 0.6)]
    elif kind == 2:
        estimate = np.concatenate([estimate, rng.uniform(0, start + period * n + 1, rng.randint(0, 30))])
    elif kind == 3:
        estimate = estimate + rng.choice([0.07, -0.07, 0.0699999, 0.07000001, period / 2, period / 4])
    elif kind == 4:
        ratio = rng.choice([0.5, 2, 1.5, 2 / 3, 1 / 3, 1.01])
        estimate = start + period * ratio * np.arange(int(n * rng.uniform(0.3, 3)))
    elif kind == 5:
        estimate = rng.uniform(0, 60, rng.randint(0, 50))
    elif kind == 6:
        estimate = np.concatenate([estimate, estimate[: rng.randint(0, max(n, 1))]])
    else:
        estimate = np.round(estimate * 100) / 100 + 0.005
    if rng.rand() < 0.2:
        reference = np.concatenate([reference, reference[:3]])
    return sorted(round(float(t), 6) for t in reference), sorted(round(float(t), 6) for t in estimate)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--cases", type=int, default=300)
    parser.add_argument("--binary", default=os.path.join(ROOT, ".build", "debug", "beatmap"))
    args = parser.parse_args()
    if not os.path.exists(args.binary):
        subprocess.check_call(["swift", "build", "--product", "beatmap"], cwd=ROOT)
    rng = np.random.RandomState(args.seed)
    differences = skipped = 0
    with tempfile.TemporaryDirectory() as work:
        ref_path, est_path = os.path.join(work, "ref.txt"), os.path.join(work, "est.txt")
        for case in range(args.cases):
            reference, estimate = draw(rng)
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    theirs = mir_eval.beat.evaluate(np.array(reference), np.array(estimate))
            except ValueError:
                skipped += 1  # e.g. all reference beats in one 10 ms cell: mir_eval's P-score fails
                continue
            for path, times in ((ref_path, reference), (est_path, estimate)):
                with open(path, "w") as handle:
                    handle.write("".join(f"{t!r}\n" for t in times))
            run = subprocess.run([args.binary, "evaluate", ref_path, est_path, "--format", "json"],
                                 capture_output=True, text=True)
            if run.returncode != 0:
                print(f"case {case}: beatmap failed: {run.stderr.strip()}")
                differences += 1
                continue
            ours = json.loads(run.stdout)
            for key, name in NAMES.items():
                if ours[name] is None or abs(ours[name] - float(theirs[key])) > 1e-9:
                    print(f"case {case}: {name} ours {ours[name]} mir_eval {float(theirs[key])} "
                          f"reference {reference} estimate {estimate}")
                    differences += 1
    print(f"{args.cases} cases (seed {args.seed}), {skipped} skipped (mir_eval raised), {differences} differences")
    return 1 if differences else 0


if __name__ == "__main__":
    sys.exit(main())
