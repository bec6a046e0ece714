#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The main job on the shipped demo: set up, build, then validate the demo maps against their audio.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/setup.sh
swift build -c release --product beatmap
BIN="$(swift build -c release --show-bin-path)/beatmap"
echo "== beatmap validate BeatMaps"
"$BIN" validate BeatMaps
