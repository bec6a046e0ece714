#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Builds the beat-evaluation fixtures: reference/estimate pairs and the scores mir_eval gives them.

Run from anywhere: `python3 tools/make-eval-fixtures.py`. When mir_eval is not importable, the
script makes a virtual environment in `.build-eval-venv/` (ignored by git), pip-installs the pinned
mir_eval there and runs itself again with it. The output is deterministic: fixed seeds, times rounded
to microseconds (what a beat-map file stores), one JSON file per case in
Tests/BeatMapKitTests/Fixtures/evaluation/. The Swift tests compare every metric within 0.001.
"""

import json
import os
import sys
import warnings

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "Tests", "BeatMapKitTests", "Fixtures", "evaluation")

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mir_eval_env import MIR_EVAL_VERSION, ensure_mir_eval  # noqa: E402

ensure_mir_eval(__file__)

import mir_eval  # noqa: E402
import numpy as np  # noqa: E402


def us(values):
    """Times rounded to microseconds, as plain floats, sorted (a beat list is in time order)."""
    return sorted(round(float(v), 6) for v in values)


def grid(bpm, start, end, phase=0.0):
    """Beats of a constant tempo from `start` (inclusive) to `end` (exclusive)."""
    period = 60.0 / bpm
    count = int(np.floor((end - start - phase) / period + 1e-9)) + 1
    return start + phase + period * np.arange(max(count, 0))


def accelerating(start_bpm, end_bpm, duration, start=0.5):
    """Beats of a tempo ramping linearly from start_bpm to end_bpm."""
    beats = [start]
    while beats[-1] < duration:
        progress = beats[-1] / duration
        bpm = start_bpm + (end_bpm - start_bpm) * progress
        beats.append(beats[-1] + 60.0 / bpm)
    return np.array(beats[:-1])


def cases():
    """(name, description, reference, estimate) for every fixture."""
    rng = np.random.RandomState(20240601)
    ref120 = grid(120, 0.5, 60)
    out = []

    def add(name, description, reference, estimate):
        out.append((name, description, us(reference), us(estimate)))

    add("exact", "estimate equals the 120 BPM reference", ref120, ref120)
    add("jitter-10ms", "Gaussian jitter, sigma 10 ms", ref120, ref120 + rng.normal(0, 0.010, ref120.size))
    add("jitter-40ms", "Gaussian jitter, sigma 40 ms", ref120, ref120 + rng.normal(0, 0.040, ref120.size))
    add("jitter-90ms", "Gaussian jitter, sigma 90 ms", ref120, ref120 + rng.normal(0, 0.090, ref120.size))
    add("offset-30ms-late", "every beat 30 ms late", ref120, ref120 + 0.030)
    add("offset-70ms-late", "every beat exactly at the F-measure window's edge", ref120, ref120 + 0.070)
    add("offset-70ms-early", "every beat exactly 70 ms early", ref120, ref120 - 0.070)
    add("offset-80ms-early", "every beat 80 ms early: outside the F-measure window", ref120, ref120 - 0.080)
    add("double-tempo", "estimate at twice the tempo", ref120, grid(240, 0.5, 60))
    add("half-tempo-odd", "estimate at half the tempo, on the odd beats", ref120, ref120[::2])
    add("half-tempo-even", "estimate at half the tempo, on the even beats", ref120, ref120[1::2])
    add("off-beat", "estimate on the off-beats", ref120, ref120 + 0.25)
    add("triple-tempo", "estimate at three times the tempo", ref120, grid(360, 0.5, 60))
    add("two-thirds-tempo", "estimate at 2/3 of the tempo", ref120, grid(80, 0.5, 60))
    keep = rng.rand(ref120.size) > 0.2
    add("missing-beats", "about 20 % of the beats missing", ref120, ref120[keep])
    extra = rng.uniform(0.5, 60, 25)
    add("extra-beats", "25 spurious beats added", ref120, np.concatenate([ref120, extra]))
    gap = ref120[(ref120 < 25) | (ref120 > 35)]
    add("gap", "ten seconds without beats in the middle", ref120, gap)
    add("late-lock", "random beats until 20 s, then locked", ref120,
        np.concatenate([np.sort(rng.uniform(0.5, 20, 30)), ref120[ref120 >= 20]]))
    add("tempo-drift", "estimate at 121 BPM against 120", ref120, grid(121, 0.5, 60))
    add("tempo-ramp", "reference accelerates 90 to 150 BPM; estimate a constant 120", accelerating(90, 150, 60),
        ref120)
    ramp = accelerating(100, 140, 90)
    add("tempo-ramp-jitter", "accelerating reference, estimate jittered 20 ms with 10 % dropped", ramp,
        (ramp + rng.normal(0, 0.020, ramp.size))[rng.rand(ramp.size) > 0.1])
    swing = grid(100, 0.3, 45)
    add("swung-eighths", "estimate on swung eighth notes of a 100 BPM reference", swing,
        np.sort(np.concatenate([swing, swing[:-1] + 0.6 * 60 / 100])))
    add("random", "uniformly random estimate", ref120, np.sort(rng.uniform(0, 60, 120)))
    long_ref = grid(128, 0.1, 600)
    add("long-10min", "ten minutes at 128 BPM, jittered 15 ms with 5 % dropped", long_ref,
        (long_ref + rng.normal(0, 0.015, long_ref.size))[rng.rand(long_ref.size) > 0.05])
    add("negative-times", "estimate starts before zero", ref120, grid(120, -2.0, 60))
    add("trim-edge", "beats at exactly 5 s are kept, before are trimmed", grid(120, 4.0, 30),
        grid(120, 4.5, 30) + 0.010)
    add("duplicates", "repeated times in both sequences", np.sort(np.concatenate([ref120, ref120[10:14]])),
        np.sort(np.concatenate([ref120 + 0.01, ref120[30:33] + 0.01])))
    add("empty-estimate", "no estimated beats", ref120, [])
    add("empty-reference", "no reference beats", [], ref120)
    add("both-empty", "no beats at all", [], [])
    add("short-4s", "a 4-second track: everything is trimmed", grid(120, 0.5, 4.0), grid(120, 0.52, 4.0))
    add("one-beat-after-trim", "one beat each after trimming", grid(60, 1.0, 5.5), grid(60, 1.02, 5.5))
    add("two-beats-after-trim", "two beats each after trimming", grid(60, 1.0, 6.5), grid(60, 1.02, 6.5))
    add("three-beats", "three reference beats after trimming", grid(60, 5.0, 7.5), grid(60, 5.01, 7.5))
    add("four-beats", "four reference beats after trimming", grid(60, 5.0, 8.5), grid(60, 5.01, 8.5))
    add("five-beats", "five reference beats after trimming", grid(60, 5.0, 9.5), grid(60, 5.01, 9.5))
    add("one-estimate", "a single estimated beat", ref120, [10.0])
    add("close-reference", "two reference beats 5 ms apart (one P-score tick)", [6.001, 6.006, 7.0],
        [6.0, 7.0])
    # Goto: one long correct stretch amid errors, and one just below a quarter of the track.
    goto_long = ref120 + np.where((ref120 > 12) & (ref120 < 40), 0.01, 0.2)
    add("goto-long-track", "correct only between 12 and 40 s", ref120, goto_long)
    goto_short = ref120 + np.where((ref120 > 20) & (ref120 < 33), 0.01, 0.2)
    add("goto-short-track", "correct only between 20 and 33 s", ref120, goto_short)
    # Goto's "longer than a quarter" test at its boundary: 110 reference beats after trimming, so a
    # stretch must hold more than 27 correct beats.
    trimmed = ref120[ref120 >= 5]
    for correct in (27, 28):
        late = np.full(trimmed.size, 0.2)
        late[40:40 + correct] = 0.01
        add(f"goto-{correct}-correct", f"{correct} consecutive correct beats amid 200 ms errors", ref120,
            np.concatenate([ref120[ref120 < 5], trimmed + late]))
    # P-score window at a rounding tie: intervals of 12 and 13 cells give a median of 12.5 cells, and
    # 0.2 x 12.5 = 2.5 rounds to 2 (half to even), not 3.
    alternating = 5.005 + np.concatenate([[0.0], np.cumsum([0.12, 0.13] * 60)])
    add("p-score-window-tie", "median reference interval of 12.5 cells; estimate 25 ms late", alternating,
        alternating + 0.025)
    # An estimate exactly halfway between two reference beats goes to the earlier one (arg-min order);
    # here that decides whether the continuity scores count it.
    add("nearest-tie", "an estimate exactly between two reference beats", [5.0, 6.0, 6.125, 7.0, 8.0, 9.0],
        [5.0, 6.0625, 7.0, 8.0, 9.0])
    return out


def scores(reference, estimate):
    """mir_eval's beat scores, under the names the Swift code uses."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        s = mir_eval.beat.evaluate(np.array(reference, dtype=float), np.array(estimate, dtype=float))
    names = {
        "F-measure": "fMeasure",
        "Cemgil": "cemgil",
        "Cemgil Best Metric Level": "cemgilBestMetricLevel",
        "Goto": "goto",
        "P-score": "pScore",
        "Correct Metric Level Continuous": "cmlc",
        "Correct Metric Level Total": "cmlt",
        "Any Metric Level Continuous": "amlc",
        "Any Metric Level Total": "amlt",
        "Information gain": "informationGain",
    }
    result = {}
    for key, name in names.items():
        value = float(s[key])
        if not np.isfinite(value):
            sys.exit(f"mir_eval gave {value} for {key}: not a usable fixture")
        result[name] = value
    return result


def main():
    os.makedirs(OUT, exist_ok=True)
    for old in os.listdir(OUT):
        if old.endswith(".json"):
            os.remove(os.path.join(OUT, old))
    for name, description, reference, estimate in cases():
        fixture = {
            "name": name,
            "description": description,
            "generator": f"tools/make-eval-fixtures.py with mir_eval {MIR_EVAL_VERSION}",
            "reference": reference,
            "estimate": estimate,
            "mirEval": scores(reference, estimate),
        }
        with open(os.path.join(OUT, name + ".json"), "w", encoding="utf-8") as handle:
            json.dump(fixture, handle, indent=1)
            handle.write("\n")
    print(f"wrote {len(cases())} fixtures to {os.path.relpath(OUT, ROOT)}")


if __name__ == "__main__":
    main()
