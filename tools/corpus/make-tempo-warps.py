#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Tempo-warped copies of composed MIDI songs, played by the synthesizer itself: the three warps of
make-warped-songs.py (corpuslib.warp_factor: drift, tempo x (1 + 0.03 sin(2 pi s / 30 s)); ramp,
+8 % over the song; step, +9 % from the beat nearest the middle) written into each song's MIDI tempo
map and rendered by fluidsynth, instead of stretching the rendered audio with rubberband.

Why (docs/analyze-log.md, session 94): a phase vocoder spreads every attack it stretches, and the
time-warped parts of the corpus (`warped`, `rewarped`) and the scratch sets made by
make-warped-songs.py carry that sound as well as the tempo's movement. A band playing without a
click drifts without it. These copies drift with every attack as the synthesizer plays it, so the
two can be told apart: the same songs under the same warps, one set through rubberband, one through
the tempo map.

The source is a folder of tools/learned/songs.py's output (NAME.mid, NAME.wav, index.json with each
song's soundfont). The new tempo map has a tempo event every eighth note (and at every tempo event
of the source), each the source's tempo times the warp's factor at the middle of its eighth, in the
source's seconds; the rest of the file is unchanged. The truth (.beats, .downbeats) is
make-midi.py's: where fluidsynth's player starts each beat's tick under the new tempo map
(corpuslib.fluid_event_frames), so it is exact to the frame whatever the tempo events' rounding.

Songs of even number are the composed bench's train half, odd ones its validation half
(`--split train|validation|all`, default train); `--first N` skips to the N-th song of the split and
`--count N` takes that many.

    tools/learned/out/venv/bin/python3 tools/corpus/make-tempo-warps.py tools/learned/out/songs /tmp/tempo-warps [--split all] [--count 40] [--jobs 2]

Writes OUT/SONG-WARP.mid, .wav (44.1 kHz 16-bit), .beats and .downbeats, and OUT/index.json (songs.py's
format, each copy with its source's style, tempo and meter and its split), so that
`tools/bench/composed --songs OUT` scores the copies with aubiotrack and madmom. A file already there is
kept unless --force; each WAV is written under a temporary name and renamed, so an interrupted run
leaves no half-written file. Needs fluidsynth, mido and the soundfonts of songs.py.
"""
import argparse
import collections
import importlib.util
import json
import os
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import corpuslib as cl  # noqa: E402

try:
    import mido
except ImportError:
    raise SystemExit("make-tempo-warps: needs mido (tools/learned/out/venv/bin/python3 has it)")


def _script(name, file):
    spec = importlib.util.spec_from_file_location(name, os.path.join(HERE, file))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


mm = _script("make_midi", "make-midi.py")  # its renderer and its MIDI truth
mws = _script("make_warped_songs", "make-warped-songs.py")  # its reading of a song index

FONT_FOLDERS = ("/usr/share/sounds/sf3", "/usr/share/sounds/sf2")


def seconds_at(events, ppq, ticks):
    """The source's time in seconds at each of `ticks` under its tempo map (the nominal times, not the
    player's rounding: they only place the warp's factor)."""
    ticks = np.asarray(ticks, dtype=np.float64)
    starts = np.array([t for t, _ in events], dtype=np.float64)
    rates = np.array([us for _, us in events], dtype=np.float64) / 1e6 / ppq
    offsets = np.concatenate([[0.0], np.cumsum(np.diff(starts) * rates[:-1])])
    index = np.searchsorted(starts, ticks, side="right") - 1
    return offsets[index] + (ticks - starts[index]) * rates[index]


def warped_midi(mid, kind, duration):
    """A copy of `mid` whose tempo map is warped by `kind` (a song of `duration` seconds)."""
    ppq = mid.ticks_per_beat
    events = cl.tempo_events(mid)
    last = max(tick for tick, _ in cl.absolute_messages(mid))
    step = max(1, ppq // 2)
    grid = sorted(set(range(0, last + step, step)) | {t for t, _ in events})
    ends = grid[1:] + [grid[-1] + step]
    # Where each eighth's factor is read: its middle, or for the step its start (the step falls on a
    # beat's tick, which is an eighth's start, so no eighth straddles it).
    places = seconds_at(events, ppq, [(a + b) / 2 for a, b in zip(grid, ends)])
    step_at = None
    if kind == "step":
        beat_seconds = seconds_at(events, ppq, np.arange(0, last + ppq, ppq))
        step_at = float(beat_seconds[np.argmin(np.abs(beat_seconds - duration / 2))]) - 1e-9
        places = seconds_at(events, ppq, grid)
    factors = cl.warp_factor(kind, places, duration, step_at)
    starts = np.array([t for t, _ in events])
    source_us = [events[int(np.searchsorted(starts, tick, side="right")) - 1][1] for tick in grid]
    conductor = mido.MidiTrack()
    previous = 0
    for tick, us, factor in zip(grid, source_us, factors):
        conductor.append(mido.MetaMessage("set_tempo", tempo=int(round(us / factor)), time=tick - previous))
        previous = tick
    out = mido.MidiFile(type=1, ticks_per_beat=ppq)
    out.tracks.append(conductor)
    for track in mid.tracks:
        kept = mido.MidiTrack()
        carried = 0
        for msg in track:
            if msg.type == "set_tempo":
                carried += msg.time
                continue
            kept.append(msg.copy(time=msg.time + carried))
            carried = 0
        out.tracks.append(kept)
    return out


def font_path(name):
    for folder in FONT_FOLDERS:
        path = os.path.join(folder, name)
        if os.path.exists(path):
            return path
    raise SystemExit(f"make-tempo-warps: soundfont {name} not found in {', '.join(FONT_FOLDERS)}")


def make(job):
    """Render one warped copy and write its truth; its entry for OUT/index.json."""
    song, folder, out, kind, force, split = job
    stem = f"{song['song']}-{kind}"
    wav = os.path.join(out, stem + ".wav")
    mid_path = os.path.join(out, stem + ".mid")
    source = mido.MidiFile(os.path.join(folder, song["song"] + ".mid"))
    # The warped MIDI file is written every time (it is cheap and the same every time), so the truth
    # below is always read from the file the WAV was rendered from.
    warped_midi(source, kind, song["seconds"]).save(mid_path + ".tmp")
    os.replace(mid_path + ".tmp", mid_path)
    if force or not os.path.exists(wav):
        with tempfile.NamedTemporaryFile(dir=out, suffix=".wav", delete=False) as handle:
            partial = handle.name
        try:
            mm.render(mid_path, partial, soundfont=font_path(song["font"]))
            os.replace(partial, wav)
        finally:
            if os.path.exists(partial):
                os.remove(partial)
    truth = mm.midi_truth(mid_path, collections.defaultdict(float))
    end = cl.wav_duration(wav)
    cl.write_times(os.path.join(out, stem + ".beats"), [t for t in truth["beats"] if t < end])
    cl.write_times(os.path.join(out, stem + ".downbeats"), [t for t in truth["downbeats"] if t < end])
    return dict(path=stem + ".wav", beats=stem + ".beats", downbeats=stem + ".downbeats", song=stem,
                source=song["song"], warp=kind, style=song["style"], font=song["font"], bpm=song["bpm"],
                meter=song["meter"], seconds=round(end, 3), split=split)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("folder", help="tools/learned/songs.py's output folder (index.json, NAME.mid)")
    parser.add_argument("out", help="the folder to write the warped copies to")
    parser.add_argument("--split", choices=["train", "validation", "all"], default="train")
    parser.add_argument("--first", type=int, default=0, help="skip this many songs of the split")
    parser.add_argument("--count", type=int, default=None, help="take this many songs of the split")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--force", action="store_true")
    args = parser.parse_args()
    wanted = [song for song in mws.split_songs(args.folder, args.split)
              if os.path.exists(os.path.join(args.folder, song["song"] + ".mid"))]
    wanted = wanted[args.first:]
    if args.count is not None:
        wanted = wanted[:args.count]
    os.makedirs(args.out, exist_ok=True)

    jobs = [(song, args.folder, args.out, kind, args.force, cl.song_split(song))
            for song in wanted for kind in cl.WARPS]
    # OUT/index.json lists every copy there, in songs.py's format with each copy's split, so
    # tools/bench/composed --songs OUT scores them with the peers.
    index_path = os.path.join(args.out, "index.json")
    entries = {}
    if os.path.exists(index_path):
        try:
            with open(index_path) as fh:
                entries = {entry["song"]: entry for entry in json.load(fh)["songs"]}
        except (OSError, ValueError, KeyError) as error:
            raise SystemExit(f"make-tempo-warps: {index_path}: not a readable index ({error})")
    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
        for done, entry in enumerate(pool.map(make, jobs), 1):
            entries[entry["song"]] = entry
            cl.log(f"tempo warps [{done}/{len(jobs)}] {entry['song']}")
    cl.write_text(index_path, json.dumps({"songs": [entries[k] for k in sorted(entries)]}, indent=1) + "\n")


if __name__ == "__main__":
    main()
