#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Builds BeatMapKit's DocC documentation with the toolchain's own `docc` and fails on any warning (a
# broken symbol link, a missing article). Symbol graphs come from `swift package dump-symbol-graph`,
# which reuses the debug build `tools/test.sh` has just made (in the sanitizer's folder when
# BEATMAP_TEST_SANITIZER is set, see build-flags.sh), so the step takes seconds. Writes the archive to
# .build/docs/BeatMapKit.doccarchive (DOCS_OUT overrides).
set -euo pipefail
cd "$(dirname "$0")/../.."
source tools/ci/build-flags.sh
OUT="${DOCS_OUT:-.build/docs}"
DOCC="$(command -v docc || xcrun --find docc 2>/dev/null || true)"
[ -n "$DOCC" ] || { echo "docs.sh: no docc in the toolchain" >&2; exit 2; }
# It ends with "Files written to FOLDER".
GRAPHS="$(swift package ${SWIFTPM_FLAGS[@]+"${SWIFTPM_FLAGS[@]}"} dump-symbol-graph --minimum-access-level public 2>&1 | sed -n 's/^Files written to //p' | tail -1)"
[ -f "$GRAPHS/BeatMapKit.symbols.json" ] || { echo "docs.sh: no BeatMapKit symbol graph in ${GRAPHS:-?}" >&2; exit 2; }
# Only BeatMapKit's graphs (and its extensions' graphs, named BeatMapKit@…).
SELECTED="$(mktemp -d)"
trap 'rm -rf "$SELECTED"' EXIT
cp "$GRAPHS"/BeatMapKit.symbols.json "$SELECTED"/
for extension in "$GRAPHS"/BeatMapKit@*.symbols.json; do
  if [ -f "$extension" ]; then cp "$extension" "$SELECTED"/; fi
done
mkdir -p "$OUT"
"$DOCC" convert Sources/BeatMapKit/BeatMapKit.docc \
  --fallback-display-name BeatMapKit --fallback-bundle-identifier org.beatmapkit.BeatMapKit \
  --additional-symbol-graph-dir "$SELECTED" --warnings-as-errors \
  --output-path "$OUT/BeatMapKit.doccarchive"
echo "docs.sh: BeatMapKit documentation built without warnings ($OUT/BeatMapKit.doccarchive)"
