#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Set up, lint, run the whole test suite, validate the shipped maps with the tool itself, then build
# the DocC documentation.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/setup.sh
echo "== swift format lint --strict --recursive Sources Tests (the README's requirement)"
swift format lint --strict --recursive Sources Tests
swift build --build-tests
swift test
echo "== beatmap validate BeatMaps (the shipped maps must pass)"
BIN="$(swift build --show-bin-path)/beatmap"
"$BIN" validate --strict BeatMaps
echo "== beatmap format --check BeatMaps (the shipped maps are in canonical form)"
"$BIN" format --check BeatMaps
echo "== man page and shell completions generate (tools/install-shell-support.sh --check)"
bash tools/install-shell-support.sh --check
echo "== DocC: BeatMapKit's catalog and every symbol link (tools/ci/docs.sh)"
bash tools/ci/docs.sh
