#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Time-warped part of the analyzer's corpus: our General-MIDI songs (corpus/midi/gm-*) and the LMMS
demos (corpus/lmms), each stretched by one smooth tempo warp with rubberband, the ground truth carried
through the same map.

Warps (corpuslib.warp_keyframes): drift (tempo wobbling +-3 % sinusoidally, 30 s period), ramp (tempo
rising 8 % linearly over the song), step (+9 % tempo from the source beat nearest the middle).
Each warp is a key-frame map of "source-frame target-frame" lines, key frames every 0.25 s (step: just
the step), given to `rubberband -3 --window-short -q -t RATIO -M MAP` (R3 engine with its short window;
RATIO = the map's overall ratio).
Between key frames rubberband stretches linearly, and the source's .beats and .drums times are carried
through the same piecewise-linear map of the same whole frames. check-timing.py measures warped
clicks against the mapped times (R3 short window: within about 2 ms; the R2 engine, rubberband's
default, was up to 13 ms off; R3's standard window is as exact but three times slower).

Warp types rotate over each group's songs in sorted order: song i gets WARPS[(i + i // 3) % 3], so
that with the every-third validation rule of build.py each type falls in both splits (checked below).

With --other-warps it builds the part `rewarped` instead: the same songs, each with the two warps the
rotation did not give it (session 57). Three times the followed music of `warped`, every song under
every warp, in each song's own split. The analyzer had been tuned on `warped`'s 32 train files, where
it loses 0.017 F against their sources; on this part's 64 train files it loses 0.055, and madmom
none. It is a part of its own so that `warped`, on which issue 11's targets are set, stays as it was.

    python3 tools/corpus/make-warped.py [--other-warps] [--force] [--jobs N]

Writes corpus/warped/SONG-WARP.wav (corpus/rewarped/ with --other-warps; 44.1 kHz 16-bit stereo), .beats,
.downbeats, .drums (where the source has one) and index.json. rubberband's output was checked
byte-identical across runs.
"""
import os
import sys
from concurrent.futures import ThreadPoolExecutor

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import corpuslib as cl  # noqa: E402


def sources():
    """(group, source entry) of the songs to warp, each group sorted by song id."""
    out = []
    for part, keep in (("midi", lambda e: e["song"].startswith("midi/gm-")), ("lmms", lambda e: True)):
        index = cl.read_index(part)
        if index is None:
            raise SystemExit(f"warped: corpus/{part} is not built")
        out += [(part, e) for e in sorted(index, key=lambda e: e["song"]) if keep(e)]
    return out


def plan(other_warps=False):
    """(source, warp, index in its group): the rotation's warp for each song, or with `other_warps`
    the two others."""
    jobs = []
    counters = {}
    for group, src in sources():
        i = counters.get(group, 0)
        counters[group] = i + 1
        rotation = cl.WARPS[(i + i // 3) % 3]
        for kind in ([k for k in cl.WARPS if k != rotation] if other_warps else [rotation]):
            jobs.append((src, kind, i))
    return jobs


def warp_one(src, kind, part="warped"):
    folder = cl.part_dir(part)
    stem = src["song"].split("/", 1)[1] + "-" + kind
    wav = os.path.join(folder, stem + ".wav")
    src_wav = os.path.join(cl.CORPUS, src["path"])
    duration = cl.wav_duration(src_wav)
    beats = cl.read_times(os.path.join(cl.CORPUS, src["beats"]))
    step_at = None
    if kind == "step":
        step_at = min(beats, key=lambda b: abs(b - duration / 2))
    keys = cl.keyframes_to_frames(cl.warp_keyframes(kind, duration, step_at))
    total = int(round(duration * cl.RATE))
    return stem, wav, src_wav, keys, total, beats


def main(argv):
    force = "--force" in argv
    jobs_n = int(argv[argv.index("--jobs") + 1]) if "--jobs" in argv else 2
    other_warps = "--other-warps" in argv
    part = "rewarped" if other_warps else "warped"
    folder = cl.part_dir(part)
    jobs = plan(other_warps)
    entries = []
    work = []
    for src, kind, i in jobs:
        stem, wav, src_wav, keys, total, beats = warp_one(src, kind, part)
        if force or not os.path.exists(wav):
            work.append((stem, wav, src_wav, keys, total))
        mapped = cl.map_times(keys, beats)
        cl.write_times(os.path.join(folder, stem + ".beats"), mapped)
        drums = None
        if src.get("drums"):
            hits = cl.read_drums(os.path.join(cl.CORPUS, src["drums"]))
            times = cl.map_times(keys, [t for t, _ in hits])
            cl.write_drums(os.path.join(folder, stem + ".drums"), list(zip(times, [k for _, k in hits])))
            drums = f"{part}/{stem}.drums"
        downbeats = None
        if src.get("downbeats"):
            times = cl.map_times(keys, cl.read_times(os.path.join(cl.CORPUS, src["downbeats"])))
            cl.write_times(os.path.join(folder, stem + ".downbeats"), times)
            downbeats = f"{part}/{stem}.downbeats"
        entries.append(cl.entry(f"{part}/{stem}.wav", part, src["song"], "warped", f"{part}/{stem}.beats",
                                drums, src["meter"], src["bpm"], source=src["path"], warp=kind, downbeats=downbeats))

    def run(job):
        stem, wav, src_wav, keys, total = job
        cl.warp_file(src_wav, wav, keys, total)
        return stem

    done = 0
    with ThreadPoolExecutor(max_workers=jobs_n) as pool:
        for stem in pool.map(run, work):
            done += 1
            cl.log(f"{part} [{done}/{len(work)}] {stem}")
    # Trim beats past the end of each warped file (a warp can only shorten or lengthen the song).
    for e in entries:
        duration = cl.wav_duration(os.path.join(cl.CORPUS, e["path"]))
        for key in ("beats", "downbeats"):
            if e.get(key):
                path = os.path.join(cl.CORPUS, e[key])
                cl.write_times(path, [b for b in cl.read_times(path) if b < duration])
    cl.write_index(part, entries)
    by_type = {}
    for src, kind, i in jobs:
        by_type.setdefault(kind, []).append(i % 3 == 0)
    cl.log(f"{part}: " + ", ".join(f"{k}: {len(v)} songs, {sum(v)} by the validation rule" for k, v in sorted(by_type.items())))


if __name__ == "__main__":
    main(sys.argv[1:])
