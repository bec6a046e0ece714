#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Benchmark: `beatmap validate` on 1,000 maps of 1,000 beats and on one map of 1,000,000 beats.
# Targets on a 2-core machine: <= 2 s and <= 1.5 s wall. The peer, timed in the same run on the same
# files, is Python's json module (C accelerated) parsing each file and checking that beats increase:
# a floor for "read and check a map" that does far less than our validator.
#   bash tools/bench/validate.sh            # prints a table and the ratios
set -euo pipefail
cd "$(dirname "$0")/../.."
swift build -c release --product beatmap >/dev/null
BIN=$(swift build -c release --show-bin-path)/beatmap
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

python3 - "$WORK" <<'PY'
import os, sys, random
work = sys.argv[1]
random.seed(7)
def write(path, n, bpm):
    period = 60.0 / bpm
    beats = [0.5 + i * period for i in range(n)]
    duration = beats[-1] + 1.0
    with open(path, "w") as f:
        f.write('{\n  "version": 1,\n  "audio": {\n    "duration": %.6f\n  },\n' % duration)
        f.write('  "tempo": [\n    { "time": 0.5, "bpm": %s, "beatsPerBar": 4 }\n  ],\n  "beats": [\n' % repr(bpm))
        f.write(",\n".join("    %s" % (("%.6f" % t).rstrip("0").rstrip(".") if "." in ("%.6f" % t) else "%.1f" % t) for t in beats))
        f.write("\n  ]\n}\n")
os.makedirs(os.path.join(work, "many"))
for i in range(1000):
    write(os.path.join(work, "many", "map-%04d.beatmap.json" % i), 1000, random.choice([100.0, 120.0, 128.0, 140.0, 150.0]))
os.makedirs(os.path.join(work, "big"))
write(os.path.join(work, "big", "million.beatmap.json"), 1_000_000, 128.0)
PY

peer() {
  python3 - "$1" <<'PY'
import json, os, sys
root = sys.argv[1]
bad = 0
for folder, _, files in os.walk(root):
    for name in sorted(files):
        if name.endswith(".beatmap.json"):
            with open(os.path.join(folder, name)) as f:
                beats = json.load(f)["beats"]
            bad += sum(1 for a, b in zip(beats, beats[1:]) if b <= a)
print(bad)
PY
}

seconds() { # run a command 3 times, print the best wall time in seconds
  local best=""
  for _ in 1 2 3; do
    local start end
    start=$(date +%s.%N)
    "$@" >/dev/null
    end=$(date +%s.%N)
    best=$(python3 -c "import sys; a=float(sys.argv[2])-float(sys.argv[1]); b=sys.argv[3]; print(f'{a:.3f}' if b=='' or a<float(b) else b)" "$start" "$end" "$best")
  done
  echo "$best"
}

run_ours() { "$BIN" validate --no-config --no-audio "$1" >/dev/null || { echo "validate found problems in $1" >&2; exit 1; }; }

printf '%-26s %10s %10s %8s %8s\n' "case" "beatmap s" "peer s" "ratio" "target"
for case in many big; do
  ours=$(seconds run_ours "$WORK/$case")
  theirs=$(seconds peer "$WORK/$case")
  target=$([ "$case" = many ] && echo "<= 2.0" || echo "<= 1.5")
  label=$([ "$case" = many ] && echo "1,000 maps x 1,000 beats" || echo "1 map x 1,000,000 beats")
  printf '%-26s %10s %10s %8s %8s\n' "$label" "$ours" "$theirs" "$(python3 -c "print(f'{$ours/$theirs:.2f}x')")" "$target"
done
echo "ratio = beatmap time / peer time (peer: Python json.load + monotonic check, no rules, no locations)"
