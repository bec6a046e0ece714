#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Everything `tools/bench/trial` reads, built on a fresh machine in one command: the packages, the
# peers' venv, the corpus (tools/corpus/build.py), the composed songs, Freedoom's songs, the tracker
# modules, Frets on Fire, the game music, the two train scratch sets of warped copies
# (the even composed songs' and Freedoom's) and the composed songs warped through their MIDI tempo
# maps (tools/corpus/make-tempo-warps.py: the even songs' a train scratch set, the odd songs' a
# validation one) under SCRATCH. Each step prints its start, end and exit
# status; the script stops at the first step that fails. Most steps skip what is already built
# (the tracker modules are made again), so it can be run again after an interruption.
#
#     tools/bench/trial-sets.sh SCRATCH [--fresh FIRST]   # --fresh: also songs FIRST..FIRST+89,
#                                                       # never composed before, and their warped
#                                                       # copies, as SCRATCH/fresh-FIRST{,-warped}
#     tools/bench/trial-sets.sh --dry-run SCRATCH ...     # print the steps, run nothing
#
# About 2 h 20 min on a 2-core machine (the corpus 1 h, the composed songs 16 min, the warped copies
# 19 min, the tempo-map copies 24 min); the held-out set adds about 13 min. A trial then runs
#     tools/bench/trial maps BIN DIR --also SCRATCH/warped-songs --also SCRATCH/warped-freedoom \
#         --also SCRATCH/tempo-warped-songs --also SCRATCH/tempo-warped-songs-v
#     tools/bench/trial compare BASE NEW --scratch SCRATCH/warped-songs --scratch SCRATCH/warped-freedoom \
#         --scratch SCRATCH/tempo-warped-songs
# and, once a change has passed train, `--validation --scratch-validation SCRATCH/tempo-warped-songs-v`.
# (tools/bench/README.md, `tools/bench/trial`).
set -euo pipefail

dry_run=false
if [[ "${1:-}" == "--dry-run" ]]; then
    dry_run=true
    shift
fi
if [[ $# -lt 1 || "$1" == -* ]]; then
    echo "usage: tools/bench/trial-sets.sh [--dry-run] SCRATCH [--fresh FIRST]" >&2
    exit 2
fi
scratch=$(realpath -m -- "$1")  # before the cd below, so a relative path is the caller's
shift
fresh=""
if [[ $# -gt 0 ]]; then
    if [[ "$1" != "--fresh" || $# -ne 2 || ! "$2" =~ ^[0-9]+$ ]]; then
        echo "trial-sets.sh: --fresh takes the first song's index (a whole number), got: $*" >&2
        exit 2
    fi
    fresh=$2
fi

cd "$(dirname "$0")/../.."
python=tools/learned/out/venv/bin/python3

step() {
    if $dry_run; then
        echo "$*"
        return
    fi
    echo "=== $(date +%T) $*"
    local status=0
    "$@" || status=$?
    echo "=== $(date +%T) exit $status: $*"
    if [[ $status -ne 0 ]]; then
        echo "trial-sets.sh: the step above failed (exit $status); the sets after it are not built" >&2
        exit "$status"
    fi
}

$dry_run || mkdir -p "$scratch"
step bash tools/bench/setup.sh
step bash tools/setup.sh musescore-general-soundfont-small csound-soundfont freedoom libopenmpt0 \
    fretsonfire-songs-muldjord fretsonfire-songs-sectoid extremetuxracer-data hedgewars-data sox \
    libsox-fmt-mp3 lame flac
step bash tools/bench/peers-setup.sh
step bash tools/learned/setup.sh
step swift build -c release --product beatmap
step python3 tools/corpus/build.py
step "$python" tools/learned/songs.py
step python3 tools/corpus/make-freedoom.py
step python3 tools/corpus/make-warped-songs.py tools/learned/out/songs "$scratch/warped-songs"
step python3 tools/corpus/make-warped-songs.py corpus/freedoom "$scratch/warped-freedoom"
step "$python" tools/corpus/make-tempo-warps.py tools/learned/out/songs "$scratch/tempo-warped-songs"
step "$python" tools/corpus/make-tempo-warps.py tools/learned/out/songs "$scratch/tempo-warped-songs-v" \
    --split validation
step python3 tools/corpus/make-modules.py
step python3 tools/corpus/make-fof.py
step python3 tools/corpus/make-games.py
if [[ -n "$fresh" ]]; then
    step "$python" tools/learned/songs.py --first "$fresh" --count 90 --out "$scratch/fresh-$fresh"
    step python3 tools/corpus/make-warped-songs.py "$scratch/fresh-$fresh" "$scratch/fresh-$fresh-warped" \
        --split all
fi
$dry_run || echo "=== $(date +%T) every set built under $scratch and the repository's corpus/"
