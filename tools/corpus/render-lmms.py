#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""LMMS part of the analyzer's corpus: LMMS's demo projects (Debian package lmms:
/usr/share/lmms/projects/demos and shorties) rendered headless, with ground truth from each project.

Render: `QT_QPA_PLATFORM=offscreen lmms --allowroot -r PROJECT -o OUT.wav -f wav` (44.1 kHz 16-bit
stereo). LMMS 1.2 may crash on exit after writing the file, so the file is checked (a RIFF WAV of
at least a second), not the exit status. The projects are only rendered locally, never committed.

Ground truth (NAME.beats): LMMS counts 48 ticks per quarter note and its bpm is quarter notes per
minute (frames per tick = rate * 60 / (48 * bpm)). One beat per quarter note in x/4 (and x/2, x/1)
meters, one per denominator note in x/8 and x/16 (then bpm is of that note); the manifest's meter
is the number of such beats in a bar. Beats run from the last beat at or before the first note (of an
unmuted pattern, beat/bassline clip or sample clip) to the last beat at or before the last note's
end, and before the end of the audio and of the sound: a project whose automation fades the song out
before its last notes (`Alf42red-Mauiwowi`, 11 beats of digital silence at its end) renders silence
there, and a beat after the render has fallen 60 dB below its loud level for good
(corpuslib.sounding_end) is not in the truth (session 97). check-timing.py measured LMMS's render on a project of clicks
(AudioFileProcessor): every click starts on the frame nearest its tick's exact time, with no
latency and no drift over 200 beats at 102, 120 and 140 BPM, so the beats are the exact tick times.
A project whose tempo is automated (an automation pattern connected to the song's tempo, or the
old global "Tempo" automation) keeps a constant-tempo truth only when every automation point equals
the head's bpm; otherwise it is excluded with a printed reason (none of Debian's demos is).
Projects with no steady beat are excluded only if obviously so (EXCLUDE below, with the reason).

    python3 tools/corpus/render-lmms.py [--force] [--jobs N]     # N renders at once (2)

Writes corpus/lmms/NAME.wav, NAME.beats, NAME.downbeats (the beats at bar position 1: LMMS's bars
start at tick 0, `meter` beats each) and corpus/lmms/index.json. Rewrites only the truth of projects
already rendered (no --force): that is the truth-only step. Deterministic: see README.md.
"""
import glob
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
import zlib
from concurrent.futures import ThreadPoolExecutor

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import corpuslib as cl  # noqa: E402

PROJECTS = "/usr/share/lmms/projects"
TICKS_PER_QUARTER = 48
# Projects left out, with the reason (printed). Only obviously beatless ones belong here.
EXCLUDE = {}


def load(path):
    with open(path, "rb") as f:
        data = f.read()
    if path.endswith(".mmpz"):
        data = zlib.decompress(data[4:])  # Qt's qCompress: 4-byte big-endian length, then zlib
    return ET.fromstring(data)


def tempo_automation(root, bpm):
    """None when the tempo is constant; else a sentence saying why the project is excluded.

    An automation pattern drives the tempo when one of its <object> ids is the id of the head's bpm
    model (saved as <head><bpm value= id=/></head> when automated), or, in the old global automation
    track (type 6), when a pattern named "Tempo" has objects at all. Patterns with no objects are
    connected to nothing and change nothing: several demos carry a stale, unconnected "Tempo"
    pattern whose value differs from the head's bpm, and their renders follow the head's bpm."""
    head = root.find("head")
    ids = set()
    bpm_el = head.find("bpm") if head is not None else None
    if bpm_el is not None and bpm_el.get("id"):
        ids.add(bpm_el.get("id"))
    values = []
    for track in root.iter("track"):
        for pattern in track.findall("automationpattern"):
            objects = {o.get("id") for o in pattern.findall("object")}
            old_global = track.get("type") == "6" and (pattern.get("name") or "").strip().lower() == "tempo"
            if objects & ids or (old_global and objects):
                values += [float(t.get("value")) for t in pattern.findall("time")]
    if any(abs(v - bpm) > 1e-6 for v in values):
        return f"tempo automation ({sorted(set(values))[:6]} BPM): its beats are not one tempo"
    return None


def note_span(root):
    """(first note tick, last note end tick) over unmuted tracks and clips of the song."""
    song = root.find("song/trackcontainer")
    spans = []
    tracks = song.findall("track")
    # Beat/bassline (type 1) tracks share one container (inside the first of them); inner track i's
    # pattern k (pos = k * 192) belongs to the k-th beat/bassline track.
    bb_tracks = [t for t in tracks if t.get("type") == "1"]
    container = None
    for t in bb_tracks:
        c = t.find("bbtrack/trackcontainer")
        if c is not None:
            container = c
            break
    bb_notes = {}  # k -> [(pos, len)]
    bb_len = {}
    if container is not None:
        for inner in container.findall("track"):
            if inner.get("muted") == "1" or inner.get("type") != "0":
                continue
            for p in inner.findall("pattern"):
                k = int(p.get("pos", "0")) // 192
                plen = int(p.get("len", "192"))
                bb_len[k] = max(bb_len.get(k, 192), int(math.ceil(plen / 192.0)) * 192)
                if p.get("muted") == "1":
                    continue
                for n in p.findall("note"):
                    pos = int(n.get("pos"))
                    if pos < plen:
                        bb_notes.setdefault(k, []).append((pos, max(0, int(n.get("len")))))
    for t in tracks:
        if t.get("muted") == "1":
            continue
        kind = t.get("type")
        if kind == "0":
            for p in t.findall("pattern"):
                if p.get("muted") == "1":
                    continue
                notes = p.findall("note")
                pos0 = int(p.get("pos"))
                if p.get("len") is not None:
                    plen = int(p.get("len"))
                else:  # LMMS then sizes the pattern to its notes, in whole bars
                    end = max((int(n.get("pos")) + max(0, int(n.get("len"))) for n in notes), default=0)
                    plen = max(192, int(math.ceil(end / 192.0)) * 192)
                for n in notes:
                    pos = int(n.get("pos"))
                    if pos < plen:
                        spans.append((pos0 + pos, pos0 + pos + max(0, int(n.get("len")))))
        elif kind == "1":
            k = bb_tracks.index(t)
            notes = bb_notes.get(k, [])
            if not notes:
                continue
            length = bb_len.get(k, 192)
            for c in t.findall("bbtco"):
                if c.get("muted") == "1":
                    continue
                pos0, clen = int(c.get("pos")), int(c.get("len"))
                for m in range(int(math.ceil(clen / length))):
                    for pos, nlen in notes:
                        at = pos0 + m * length + pos
                        if at < pos0 + clen:
                            spans.append((at, at + nlen))
        elif kind == "2":
            for c in t.findall("sampletco"):
                if c.get("muted") != "1" and int(c.get("len", "0")) > 0:
                    spans.append((int(c.get("pos")), int(c.get("pos")) + int(c.get("len"))))
    if not spans:
        return None
    return min(s for s, _ in spans), max(e for _, e in spans)


def name_of(path):
    stem = os.path.basename(path).rsplit(".", 1)[0]
    return re.sub(r"[^A-Za-z0-9_-]+", "-", stem).strip("-")


def render(project, wav):
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "out.wav")
        proc = subprocess.run(["lmms", "--allowroot", "-r", project, "-o", out, "-f", "wav"], env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=900)
        if os.path.exists(out) and cl.repair_wav_header(out):
            cl.log(f"  lmms left the WAV header unfinished (sizes repaired from the file's length)")
        duration = cl.wav_duration(out) if os.path.exists(out) else None
        if not duration or duration < 1.0:
            raise RuntimeError(f"lmms wrote no usable WAV for {project} (exit status {proc.returncode})")
        if proc.returncode != 0:
            cl.log(f"  lmms exited with status {proc.returncode} after writing {duration:.1f} s (kept)")
        fmt = cl.wav_format(out)
        if fmt != (1, 2, cl.RATE, 16):
            raise RuntimeError(f"{project}: LMMS wrote {fmt}, not 16-bit PCM stereo at {cl.RATE} Hz")
        shutil.move(out, wav)


def main(argv):
    force = "--force" in argv
    workers = int(argv[argv.index("--jobs") + 1]) if "--jobs" in argv else 2
    folder = cl.part_dir("lmms")
    projects = sorted(glob.glob(os.path.join(PROJECTS, "demos", "**", "*.mmp*"), recursive=True)
                      + glob.glob(os.path.join(PROJECTS, "shorties", "*.mmp*")))
    plans, excluded = [], []
    for project in projects:
        name = name_of(project)
        root = load(project)
        head = root.find("head")
        bpm = float(head.get("bpm") if head.get("bpm") else head.find("bpm").get("value"))
        num = int(head.get("timesig_numerator", "4"))
        den = int(head.get("timesig_denominator", "4"))
        reason = EXCLUDE.get(name) or tempo_automation(root, bpm)
        span = note_span(root)
        if span is None:
            reason = reason or "no notes found"
        if reason:
            excluded.append((name, reason))
            cl.log(f"lmms: {name}: excluded: {reason}")
            continue
        plans.append((project, name, bpm, num, den, span))

    todo = [(p, os.path.join(folder, n + ".wav")) for p, n, *_ in plans
            if force or not os.path.exists(os.path.join(folder, n + ".wav"))]

    def run(job):
        render(*job)
        return os.path.basename(job[1])

    with ThreadPoolExecutor(max_workers=workers) as pool:
        for i, name in enumerate(pool.map(run, todo)):
            cl.log(f"lmms: rendered [{i + 1}/{len(todo)}] {name}")
    entries = []
    for i, (project, name, bpm, num, den, span) in enumerate(plans):
        wav = os.path.join(folder, name + ".wav")
        duration = cl.wav_duration(wav)
        heard = min(duration, cl.sounding_end(wav))  # the render's sound, to its last audible frame
        unit = TICKS_PER_QUARTER if den <= 4 else TICKS_PER_QUARTER * 4 // den
        meter = num * (4 // den) if den <= 4 else num
        seconds_per_tick = 60.0 / (TICKS_PER_QUARTER * bpm)
        first, last = span
        k = first // unit
        beats = []
        while k * unit <= last and k * unit * seconds_per_tick < heard:
            beats.append(k * unit * seconds_per_tick)
            k += 1
        cl.write_times(os.path.join(folder, name + ".beats"), beats)
        # LMMS's bars start at tick 0, each `meter` beats long.
        downbeats = [b for j, b in enumerate(beats) if (first // unit + j) % meter == 0]
        cl.write_times(os.path.join(folder, name + ".downbeats"), downbeats)
        beat_bpm = bpm * TICKS_PER_QUARTER / unit
        entries.append(cl.entry(f"lmms/{name}.wav", "lmms", f"lmms/{name}", "constant", f"lmms/{name}.beats",
                                None, meter, beat_bpm, downbeats=f"lmms/{name}.downbeats"))
        cl.log(f"lmms [{i + 1}/{len(plans)}] {name}: {beat_bpm:g} BPM, {num}/{den}, {len(beats)} beats "
               f"{beats[0]:.2f}-{beats[-1]:.2f} s of {duration:.1f} s")
    cl.write_index("lmms", entries)
    cl.log("lmms: excluded: " + ("; ".join(f"{n} ({r})" for n, r in excluded) if excluded else "none"))


if __name__ == "__main__":
    main(sys.argv[1:])
