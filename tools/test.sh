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
# The preview tests play in real time (JACK's dummy device, ALSA loopbacks) and compare the capture
# with the render bit for bit: they run on their own, after the suites that compile exported C# and
# Swift, which would otherwise share the 2 cores with them (tools/ci/sanitizers.sh does the same).
swift test --skip-build --skip PreviewCommandTests
swift test --skip-build --filter PreviewCommandTests
echo "== beatmap validate BeatMaps (the shipped maps must pass)"
BIN="$(swift build --show-bin-path)/beatmap"
"$BIN" validate --strict BeatMaps
echo "== beatmap format --check BeatMaps (the shipped maps are in canonical form)"
"$BIN" format --check BeatMaps
echo "== man page and shell completions generate (tools/install-shell-support.sh --check)"
bash tools/install-shell-support.sh --check
echo "== DocC: BeatMapKit's catalog and every symbol link (tools/ci/docs.sh)"
bash tools/ci/docs.sh
