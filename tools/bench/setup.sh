#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Installs what the analyzer benchmarks need (Debian + PyPI): aubiotrack (the peer), oggenc (the Ogg
# test file), GNU time (peak RSS), Hydrogen and its demo songs (the drum-machine corpus), mir_eval.
set -euo pipefail
bash "$(dirname "$0")/../setup.sh" aubio-tools vorbis-tools time hydrogen hydrogen-data python3-pip lmms fluidsynth fluid-soundfont-gm openttd-openmsx rubberband-cli espeak-ng flac mpg123
python3 -c "import mir_eval, numpy" 2>/dev/null || python3 -m pip install -q numpy mir_eval
