#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Every `beatmap edit` operation on every map in some folders: which ones the editor refuses, and why.

A mapper runs `edit` on the maps `analyze` wrote, whatever their shape: one grid, tempo segments,
followed beats (a segment per beat). An edit that gives a map its own validator rejects is refused
("not saved — the edited map fails validation"): safe, but the edit the user asked for did not happen.
Session 98 found 352 such refusals in 1,911 edits of the 147 warped copies' maps (`--shift-bar` and
`--beats-per-bar` on followed maps, `--metric` across tempo changes, `--nudge` before a first beat at
0 s). This script runs the operations on a copy of each map and sorts the refusals:

  range    the new level's tempo outside the 20–400 BPM a map may have (what the user asked for is
           not a map; the message says so)
  failed   anything else: the edit gave an invalid map, or crashed

Besides the fixed operations, each map gets three at its middle beat (MID): `--beats-per-bar 3 --at`,
`--shift-bar 1 --at` and `--tempo` 1 % faster than the beat there `--at` it.

    python3 tools/check-edits.py BEATMAP FOLDER... [--list] [--jobs N]

Exit status 1 when any edit failed, 0 otherwise. Nothing is written beside the maps.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

import map_sweep

OPERATIONS = [
    ["--shift-bar", "1"], ["--shift-bar", "-1"], ["--shift-bar", "2"],
    ["--beats-per-bar", "3"], ["--beats-per-bar", "4"],
    ["--metric", "x2"], ["--metric", "1/2"], ["--metric", "2/3"], ["--metric", "3/2"],
    ["--nudge", "12"], ["--nudge", "-12"], ["--trim", "10", "40"], ["--shift-beats", "1/2"],
]


def at_operations(path):
    """The operations on the tempo at a time (session 100): at the map's middle beat, the meter and
    bar phase of the tempo playing there, and that tempo tapped 1 % faster through that beat."""
    with open(path, encoding="utf-8") as file:
        beats = json.load(file).get("beats") or []
    if len(beats) < 3:
        return []
    middle = len(beats) // 2
    at = f"{beats[middle]:.6f}"
    bpm = 60 / (beats[middle + 1] - beats[middle]) * 1.01
    return [("--beats-per-bar 3 --at MID", ["--beats-per-bar", "3", "--at", at]),
            ("--shift-bar 1 --at MID", ["--shift-bar", "1", "--at", at]),
            ("--tempo 1.01x --at MID", ["--tempo", f"{bpm:.3f}", "--at", at])]


def run(binary, path):
    """The refusals of every operation on the map at `path`: (operation, kind, message) each."""
    refusals = []
    with tempfile.TemporaryDirectory(prefix="check-edits-") as folder:
        copy = os.path.join(folder, "map.beatmap.json")
        for name, operation in [(" ".join(op), op) for op in OPERATIONS] + at_operations(path):
            shutil.copyfile(path, copy)
            done = subprocess.run([binary, "edit", copy, *operation, "--no-backup"],
                                  capture_output=True, text=True)
            if done.returncode == 0:
                continue
            lines = [line for line in done.stderr.splitlines() if "error" in line] or [done.stderr.strip()]
            message = lines[0].replace(copy, os.path.basename(path))
            kind = "range" if "BPM a map may have" in message else "failed"
            refusals.append((name, kind, message))
    return refusals


def main():
    args = map_sweep.parser(__doc__, "list every refusal").parse_args()
    maps, counts = map_sweep.sweep(args, "check-edits.py", lambda path: run(args.binary, path))
    ranged = sum(n for (_, kind), n in counts.items() if kind == "range")
    return map_sweep.summary(maps, "edits", len(OPERATIONS) + 3, counts, failing=lambda kind: kind == "failed",
                             also=f", {ranged} refused as outside 20–400 BPM")


if __name__ == "__main__":
    sys.exit(main())
