#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Time-warped copies of a folder of songs with beat truth (Freedoom's songs, tools/learned/songs.py's
composed songs), for a scratch set of the adoption rule's train split (tools/bench/trial maps --also,
compare --scratch).

The corpus's parts `warped` and `rewarped` give followed music from 49 songs, 32 of them in the
train split; the beat-by-beat path (docs/analyze.md, steps 4-6) is where the analysis is weakest
and those 96 train files are all it has been tuned on. This script puts other songs under the same
three warps (corpuslib.warp_keyframes: drift, +-3 % over 30 s; ramp, +8 % over the song; step, +9 %
from the beat nearest the middle), with the same rubberband command (R3 engine, short window) and the
truth (.beats, .downbeats) carried through the same key-frame map, as tools/corpus/make-warped.py
does for the corpus.

Only songs of the train split are warped unless `--split validation` is given: Freedoom's by its
index's `split`, the composed songs of even number (the odd ones are the composed bench's held-out
half). Every song gets all three warps. The validation copies are a held-out set for the followed
path (tools/bench/trial compare --scratch-validation): never look at their maps while tuning.

    python3 tools/corpus/make-warped-songs.py corpus/freedoom /tmp/warped-freedoom [--jobs 2] [--force]
    python3 tools/corpus/make-warped-songs.py tools/learned/out/songs /tmp/warped-songs
    python3 tools/corpus/make-warped-songs.py corpus/freedoom /tmp/warped-freedoom-v --split validation

Writes OUT/SONG-WARP.wav (44.1 kHz 16-bit, as its source), .beats and .downbeats (where the source
has them). A file already there is kept unless --force; each is written under a temporary name and
renamed, so an interrupted run leaves no half-written file.
"""
import argparse
import json
import os
import sys
import wave
from concurrent.futures import ThreadPoolExecutor

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import corpuslib as cl  # noqa: E402


def split_songs(folder, wanted="train"):
    """The index entries of `folder`'s songs of the split `wanted` that have a beat truth."""
    path = os.path.join(folder, "index.json")
    try:
        with open(path) as fh:
            songs = json.load(fh)["songs"]
    except (OSError, ValueError, KeyError) as error:
        raise SystemExit(f"make-warped-songs: {path}: not a readable song index ({error})")
    result = []
    for song in songs:
        if wanted in (cl.song_split(song), "all") and song.get("beats"):
            result.append(song)
    return sorted(result, key=lambda s: s["song"])


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("folder", help="a folder with index.json, the songs and their .beats")
    parser.add_argument("out", help="the folder to write the warped copies to")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--force", action="store_true")
    parser.add_argument("--split", choices=["train", "validation", "all"], default="train",
                        help="which split's songs to warp (default: train; all: every song, for a folder "
                             "of fresh songs that belongs to no split)")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    work = []
    for song in split_songs(args.folder, args.split):
        source = os.path.join(args.folder, song["path"])
        try:
            with wave.open(source) as audio:
                rate = audio.getframerate()
        except (OSError, EOFError, wave.Error) as error:
            raise SystemExit(f"make-warped-songs: {source}: not a readable WAV file ({str(error) or 'no RIFF/WAVE header'})")
        if rate != cl.RATE:
            raise SystemExit(f"make-warped-songs: {source}: {rate} Hz; the warps' key frames are counted at {cl.RATE} Hz")
        duration = cl.wav_duration(source)
        try:
            beats = cl.read_times(os.path.join(args.folder, song["beats"]))
        except (OSError, ValueError) as error:
            raise SystemExit(f"make-warped-songs: {song['beats']}: not a readable list of beat times ({error})")
        for kind in cl.WARPS:
            step_at = min(beats, key=lambda b: abs(b - duration / 2)) if kind == "step" and beats else None
            keys = cl.keyframes_to_frames(cl.warp_keyframes(kind, duration, step_at))
            stem = f"{song['song']}-{kind}"
            wav = os.path.join(args.out, stem + ".wav")
            if args.force or not os.path.exists(wav):
                work.append((stem, source, wav, keys, int(round(duration * cl.RATE))))
            # The truth through the same map, cut at the copy's end (its length is the map's).
            end = keys[-1][1] / cl.RATE
            cl.write_times(os.path.join(args.out, stem + ".beats"),
                           [t for t in cl.map_times(keys, beats) if t < end])
            if song.get("downbeats"):
                downbeats = cl.read_times(os.path.join(args.folder, song["downbeats"]))
                cl.write_times(os.path.join(args.out, stem + ".downbeats"),
                               [t for t in cl.map_times(keys, downbeats) if t < end])

    def run(job):
        stem, source, wav, keys, total = job
        cl.warp_file(source, wav, keys, total)
        return stem

    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
        for done, stem in enumerate(pool.map(run, work), 1):
            cl.log(f"warped songs [{done}/{len(work)}] {stem}")


if __name__ == "__main__":
    main()
