#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Checks `beatmap export` against the formats' own established parsers, and `beatmap import`
against files those libraries write.

- StepMania (.sm, .ssc): PyPI `simfile`; its timing engine must put every note (one per beat) and
  every whole beat of the tempo map within 1 ms of the map's beats.
- osu! (.osu): PyPI `slider`; the uninherited timing points' grid and the hit objects must match
  the map's beats within 1 ms.
- JAMS (.jams): PyPI `jams`; the file must pass jams' schema validation and hold the beats.
- Bars: for maps that give them (the demo maps and synthesised songs with pickups, 3/4 and tempo
  changes), StepMania's measure 0 starts a bar (every downbeat on a measure line in 4/4), and osu!'s
  uninherited timing points sit on downbeats (or are partial measures up to one) so that every bar
  line osu! draws is a downbeat.
- MIDI (.mid): PyPI `mido`; the beat times recomputed by mido's `tick2second` from the exported tempo
  track must be within 0.5 ms of the map's beats.
- Clone Hero .chart: PyPI `chartparse`; its tempo events and the beat times its `timestamp_at_tick`
  gives must be within 0.5 ms of the map's beats.
- Imports: a simfile re-serialised by `simfile`, an .osu re-written by `slider`, a JAMS file made
  by `jams`, our MIDI export re-saved by `mido` must import to the same beats; a MIDI file `mido`
  writes with three tempo changes and a 3/4 section must import to its own beats within 0.1 ms.

Usage: check_interop.py BEATMAP_BINARY MAP...   (prints 'N passed, M failed'; exit 1 on failure)
"""

import json
import math
import os
import random
import subprocess
import sys
import tempfile

import chartparse.chart
import jams
import mido
import simfile
import slider
from simfile.notes import NoteData
from simfile.notes.timed import time_notes
from simfile.timing import Beat, TimingData
from simfile.timing.engine import TimingEngine

TOLERANCE = 0.001
TEMPO_MAP_TOLERANCE = 0.0005
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


def bar_positions(body):
    """0-based bar positions of the map's beats (None where it gives none), as BarPositions defines them."""
    segments = sorted(body.get("tempo") or [], key=lambda s: s["time"])
    positions, last = [], None
    for beat in body["beats"]:
        covering = [s for s in segments if s["time"] <= beat]
        segment = covering[-1] if covering else (segments[0] if segments else None)
        position = None
        if segment and segment.get("beatsPerBar"):
            per_bar = segment["beatsPerBar"]
            position = round((beat - segment["time"]) * segment["bpm"] / 60) % per_bar
            last = (position, per_bar)
        elif segment and last:
            position = (last[0] + 1) % last[1]
            last = (position, last[1])
        positions.append(position)
    return positions


def meter(body):
    """The map's beats per bar when its segments agree on one, else None."""
    meters = {s["beatsPerBar"] for s in body.get("tempo") or [] if s.get("beatsPerBar")}
    return meters.pop() if len(meters) == 1 else None


def bar_maps(folder):
    """Corpus-like songs with bars: pickups of one to three beats, 3/4, and tempo changes at and inside bars."""
    def song(name, per_bar, pickup, bpms, bars_per_section=6):
        beats, tempo, t = [], [], 0.37
        count = 0
        for section, bpm in enumerate(bpms):
            length = 60 / bpm
            start = t
            n = (pickup if section == 0 else 0) + per_bar * bars_per_section + (1 if section == 1 else 0)
            for k in range(n):
                beats.append(round(t, 6))
                t += length
            segment = {"time": round(start + (pickup * length if section == 0 else 0), 6), "bpm": bpm}
            # A section that starts on a downbeat says so; one that starts inside a bar counts on.
            if section == 0 or (count - pickup) % per_bar == 0:
                segment["beatsPerBar"] = per_bar
            tempo.append(segment)
            count += n
        body = {"version": 1, "audio": {"duration": round(t + 1, 6)}, "tempo": tempo, "beats": beats}
        path = os.path.join(folder, f"{name}.beatmap.json")
        with open(path, "w") as handle:
            json.dump(body, handle)
        return path
    return [
        song("bars-pickup1", 4, 1, [124.0]),
        song("bars-pickup3", 4, 3, [97.5, 131.0]),
        song("bars-waltz-pickup2", 3, 2, [150.0]),
        song("bars-waltz-change", 3, 0, [90.0, 112.0, 101.0]),
    ]


def check_stepmania_bars(map_path, body, sim, ext):
    """Measure 0 starts on a downbeat: the first downbeat is a whole number of bars after beat 0, and in
    4/4 every downbeat is on a measure line."""
    per_bar = meter(body)
    positions = bar_positions(body)
    downbeats = [b for b, p in zip(body["beats"], positions) if p == 0]
    if not per_bar or not downbeats:
        return
    name = os.path.basename(map_path)
    engine = TimingEngine(TimingData(sim, sim.charts[0]))
    beats = [float(engine.beat_at(t)) for t in downbeats]
    first = beats[0]
    check(f"simfile {ext}: measure 0 of {name} starts a bar (first downbeat at beat {first:.3f})",
          abs(first - round(first)) < 0.01 and round(first) % per_bar == 0)
    if per_bar == 4:
        off = [b for b in beats if abs(b / 4 - round(b / 4)) > 0.01]
        check(f"simfile {ext}: every downbeat of {name} on a measure line", not off, f"off: {off[:3]}")


def check_osu_bars(map_path, body, text, parsed):
    """Every uninherited timing point is on a downbeat with the map's meter, or is a partial measure
    (omit first bar line) up to one; every bar line osu! draws is on a downbeat."""
    positions = bar_positions(body)
    downbeats = [b for b, p in zip(body["beats"], positions) if p == 0]
    if not downbeats:
        return
    name = os.path.basename(map_path)
    section = ""
    points = []
    for line in text.splitlines():
        if line.startswith("["):
            section = line
        elif section == "[TimingPoints]" and line.strip():
            fields = line.split(",")
            if fields[6] == "1":
                points.append((float(fields[0]) / 1000, float(fields[1]) / 1000, int(fields[2]), int(fields[7]) & 8))
    red = [p for p in parsed.timing_points if p.parent is None]
    check(f"slider osu: {name} reads the same timing points", len(red) == len(points))
    # The downbeat at or before the first beat: counted back over the map's beats from its first
    # downbeat, then on before the first beat at its first interval (a followed map's beats are not
    # one tempo's, so its first segment's BPM would put it a few milliseconds off).
    beats = body["beats"]
    meter = meter_of(body, 0)
    first_index = next(i for i, p in enumerate(positions) if p == 0)
    covering = [t for t in sorted(body.get("tempo") or [], key=lambda t: t["time"]) if t["time"] <= beats[first_index] + 1e-9]
    meter = (covering[-1].get("beatsPerBar") if covering else None) or meter
    while first_index - meter >= 0:
        first_index -= meter
    first_bar = beats[first_index]
    if first_index > 0 and len(beats) > 1:
        first_bar = beats[0] - (meter - first_index) * (beats[1] - beats[0])
    on_downbeat = lambda t: any(abs(t - d) <= 0.0015 for d in downbeats) or abs(t - first_bar) <= 0.0015
    bad_points, bad_lines = [], []
    end = body["beats"][-1]
    for index, (start, length, per_bar, partial) in enumerate(points):
        if not partial and not on_downbeat(start):
            bad_points.append(start)
        stop = points[index + 1][0] if index + 1 < len(points) else end
        k = 1 if partial else 0
        while start + k * per_bar * length < stop - 0.002:
            line_time = start + k * per_bar * length
            if body["beats"][0] - 0.002 <= line_time <= end + 0.002 and not on_downbeat(line_time):
                bad_lines.append(round(line_time, 4))
            k += 1
    check(f"slider osu: timing points of {name} on downbeats", not bad_points, f"off: {bad_points[:3]}")
    check(f"slider osu: bar lines of {name} on downbeats", not bad_lines, f"off: {bad_lines[:3]}")


def meter_of(body, index):
    return (body.get("tempo") or [{}])[index].get("beatsPerBar") or 4


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
    if not has_gaps:
        with open(map_path) as handle:
            check_stepmania_bars(map_path, json.load(handle), sim, ext)

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
    if not has_gaps:
        with open(map_path) as handle, open(out) as text:
            check_osu_bars(map_path, json.load(handle), text.read(), parsed)

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


def grid_check(name, grid, beats, has_gaps, what):
    """Every map beat on the file's beat grid (with gaps: each beat near some grid beat)."""
    if has_gaps:
        off = max((min(abs(g - b) for g in grid) for b in beats), default=0.0)
        check(f"{what}: every beat of {name} on the tempo map", off <= TEMPO_MAP_TOLERANCE, f"worst {off} s")
    else:
        check(f"{what}: beats of {name} from the tempo map", worst(grid, beats) <= TEMPO_MAP_TOLERANCE, f"worst {worst(grid, beats)} s")


def midi_tick_times(midi_file):
    """(tick → seconds) over the merged tracks, mido's own arithmetic: tick2second per tempo span."""
    tempos = [(0, 500000)]
    markers = {}
    tick = 0
    for message in mido.merge_tracks(midi_file.tracks):
        tick += message.time
        if message.type == "set_tempo":
            if tempos[-1][0] == tick:
                tempos[-1] = (tick, message.tempo)
            else:
                tempos.append((tick, message.tempo))
        elif message.type == "marker":
            markers.setdefault(message.text, tick)
    def time_of(target):
        seconds = 0.0
        for index, (start, tempo) in enumerate(tempos):
            end = tempos[index + 1][0] if index + 1 < len(tempos) else None
            if end is not None and end < target:
                seconds += mido.tick2second(end - start, midi_file.ticks_per_beat, tempo)
            else:
                return seconds + mido.tick2second(target - start, midi_file.ticks_per_beat, tempo)
        return seconds
    return time_of, markers, len(tempos)


def check_midi(binary, map_path, beats, has_gaps, folder):
    name = os.path.basename(map_path)
    out = os.path.join(folder, f"{name}.mid")
    run(binary, "export", map_path, "-o", out, "--force")
    parsed = mido.MidiFile(out)
    time_of, markers, tempo_count = midi_tick_times(parsed)
    first, last = markers.get("beatmap first beat"), markers.get("beatmap last beat")
    check(f"mido midi: {name} has first/last beat markers and tempo events", first is not None and last is not None and tempo_count >= 1)
    if first is None or last is None:
        return
    step = parsed.ticks_per_beat
    grid = [time_of(tick) for tick in range(first, last + 1, step)]
    grid_check(name, grid, beats, has_gaps, "mido midi")
    # Our export re-saved by mido imports to the same beats.
    rewritten = os.path.join(folder, f"{name}.rewritten.mid")
    parsed.save(rewritten)
    back = json.loads(run(binary, "import", rewritten, "--duration", "600"))
    if has_gaps:
        off = max((min(abs(g - b) for g in back["beats"]) for b in beats), default=0.0)
        check(f"import midi re-saved by mido: {name}", off <= TEMPO_MAP_TOLERANCE, f"worst {off} s")
    else:
        check(f"import midi re-saved by mido: {name}", worst(back["beats"], beats) <= TEMPO_MAP_TOLERANCE, f"worst {worst(back['beats'], beats)} s")


def check_midi_written_by_mido(binary, folder):
    """A DAW-like file from mido: 4/4 at 120, 100 BPM at bar 3, 3/4 at 90 BPM at bar 5, 4/4 at 140 BPM
    four bars later, a note track; our import must give the file's own beats within 0.1 ms."""
    ppq = 480
    song = mido.MidiFile(type=1, ticks_per_beat=ppq)
    conductor = mido.MidiTrack()
    conductor.append(mido.MetaMessage("time_signature", numerator=4, denominator=4, time=0))
    conductor.append(mido.MetaMessage("set_tempo", tempo=mido.bpm2tempo(120), time=0))
    conductor.append(mido.MetaMessage("set_tempo", tempo=mido.bpm2tempo(100), time=8 * ppq))
    conductor.append(mido.MetaMessage("time_signature", numerator=3, denominator=4, time=8 * ppq))
    conductor.append(mido.MetaMessage("set_tempo", tempo=mido.bpm2tempo(90), time=0))
    conductor.append(mido.MetaMessage("time_signature", numerator=4, denominator=4, time=12 * ppq))
    conductor.append(mido.MetaMessage("set_tempo", tempo=mido.bpm2tempo(140), time=0))
    conductor.append(mido.MetaMessage("end_of_track", time=16 * ppq))
    notes = mido.MidiTrack()
    for _ in range(44):
        notes.append(mido.Message("note_on", note=60, velocity=100, time=0))
        notes.append(mido.Message("note_off", note=60, velocity=0, time=ppq))
    song.tracks += [conductor, notes]
    path = os.path.join(folder, "mido-tempo-changes.mid")
    song.save(path)
    time_of, _, _ = midi_tick_times(mido.MidiFile(path))
    expected = [time_of(tick) for tick in range(0, 44 * ppq + 1, ppq)]
    back = json.loads(run(binary, "import", path))
    check("import midi written by mido (three tempo changes, 3/4): beats within 0.1 ms", worst(back["beats"], expected) <= 0.0001, f"worst {worst(back['beats'], expected)} s")
    meters = [segment.get("beatsPerBar") for segment in back.get("tempo", [])]
    check("import midi written by mido: meters 4, 4, 3, 4", meters == [4, 4, 3, 4], f"{meters}")


def check_chart(binary, map_path, beats, has_gaps, folder):
    name = os.path.basename(map_path)
    out = os.path.join(folder, f"{name}.chart")
    run(binary, "export", map_path, "-o", out, "--force")
    chart = chartparse.chart.Chart.from_filepath(out)
    sync = chart.sync_track
    check(f"chartparse chart: {name} has tempo and time-signature events", len(sync.bpm_events) >= 1 and len(sync.time_signature_events) >= 1)
    texts = {event.value: event.tick for event in chart.global_events_track.text_events}
    first, last = texts.get("beatmap_first_beat"), texts.get("beatmap_last_beat")
    check(f"chartparse chart: {name} has first/last beat events", first is not None and last is not None)
    if first is None or last is None:
        return
    resolution = chart.metadata.resolution
    grid = [sync.bpm_events.timestamp_at_tick_no_optimize_return(tick).total_seconds() for tick in range(first, last + 1, resolution)]
    grid_check(name, grid, beats, has_gaps, "chartparse chart")
    # Each tempo event's time, as chartparse computes it, lies on the map's time line within 0.5 ms.
    times = [event.timestamp.total_seconds() for event in sync.bpm_events if event.tick >= first]
    on_grid = all(min(abs(t - g) for g in grid) <= TEMPO_MAP_TOLERANCE for t in times)
    check(f"chartparse chart: tempo events of {name} on beats", on_grid)


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
        check_midi_written_by_mido(binary, folder)
        maps = sys.argv[2:] + synthetic_maps(folder) + bar_maps(folder)
        for map_path in maps:
            with open(map_path) as handle:
                body = json.load(handle)
            beats = body["beats"]
            has_gaps = os.path.basename(map_path).startswith("gaps")
            for ext in ("sm", "ssc"):
                check_stepmania(binary, map_path, beats, has_gaps, folder, ext)
            check_osu(binary, map_path, beats, has_gaps, folder)
            check_jams(binary, map_path, beats, body["audio"]["duration"], folder)
            check_midi(binary, map_path, beats, has_gaps, folder)
            check_chart(binary, map_path, beats, has_gaps, folder)
    print(f"interop: {results['passed']} passed, {results['failed']} failed")
    return 1 if results["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
