#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Checks `beatmap export` against the formats' own established parsers, and `beatmap import`
against files those libraries write.

- StepMania (.sm, .ssc): PyPI `simfile`; its timing engine must put every note (one per beat) and
  every whole beat of the tempo map within 1 ms of the map's beats.
- osu! (.osu): PyPI `slider`; the uninherited timing points' grid and the hit objects must match
  the map's beats within 1 ms.
- JAMS (.jams): PyPI `jams`; the file must pass jams' schema validation and hold the beats.
- Imports: a simfile re-serialised by `simfile`, an .osu re-written by `slider` and a JAMS file made
  by `jams` must import to the same beats.

Usage: check_interop.py BEATMAP_BINARY MAP...   (prints 'N passed, M failed'; exit 1 on failure)
"""

import json
import math
import os
import random
import subprocess
import sys
import tempfile

import jams
import simfile
import slider
from simfile.notes import NoteData
from simfile.notes.timed import time_notes
from simfile.timing import Beat, TimingData
from simfile.timing.engine import TimingEngine

TOLERANCE = 0.001
results = {"passed": 0, "failed": 0}


def check(name, ok, detail=""):
    if ok:
        results["passed"] += 1
        print(f"ok    {name}")
    else:
        results["failed"] += 1
        print(f"FAIL  {name}: {detail}")


def worst(a, b):
    if len(a) != len(b):
        return math.inf
    return max((abs(x - y) for x, y in zip(a, b)), default=0.0)


def run(binary, *args):
    done = subprocess.run([binary, *args], capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"beatmap {' '.join(args)} failed ({done.returncode}): {done.stderr.strip()}")
    return done.stdout


def synthetic_maps(folder):
    """A jittered map without a tempo map and a map with a break, written as beat maps."""
    rng = random.Random(7)
    beats, t = [], 0.8
    for i in range(240):
        beats.append(round(t + rng.uniform(-0.008, 0.008), 6))
        t += 0.48 - i * 0.0003
    jittered = {"version": 1, "audio": {"duration": round(t + 1, 6)}, "beats": beats}
    gap = [round(i * 0.5, 6) for i in range(80) if i not in (20, 21, 22, 50)]
    gaps = {"version": 1, "audio": {"duration": 41.0}, "tempo": [{"time": 0.0, "bpm": 120.0, "beatsPerBar": 4}], "beats": gap}
    paths = []
    for name, body in (("jittered", jittered), ("gaps", gaps)):
        path = os.path.join(folder, f"{name}.beatmap.json")
        with open(path, "w") as handle:
            json.dump(body, handle)
        paths.append(path)
    return paths


def check_stepmania(binary, map_path, beats, has_gaps, folder, ext):
    name = os.path.basename(map_path)
    out = os.path.join(folder, f"{name}.{ext}")
    run(binary, "export", map_path, "--format", ext, "-o", out, "--force")
    sim = simfile.open(out)
    chart = sim.charts[0]
    timing = TimingData(sim, chart)
    notes = [float(timed.time) for timed in time_notes(NoteData(chart), timing)]
    check(f"simfile {ext}: notes of {name} on its beats", worst(notes, beats) <= TOLERANCE, f"worst {worst(notes, beats)} s")
    if not has_gaps:
        engine = TimingEngine(timing)
        first = math.ceil(float(next(iter(NoteData(chart))).beat))
        grid = [float(engine.time_at(Beat(first + k, 1))) for k in range(len(beats))]
        check(f"simfile {ext}: tempo grid of {name} on its beats", worst(grid, beats) <= TOLERANCE, f"worst {worst(grid, beats)} s")
    check(f"simfile {ext}: {name} has no #STOPS", not (timing.stops or timing.delays or timing.warps))

    # Import what simfile writes back.
    rewritten = os.path.join(folder, f"{name}.rewritten.{ext}")
    with open(rewritten, "w", encoding="utf-8") as handle:
        sim.serialize(handle)
    mode = "notes" if has_gaps else "grid"
    back = json.loads(run(binary, "import", rewritten, "--format", ext, "--beats", mode, "--duration", "600"))
    check(f"import {ext} written by simfile: {name}", worst(back["beats"], beats) <= TOLERANCE, f"worst {worst(back['beats'], beats)} s")


def check_osu(binary, map_path, beats, has_gaps, folder):
    name = os.path.basename(map_path)
    out = os.path.join(folder, f"{name}.osu")
    run(binary, "export", map_path, "--format", "osu", "-o", out, "--force")
    parsed = slider.Beatmap.from_path(out)
    red = [p for p in parsed.timing_points if p.parent is None]
    check(f"slider osu: {name} has uninherited timing points", len(red) > 0 and all(p.ms_per_beat > 0 for p in red))
    hits = [h.time.total_seconds() for h in parsed.hit_objects()]
    check(f"slider osu: hit objects of {name} on its beats", worst(hits, beats) <= TOLERANCE, f"worst {worst(hits, beats)} s")
    # Every beat lies on the grid of the timing section that holds it.
    worst_grid = 0.0
    for beat in beats:
        section = max((p for p in red if p.offset.total_seconds() <= beat + TOLERANCE), key=lambda p: p.offset, default=red[0])
        start, length = section.offset.total_seconds(), section.ms_per_beat / 1000
        k = round((beat - start) / length)
        worst_grid = max(worst_grid, abs(start + k * length - beat))
    check(f"slider osu: timing points of {name} put a beat within 1 ms of each beat", worst_grid <= TOLERANCE, f"worst {worst_grid} s")

    rewritten = os.path.join(folder, f"{name}.rewritten.osu")
    parsed.write_path(rewritten)
    mode = "notes" if has_gaps else "grid"
    back = json.loads(run(binary, "import", rewritten, "--format", "osu", "--beats", mode, "--duration", "600"))
    check(f"import osu written by slider: {name}", worst(back["beats"], beats) <= TOLERANCE, f"worst {worst(back['beats'], beats)} s")


def check_jams(binary, map_path, beats, duration, folder):
    name = os.path.basename(map_path)
    out = os.path.join(folder, f"{name}.jams")
    run(binary, "export", map_path, "--format", "jams", "-o", out, "--force")
    try:
        loaded = jams.load(out, validate=True, strict=True)
        valid, detail = True, ""
    except Exception as error:  # jams raises SchemaError/ParameterError/ValidationError
        loaded, valid, detail = None, False, str(error)
    check(f"jams: {name} passes schema validation", valid, detail)
    if loaded is None:
        return
    annotation = loaded.search(namespace="beat")[0]
    times = [observation.time for observation in annotation.data]
    check(f"jams: beats of {name}", worst(times, beats) <= 1e-6, f"worst {worst(times, beats)} s")
    check(f"jams: duration of {name}", abs(loaded.file_metadata.duration - duration) <= 1e-6)

    made = jams.JAMS()
    made.file_metadata.duration = duration
    made_annotation = jams.Annotation(namespace="beat", time=0, duration=duration)
    for t in beats:
        made_annotation.append(time=t, duration=0.0, value=None, confidence=None)
    made.annotations.append(made_annotation)
    made_path = os.path.join(folder, f"{name}.made.jams")
    made.save(made_path)
    back = json.loads(run(binary, "import", made_path, "--format", "jams"))
    check(f"import jams written by jams: {name}", worst(back["beats"], beats) <= 1e-6 and back["audio"]["duration"] == duration)


STOPS_SIMFILE = """#TITLE:timing;
#OFFSET:-0.1;
#BPMS:0=120,4=60,8.5=180;
#STOPS:2=0.5,6=0.25;
#DELAYS:3=0.125;
#NOTES:
 dance-single:a:Beginner:1:0,0,0,0,0:
1000
0100
0010
0001
,
1000
0100
0010
0001
,
1000
0000
0100
0000
0010
0000
0001
0000
;
"""


def check_stepmania_timing(binary, folder):
    """Our import of #STOPS, #DELAYS and mid-beat BPM changes agrees with simfile's timing engine."""
    path = os.path.join(folder, "timing.sm")
    with open(path, "w") as handle:
        handle.write(STOPS_SIMFILE)
    sim = simfile.open(path)
    chart = sim.charts[0]
    expected = [float(timed.time) for timed in time_notes(NoteData(chart), TimingData(sim, chart))]
    back = json.loads(run(binary, "import", path, "--beats", "notes", "--duration", "60"))
    check("import sm with stops, delays and BPM changes: simfile's note times", worst(back["beats"], expected) <= 1e-6,
          f"ours {back['beats']} simfile {expected}")


def main():
    if len(sys.argv) < 2:
        print(__doc__)
        return 2
    binary = sys.argv[1]
    with tempfile.TemporaryDirectory(prefix="beatmap-interop-") as folder:
        check_stepmania_timing(binary, folder)
        maps = sys.argv[2:] + synthetic_maps(folder)
        for map_path in maps:
            with open(map_path) as handle:
                body = json.load(handle)
            beats = body["beats"]
            has_gaps = os.path.basename(map_path).startswith("gaps")
            for ext in ("sm", "ssc"):
                check_stepmania(binary, map_path, beats, has_gaps, folder, ext)
            check_osu(binary, map_path, beats, has_gaps, folder)
            check_jams(binary, map_path, beats, body["audio"]["duration"], folder)
    print(f"interop: {results['passed']} passed, {results['failed']} failed")
    return 1 if results["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
