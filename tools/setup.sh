#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Installs the system libraries BeatMapKit links (and the tools its tests use).
# Debian/Ubuntu: apt-get (as root, or through sudo). macOS: Homebrew.
# Extra Debian package names given as arguments are installed too (tools/bench/setup.sh uses that).
set -euo pipefail
if [ "$(uname)" = "Darwin" ]; then
  brew install pkg-config libsndfile libsoxr aubio portaudio openssl@3 lame
  exit 0
fi
PACKAGES=(
  pkg-config
  libsndfile1-dev   # CSndfile: decoding (LGPL-2.1)
  libsoxr-dev       # CSoxr: resampling to the analysis rate (LGPL-2.1+)
  libaubio-dev      # CAubio: onset/tempo detection (GPL-3.0)
  portaudio19-dev   # CPortAudio: realtime preview output (MIT-style)
  libssl-dev        # CCrypto: SHA-256 of audio files with OpenSSL's libcrypto (Apache-2.0)
  jackd2            # tests: JACK's dummy backend, a paced virtual output device for `beatmap preview`
  tmux              # tests: drives `beatmap preview`'s terminal interface
  sox               # tools/bench (render peer), tools/hostile-audio.py, tools/fuzz/make-seeds.sh
  libsox-fmt-mp3    # tools/hostile-audio.py: sox writes its truncated MP3s through it
  lame              # tests: MP3s with and without LAME's gapless tag
  python3           # tools/hostile-audio.py runs the hostile audio corpus in CI
  chromium          # tools/check-studio.sh: the studio page in a headless browser
  chromium-driver   # tools/check-studio.sh: WebDriver for it (selenium, from PyPI)
  mono-mcs          # tests and tools/check-interop.sh: compile the C# export (mcs, mono)
)
PACKAGES+=("$@")
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
