#!/usr/bin/env bash
# Installs the system packages BeatMapKit needs (Debian/Ubuntu; run as root or with sudo).
# On macOS: brew install libsndfile aubio portaudio pkg-config
set -euo pipefail
PACKAGES=(
  pkg-config
  libsndfile1-dev   # CSndfile: decoding (LGPL-2.1)
  libaubio-dev      # CAubio: onset/tempo detection (GPL-3.0)
  portaudio19-dev   # CPortAudio: realtime preview output (MIT-style)
  python3           # tools/hostile-audio.py runs the hostile audio corpus in CI
  sox               # tools/hostile-audio.py and tools/fuzz/make-seeds.sh synthesise audio with it
)
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
