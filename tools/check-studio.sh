#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The browser test of `beatmap studio`: Debian's chromium and chromium-driver (installed by
# tools/setup.sh) driven headless by selenium from PyPI, installed into a virtual environment under
# .build/. Leaves a screenshot in out/studio/studio.png.
# Usage: tools/check-studio.sh   (after `swift build`; set BEATMAP_BIN to use another binary)
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=.build/studio-venv
PACKAGES=("selenium==4.51.0")
PYTHON=${PYTHON:-python3}
if [ ! -x "$VENV/bin/python" ]; then
  "$PYTHON" -m venv "$VENV"
fi
"$VENV/bin/python" -m pip install --quiet --disable-pip-version-check "${PACKAGES[@]}"
BIN=${BEATMAP_BIN:-$(swift build --show-bin-path)/beatmap}
if [ ! -x "$BIN" ]; then
  swift build --product beatmap
fi
"$VENV/bin/python" tools/studio_browser_test.py "$BIN" "$@"
