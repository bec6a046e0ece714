#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Checks `beatmap export`/`import` against the formats' own parsers from PyPI: simfile (StepMania),
# slider (osu!), jams (JAMS schema), mido (MIDI) and chartparse (Clone Hero .chart); and compiles the C#
# exports with mono's mcs (Debian mono-mcs, installed by tools/setup.sh). Installs them with pip into a virtual environment under .build/.
# Usage: tools/check-interop.sh   (after `swift build`; set BEATMAP_BIN to use another binary)
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=.build/interop-venv
PACKAGES=("simfile==2.1.1" "slider==0.8.4" "jams==0.3.5" "mido==1.3.3" "chartparse==0.3.1")
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
command -v mcs >/dev/null || { echo "check-interop.sh: mcs not found (tools/setup.sh installs mono-mcs)" >&2; exit 1; }
{
  CS="$(mktemp -d)"
  trap 'rm -rf "$CS"' EXIT
  for map in BeatMaps/*.beatmap.json; do
    name="$(basename "$map" .beatmap.json | tr -c 'A-Za-z0-9\n' '_')"
    "$BIN" export "$map" --csharp-namespace Game.Maps --csharp-class "Map_$name" -o "$CS/$name.cs" --force >/dev/null
  done
  printf 'public static class Program { public static void Main() { } }\n' >"$CS/Program.cs"
  mcs -warnaserror+ -out:"$CS/maps.exe" "$CS"/*.cs
  echo "ok    mcs compiles the C# exports of $(ls BeatMaps/*.beatmap.json | wc -l) maps"
}
