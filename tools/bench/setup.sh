#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Installs what the analyzer benchmarks need (Debian + PyPI): aubiotrack (the peer), oggenc (the Ogg
# test file), GNU time (peak RSS), Hydrogen and its demo songs (the drum-machine corpus), mir_eval.
set -euo pipefail
PACKAGES=(aubio-tools vorbis-tools time hydrogen hydrogen-data python3-pip)
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
missing=()
for p in "${PACKAGES[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ "${#missing[@]}" -gt 0 ]; then
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
python3 -c "import mir_eval, numpy" 2>/dev/null || python3 -m pip install -q numpy mir_eval
