#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Checks `beatmap export`/`import` against the formats' own parsers from PyPI: simfile (StepMania),
# slider (osu!) and jams (JAMS schema). Installs them with pip into a virtual environment under .build/.
# Usage: tools/check-interop.sh   (after `swift build`; set BEATMAP_BIN to use another binary)
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=.build/interop-venv
PACKAGES=("simfile==2.1.1" "slider==0.8.4" "jams==0.3.5")
PYTHON=${PYTHON:-python3}
if [ ! -x "$VENV/bin/python" ]; then
  "$PYTHON" -m venv "$VENV"
fi
"$VENV/bin/python" -m pip install --quiet --disable-pip-version-check "${PACKAGES[@]}"
BIN=${BEATMAP_BIN:-$(swift build --show-bin-path)/beatmap}
if [ ! -x "$BIN" ]; then
  swift build --product beatmap
fi
"$VENV/bin/python" tools/check_interop.py "$BIN" BeatMaps/*.beatmap.json
