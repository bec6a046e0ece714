#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Set up, lint, run the whole test suite, validate the shipped maps with the tool itself, then build
# the DocC documentation.
#
#   BEATMAP_TEST_SANITIZER=address bash tools/test.sh   # all of it on an AddressSanitizer build
#                                                       # (.build/sanitize-address): what CI runs
set -euo pipefail
cd "$(dirname "$0")/.."
source tools/ci/build-flags.sh
bash tools/setup.sh
echo "== swift format lint --strict --recursive Sources Tests (the README's requirement)"
swift format lint --strict --recursive Sources Tests
swift build --build-tests ${SWIFTPM_FLAGS[@]+"${SWIFTPM_FLAGS[@]}"}
# The preview tests play in real time (JACK's dummy device, ALSA loopbacks) and compare the capture
# with the render bit for bit: they run on their own, after the suites that compile exported C# and
# Swift, which would otherwise share the 2 cores with them (tools/ci/sanitizers.sh does the same).
swift test --skip-build ${SWIFTPM_FLAGS[@]+"${SWIFTPM_FLAGS[@]}"} --skip PreviewCommandTests
swift test --skip-build ${SWIFTPM_FLAGS[@]+"${SWIFTPM_FLAGS[@]}"} --filter PreviewCommandTests
echo "== beatmap validate BeatMaps (the shipped maps must pass)"
BIN="$(swift build ${SWIFTPM_FLAGS[@]+"${SWIFTPM_FLAGS[@]}"} --show-bin-path)/beatmap"
"$BIN" validate --strict BeatMaps
echo "== beatmap format --check BeatMaps (the shipped maps are in canonical form)"
"$BIN" format --check BeatMaps
echo "== every edit and every format's round trip of the shipped maps (tools/check-edits.py, check-roundtrip.py)"
python3 tools/check-edits.py "$BIN" BeatMaps
python3 tools/check-roundtrip.py "$BIN" BeatMaps
echo "== man page and shell completions generate (tools/install-shell-support.sh --check)"
bash tools/install-shell-support.sh --check
echo "== DocC: BeatMapKit's catalog and every symbol link (tools/ci/docs.sh)"
bash tools/ci/docs.sh
