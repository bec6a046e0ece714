#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Renders Debian's Hydrogen demo songs into the analyzer's corpus, with ground truth from the songs.

For every *.h2song in Hydrogen's demo folder (Debian packages hydrogen + hydrogen-data), renders
corpus/hydrogen/NAME.wav headless with `h2cli -s SONG -o OUT.wav` (QT_QPA_PLATFORM=offscreen) and
writes NAME.beats: one quarter-note beat per line at the song's <bpm>, from 0 s to the end of the
song's pattern sequence (Hydrogen counts 48 ticks per quarter note; a group lasts as long as its
longest pattern). Songs with a tempo timeline are skipped (their ground truth is not one tempo).

Six of the seven demo songs have Hydrogen's "humanize" on (<humanize_time>, <humanize_velocity>): at
render time each note is moved and its velocity changed at random, unseeded, so every render differs
(two renders of GM_kit_Jazzy: different files) and the notes no longer sit on the song's grid, which
is the truth. Each song is rendered from a temporary copy with both set to 0: the truth is then exact
and a rebuilt corpus gives the same files. Swing (a song's own, deterministic) is kept; it moves only
the notes between the beats.

    python3 tools/corpus/render-hydrogen.py [OUT_DIR]       # default: corpus/hydrogen
"""
import glob
import os
import re
import subprocess
import sys
import tempfile
import wave
import xml.etree.ElementTree as ET

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SONGS = "/usr/share/hydrogen/data/demo_songs"
TICKS_PER_BEAT = 48


def ground_truth(song_path):
    """(bpm, beats in the song) or None when the song changes tempo."""
    root = ET.parse(song_path).getroot()
    bpm = float(root.findtext("bpm"))
    timeline = root.find("timeline")
    if timeline is not None and len(timeline.findall(".//bpm")) > 1:
        return None
    sizes = {}
    for pattern in root.iter("pattern"):
        name = pattern.findtext("name") or pattern.findtext("pattern_name")
        size = pattern.findtext("size")
        if name is not None and size is not None:
            sizes[name] = int(size)
    ticks = 0
    for group in root.find("patternSequence").findall("group"):
        ids = [p.text for p in group.findall("patternID")]
        ticks += max((sizes.get(i, 192) for i in ids), default=192)
    return bpm, ticks // TICKS_PER_BEAT


def main(argv):
    folder = argv[0] if argv else os.path.join(ROOT, "corpus", "hydrogen")
    os.makedirs(folder, exist_ok=True)
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    for song in sorted(glob.glob(os.path.join(SONGS, "*.h2song"))):
        name = re.sub(r"[^A-Za-z0-9_-]+", "-", os.path.basename(song)[: -len(".h2song")])
        truth = ground_truth(song)
        if truth is None:
            print(f"{name}: tempo timeline, skipped", file=sys.stderr)
            continue
        bpm, beats = truth
        out = os.path.join(folder, name + ".wav")
        if not os.path.exists(out):
            with open(song, encoding="utf-8") as f:
                text = f.read()
            steady = re.sub(r"<(humanize_time|humanize_velocity)>[^<]*</\1>", r"<\1>0</\1>", text)
            with tempfile.TemporaryDirectory() as scratch:
                copy = os.path.join(scratch, os.path.basename(song))
                with open(copy, "w", encoding="utf-8") as f:
                    f.write(steady)
                subprocess.run(["h2cli", "-s", copy, "-o", out], env=env, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL, timeout=600, check=True)
        with wave.open(out) as audio:
            duration = audio.getnframes() / audio.getframerate()
        period = 60.0 / bpm
        with open(os.path.join(folder, name + ".beats"), "w") as f:
            for k in range(beats):
                if k * period < duration - 0.05:
                    f.write(f"{k * period:.6f}\n")
        print(f"{name}: {bpm} BPM, {beats} beats, {duration:.1f} s", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1:])
