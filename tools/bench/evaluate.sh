#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Benchmark: `beatmap evaluate` against mir_eval (the reference implementation), timed in the same run
# on the same files, and a check that both give the same scores.
#   (a) 40 pairs of 3-minute beat lists (about 400 beats each): one `beatmap evaluate` process per
#       pair, against one Python process loading and scoring every pair with mir_eval.beat.evaluate
#       (so the peer pays its start-up once, we pay ours 40 times);
#   (b) one 10-minute pair: a single process each.
# mir_eval is pip-installed (pinned) into .build-eval-venv/ on first use.
#   bash tools/bench/evaluate.sh            # prints the timings, the ratios and the largest difference
set -euo pipefail
cd "$(dirname "$0")/../.."
MIR_EVAL_VERSION=0.8.2
VENV=.build-eval-venv
if [ ! -x "$VENV/bin/python3" ]; then python3 -m venv "$VENV"; fi
"$VENV/bin/python3" -c "import mir_eval, sys; sys.exit(mir_eval.__version__ != '$MIR_EVAL_VERSION')" 2>/dev/null \
  || "$VENV/bin/python3" -m pip install --quiet "mir_eval==$MIR_EVAL_VERSION"
PY="$VENV/bin/python3"
swift build -c release --product beatmap >/dev/null
BIN=$(swift build -c release --show-bin-path)/beatmap
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

"$PY" - "$WORK" <<'PY'
import os, sys
import numpy as np
work = sys.argv[1]
rng = np.random.RandomState(11)
def pair(folder, name, seconds):
    bpm = rng.uniform(70, 180)
    ref = np.arange(rng.uniform(0, 1), seconds, 60 / bpm)
    est = ref + rng.normal(0, 0.02, ref.size)
    est = np.sort(np.concatenate([est[rng.rand(ref.size) > 0.05], rng.uniform(0, seconds, 10)]))
    for suffix, beats in (("ref", ref), ("est", est)):
        with open(os.path.join(folder, f"{name}.{suffix}.txt"), "w") as f:
            f.write("".join(f"{t:.6f}\n" for t in beats))
os.makedirs(os.path.join(work, "many"))
for i in range(40):
    pair(os.path.join(work, "many"), f"p{i:03d}", 180)
os.makedirs(os.path.join(work, "long"))
pair(os.path.join(work, "long"), "long", 600)
PY

ours() { # folder output: one JSON line per pair
  for ref in "$1"/*.ref.txt; do "$BIN" evaluate "$ref" "${ref%.ref.txt}.est.txt" --format json; done >"$2"
}
peer() { # folder output
  "$PY" - "$1" "$2" <<'PY'
import glob, json, sys, warnings
import mir_eval
names = {"F-measure": "fMeasure", "Cemgil": "cemgil", "Goto": "goto", "P-score": "pScore",
         "Correct Metric Level Continuous": "cmlc", "Correct Metric Level Total": "cmlt",
         "Any Metric Level Continuous": "amlc", "Any Metric Level Total": "amlt", "Information gain": "informationGain"}
warnings.simplefilter("ignore")
with open(sys.argv[2], "w") as out:
    for ref in sorted(glob.glob(sys.argv[1] + "/*.ref.txt")):
        scores = mir_eval.beat.evaluate(mir_eval.io.load_events(ref), mir_eval.io.load_events(ref[:-8] + ".est.txt"))
        out.write(json.dumps({names[k]: float(v) for k, v in scores.items() if k in names}) + "\n")
PY
}
seconds() { # wall time of one run of a command, in seconds
  local start end
  start=$(date +%s.%N)
  "$@"
  end=$(date +%s.%N)
  python3 -c "import sys; print(f'{float(sys.argv[2]) - float(sys.argv[1]):.3f}')" "$start" "$end"
}
compare() { # ours peer: the largest absolute difference over all scores
  python3 - "$1" "$2" <<'PY'
import json, sys
worst = 0.0
for a, b in zip(open(sys.argv[1]), open(sys.argv[2])):
    a, b = json.loads(a), json.loads(b)
    worst = max([worst] + [abs(a[k] - b[k]) for k in b])
print(f"{worst:.2e}")
PY
}

for set in many long; do
  t_ours=$(seconds ours "$WORK/$set" "$WORK/$set.ours")
  t_peer=$(seconds peer "$WORK/$set" "$WORK/$set.peer")
  diff=$(compare "$WORK/$set.ours" "$WORK/$set.peer")
  pairs=$(wc -l <"$WORK/$set.ours")
  python3 -c "import sys; o, p = float(sys.argv[1]), float(sys.argv[2]); print(f'{sys.argv[3]:5s} {sys.argv[4]:>4s} pairs  beatmap evaluate {o:7.3f} s  mir_eval {p:7.3f} s  speed-up x{p / o:6.1f}  max |difference| {sys.argv[5]}')" \
    "$t_ours" "$t_peer" "$set" "$pairs" "$diff"
done
