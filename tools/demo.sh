#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The main job on the shipped demo tracks: set up, build, validate the shipped maps, analyze the demo
# audio into new maps, validate those against their audio, then render a click preview and a plot.
# Everything it makes goes to out/ (git-ignored); running it again replaces those files.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/setup.sh
swift build -c release --product beatmap
BIN="$(swift build -c release --show-bin-path)/beatmap"
mkdir -p out/maps
echo "== beatmap validate BeatMaps                 (the shipped ground-truth maps)"
"$BIN" validate BeatMaps
echo "== beatmap analyze Audio --out-dir out/maps  (generate maps from the audio)"
"$BIN" analyze --force --out-dir out/maps Audio
echo "== beatmap validate --audio out/maps         (check them, and against their audio's onsets)"
"$BIN" validate --audio out/maps
echo "== beatmap evaluate                          (generated vs ground truth)"
for map in BeatMaps/*.beatmap.json; do
  printf '%-32s ' "$(basename "$map")"
  "$BIN" evaluate --format json "$map" "out/maps/$(basename "$map")"
done
echo "== beatmap render                            (music + a click on every beat)"
"$BIN" render --force Audio/demo-120.ogg out/maps/demo-120.beatmap.json -o out/demo-120-clicks.wav
echo "== beatmap plot"
"$BIN" plot --force Audio/demo-tempo-change.flac out/maps/demo-tempo-change.beatmap.json -o out/demo-tempo-change.svg
"$BIN" plot --force Audio/demo-drift.ogg out/maps/demo-drift.beatmap.json -o out/demo-drift.svg
echo "Done. Listen to out/demo-120-clicks.wav, open out/demo-tempo-change.svg and out/demo-drift.svg, or run:"
echo "  $BIN preview Audio/demo-120.ogg out/maps/demo-120.beatmap.json"
