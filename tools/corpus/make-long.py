#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Long tracks for the analyzer's corpus: one constant-tempo song's middle, a whole number of beats,
repeated to 20 and to 60 minutes, stored as FLAC (44.1 kHz 16-bit stereo), the beat grid carried on.

The song is an LMMS demo at 140 BPM (SOURCE): LMMS places every tick at its exact frame (check-timing.py)
and a 140 BPM beat is exactly 18,900 frames at 44.1 kHz, so the repeated grid has no drift at all,
not even below a sample. The loop is LOOP_BARS bars from bar START_BAR (a bar line: a beat); each
join crossfades, over its first 2,048 frames, from the song's own continuation past the loop's end into
the loop's start (both begin with the same beat's onset on the join's frame), so the joins neither
click nor move a beat. The track is cut after a whole number of beats: 2,800 (20:00) and 8,400 (60:00).

    python3 tools/corpus/make-long.py [--force]

Writes corpus/long/NAME.flac, NAME.beats and NAME.downbeats, corpus/long/index.json. Needs flac.
"""
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import corpuslib as cl  # noqa: E402
import numpy as np  # noqa: E402

SOURCE = "lmms/TameAnderson-MakeMe"
BPM = 140.0
PERIOD = 18900  # frames per beat at 140 BPM and 44.1 kHz
START_BAR = 16
LOOP_BARS = 16
FADE = 2048
LENGTHS = {"20min": 2800, "60min": 8400}  # beats


def main(argv):
    force = "--force" in argv
    folder = cl.part_dir("long")
    src = {e["song"]: e for e in cl.read_index("lmms") or []}.get(SOURCE)
    if src is None:
        raise SystemExit(f"long: {SOURCE} is not built (corpus/lmms)")
    assert abs(src["bpm"] - BPM) < 1e-9 and src["kind"] == "constant", src
    rate, x = cl.read_wav(os.path.join(cl.CORPUS, src["path"]))
    pcm = np.round(x * 32768.0).astype(np.int32)  # the source's exact 16-bit samples
    start = START_BAR * 4 * PERIOD
    frames = LOOP_BARS * 4 * PERIOD
    if start + frames + FADE > len(pcm):
        raise SystemExit("long: the source is shorter than the loop")
    loop = pcm[start:start + frames]
    ramp = np.linspace(0.0, 1.0, FADE)[:, None]
    joined = loop.copy()
    joined[:FADE] = np.round(pcm[start + frames:start + frames + FADE] * (1 - ramp) + loop[:FADE] * ramp)
    entries = []
    for name, beats in LENGTHS.items():
        stem = f"{SOURCE.split('/', 1)[1]}-{name}"
        out = os.path.join(folder, stem + ".flac")
        total = beats * PERIOD
        if force or not os.path.exists(out):
            proc = subprocess.Popen(["flac", "-s", "-f", "-5", "--force-raw-format", "--endian=little", "--sign=signed",
                                     "--channels=2", "--bps=16", f"--sample-rate={cl.RATE}", "-o", out + ".part", "-"],
                                    stdin=subprocess.PIPE)
            written = 0
            copy = 0
            while written < total:
                block = loop if copy == 0 else joined
                block = block[:total - written]
                proc.stdin.write(np.clip(block, -32768, 32767).astype("<i2").tobytes())
                written += len(block)
                copy += 1
            proc.stdin.close()
            if proc.wait() != 0:
                raise SystemExit("long: flac failed")
            os.replace(out + ".part", out)
        cl.write_times(os.path.join(folder, stem + ".beats"), [k * PERIOD / cl.RATE for k in range(beats)])
        # The loop starts on a bar line and is whole bars of 4/4 long: every fourth beat is a downbeat.
        cl.write_times(os.path.join(folder, stem + ".downbeats"), [k * PERIOD / cl.RATE for k in range(0, beats, 4)])
        entries.append(cl.entry(f"long/{stem}.flac", "long", SOURCE, "long", f"long/{stem}.beats", None, 4, BPM,
                                source=src["path"], downbeats=f"long/{stem}.downbeats"))
        cl.log(f"long: {stem}.flac: {beats} beats, {total / cl.RATE / 60:.1f} min")
    cl.write_index("long", entries)


if __name__ == "__main__":
    main(sys.argv[1:])
