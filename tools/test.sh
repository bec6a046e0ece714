#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Set up, then run the whole test suite, then validate the shipped maps with the tool itself.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/setup.sh
swift build --build-tests
swift test
echo "== beatmap validate BeatMaps (the shipped maps must pass)"
BIN="$(swift build --show-bin-path)/beatmap"
"$BIN" validate --strict BeatMaps
echo "== beatmap format --check BeatMaps (the shipped maps are in canonical form)"
"$BIN" format --check BeatMaps
