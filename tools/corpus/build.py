#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Builds the analyzer's real-music development corpus under corpus/ and writes corpus/manifest.json.

    python3 tools/corpus/build.py                      # every part not built yet, then the manifest
    python3 tools/corpus/build.py --parts midi,lmms    # only these parts (and the manifest)
    python3 tools/corpus/build.py --force              # rebuild (the selected parts) even if built
    python3 tools/corpus/build.py --manifest           # only rewrite manifest.json from what is built
    python3 tools/corpus/build.py --check-split        # compare VALIDATION with the split rule
    python3 tools/corpus/build.py --record-tools       # write tools.json for built parts lacking one
    BEATMAP_CORPUS_DIR=/elsewhere python3 tools/corpus/build.py   # build into another folder

Parts, in build order (each a script beside this one; see README.md):
  synthetic  make-synthetic.py    our synthesised grooves (corpus/synthetic)
  hydrogen   render-hydrogen.py   Hydrogen's demo songs (corpus/hydrogen)
  midi       make-midi.py         our General-MIDI songs and OpenMSX's, via fluidsynth (corpus/midi)
  lmms       render-lmms.py       LMMS's demo projects, rendered headless (corpus/lmms)
  warped     make-warped.py       time-warped midi and lmms songs, via rubberband (corpus/warped)
  rewarped   make-warped.py --other-warps   the same songs under the two other warps (corpus/rewarped)
  variants   make-variants.py     sample-rate, channel and codec variants (corpus/variants)
  long       make-long.py         20- and 60-minute tracks, FLAC (corpus/long)
  nonmusic   make-nonmusic.py     silence, noise, drone, speech, applause: no beats (corpus/nonmusic)
A part counts as built when its index.json exists (synthetic and hydrogen: when their .beats files
do; their entries are made here from the .beats files). manifest.json is rewritten after each part,
so the corpus is usable while later parts build.

The split, by song (a warped, variant or long track is in its source song's split). The rule, applied
once before any tuning to the songs each part had: within each group of songs (synthetic; hydrogen;
lmms; our own General-MIDI songs, midi/gm-*; our 3/4, 6/8 and pickup songs added for the bar estimate,
midi/meter-*, a group of their own so the older groups' split stays as it was; our medleys, two songs
joined at a tempo step of more than 30 %, midi/medley-*, a group of their own for the same reason; the
OpenMSX songs, midi/openmsx-*; nonmusic), sort the song ids and put every third one, starting with
the first (sorted positions 0, 3, 6, ...), in validation: at least a third of each group. The
resulting ids are written out below in VALIDATION, which is what decides; every other song is train.
A song added later is train until someone adds it here by the rule (--check-split lists any
difference). Nobody tunes on validation.
Deterministic: every part's output is the same on every run (see each script for the tools whose
output we checked to be byte-identical).
"""
import argparse
import json
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import corpuslib as cl  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
PARTS = ["synthetic", "hydrogen", "midi", "lmms", "warped", "rewarped", "variants", "long", "nonmusic"]
SCRIPTS = {"synthetic": "make-synthetic.py", "hydrogen": "render-hydrogen.py", "midi": "make-midi.py",
           "lmms": "render-lmms.py", "warped": "make-warped.py", "rewarped": "make-warped.py",
           "variants": "make-variants.py",
           "long": "make-long.py", "nonmusic": "make-nonmusic.py"}
NEEDS = {"warped": ["midi", "lmms"], "rewarped": ["midi", "lmms"], "variants": ["midi", "lmms"], "long": ["lmms"]}
# The Debian packages whose versions shape each part's audio, recorded in corpus/PART/tools.json when
# the part is built and gathered into manifest.json's "tools": a corpus rebuilt on another machine can
# differ (LMMS's renders do, README.md), and a figure is only comparable with one from the same build.
PACKAGES = {"synthetic": [], "hydrogen": ["hydrogen", "hydrogen-data"],
            "midi": ["fluidsynth", "libfluidsynth3", "fluid-soundfont-gm", "openttd-openmsx"],
            "lmms": ["lmms", "lmms-common"], "warped": ["rubberband-cli", "librubberband2"],
            "rewarped": ["rubberband-cli", "librubberband2"],
            "variants": ["sox", "libsox3", "vorbis-tools", "flac", "lame"], "long": ["flac"],
            "nonmusic": ["espeak-ng", "sox"]}

VALIDATION = [
    "hydrogen/GM_kit_Diddley",
    "hydrogen/GM_kit_demo2",
    "hydrogen/tutorial_georgyporgy",
    "lmms/Alf42red-Mauiwowi",
    "lmms/CapDan-TwilightArea-OriginalByAlf42red",
    "lmms/DirtyLove",
    "lmms/Impulslogik-Zen",
    "lmms/Oglsdl-Dr8v2",
    "lmms/Settel-InnerRecreation",
    "lmms/Skiessi-C64",
    "lmms/StrictProduction-DearJonDoe",
    "lmms/Thomasso-AxeFromThe80s",
    "midi/gm-accelerando-96-132",
    "midi/gm-disco-118",
    "midi/gm-fills-136",
    "midi/gm-metal-170",
    "midi/gm-punk-196",
    "midi/gm-rock-120",
    "midi/gm-step-120-140",
    "midi/gm-swing-150",
    "midi/medley-100-140",
    "midi/medley-140-96",
    "midi/medley-180-128",
    "midi/meter-ballad-pickup3-80",
    "midi/meter-jazzwaltz-132",
    "midi/meter-sixeight-pickup-168",
    "midi/openmsx-5432gone-redfarn",
    "midi/openmsx-busy-schedule",
    "midi/openmsx-chuggachugga",
    "midi/openmsx-flying-scotsman",
    "midi/openmsx-linns-basket",
    "midi/openmsx-modern-motion",
    "midi/openmsx-no-work-song-redfarn",
    "midi/openmsx-say-what-redfarn",
    "midi/openmsx-the-hobo-redfarn",
    "midi/openmsx-ttsong-iv-imuh3",
    "midi/openmsx-wood-whistles",
    "nonmusic/applause",
    "nonmusic/noise-pink",
    "nonmusic/speech-en",
    "synthetic/change-128-150",
    "synthetic/fades-116",
    "synthetic/quarter-hats-70",
    "synthetic/straight-108",
    "synthetic/straight-140",
    "synthetic/straight-174",
    "synthetic/straight-60",
    "synthetic/straight-96",
    "synthetic/syncopated-112",
]


def group(song):
    part, name = song.split("/", 1)
    if part == "midi":
        if name.startswith("meter-"):
            return "midi/meter"
        if name.startswith("medley-"):
            return "midi/medley"
        return "midi/openmsx" if name.startswith("openmsx-") else "midi/gm"
    return part


def rule_validation(songs):
    """The split rule: every third song id of each group in sorted order, from the first."""
    groups = {}
    for s in sorted(set(songs)):
        groups.setdefault(group(s), []).append(s)
    return sorted(s for members in groups.values() for i, s in enumerate(members) if i % 3 == 0)


def scanned_entries(part):
    """Entries for synthetic and hydrogen, whose scripts write no index: from their .beats files."""
    folder = os.path.join(cl.CORPUS, part)
    if not os.path.isdir(folder):
        return []
    entries = []
    for name in sorted(os.listdir(folder)):
        if not name.endswith(".wav"):
            continue
        stem = name[:-4]
        beats_path = os.path.join(folder, stem + ".beats")
        if not os.path.exists(beats_path):
            continue
        beats = cl.read_times(beats_path)
        periods = [b - a for a, b in zip(beats, beats[1:])]
        bpm = 60.0 / periods[0] if periods else None
        steady = all(abs(p - periods[0]) < 0.002 for p in periods) if periods else True
        entries.append(cl.entry(f"{part}/{name}", part, f"{part}/{stem}", "constant" if steady else "tempo-change",
                                f"{part}/{stem}.beats", None, 4, bpm))
    return entries


def built(part):
    if part in ("synthetic", "hydrogen"):
        return bool(scanned_entries(part))
    return cl.read_index(part) is not None


def run_part(part, force):
    script = os.path.join(HERE, SCRIPTS[part])
    if not os.path.exists(script):
        cl.log(f"build: {part}: {SCRIPTS[part]} is missing, skipped")
        return False
    args = [sys.executable, script]
    if part == "rewarped":
        args.append("--other-warps")
    if part in ("synthetic", "hydrogen"):
        args.append(os.path.join(cl.CORPUS, part))  # their OUT_DIR argument
    if part == "hydrogen" and force:
        folder = os.path.join(cl.CORPUS, "hydrogen")
        for name in os.listdir(folder) if os.path.isdir(folder) else []:
            if name.endswith(".wav"):
                os.remove(os.path.join(folder, name))
    elif part not in ("synthetic", "hydrogen") and force:
        args.append("--force")
    cl.log(f"build: {part}: {' '.join(args[1:])}")
    start = time.time()
    subprocess.run(args, check=True)
    cl.log(f"build: {part}: done in {time.time() - start:.0f} s")
    write_tools(part)
    return True


def write_tools(part, after=False):
    """corpus/PART/tools.json: the Python and the Debian packages this part was just built with
    (`after`: recorded later by --record-tools, for a part built before the file was written, which
    says so in the record: the versions are today's, not necessarily the build's)."""
    record = {"python": sys.version.split()[0], "packages": cl.package_versions(PACKAGES.get(part, []))}
    if after:
        record["recorded"] = "after the build (--record-tools)"
    path = os.path.join(cl.part_dir(part), "tools.json")
    with open(path + ".tmp", "w") as f:
        json.dump(record, f, indent=1, sort_keys=True)
        f.write("\n")
    os.replace(path + ".tmp", path)


def read_tools(part):
    """The part's tools.json, or None for a part built before it was written."""
    path = os.path.join(cl.CORPUS, part, "tools.json")
    if not os.path.exists(path):
        return None
    with open(path) as f:
        return json.load(f)


def manifest():
    tracks = []
    for part in PARTS:
        if part in ("synthetic", "hydrogen"):
            tracks += scanned_entries(part)
        else:
            tracks += cl.read_index(part) or []
    validation = set(VALIDATION)
    for t in tracks:
        t["split"] = "validation" if t["song"] in validation else "train"
    keys = ["path", "part", "song", "split", "kind", "beats", "drums", "meter", "bpm", "source", "warp", "encoding",
            "downbeats"]
    tracks = [{k: t.get(k) for k in keys} for t in tracks]
    missing = [t["path"] for t in tracks if not os.path.exists(os.path.join(cl.CORPUS, t["path"]))]
    if missing:
        raise SystemExit(f"build: manifest lists missing files: {missing[:5]}")
    path = os.path.join(cl.CORPUS, "manifest.json")
    with open(path + ".tmp", "w") as f:
        tools = {part: read_tools(part) for part in PARTS if built(part)}
        json.dump({"version": 1, "tools": tools, "tracks": tracks}, f, indent=1)
        f.write("\n")
    os.replace(path + ".tmp", path)
    counts = {}
    for t in tracks:
        key = (t["part"], t["split"])
        counts[key] = counts.get(key, 0) + 1
    cl.log("build: manifest.json: " + ", ".join(f"{p} {s} {n}" for (p, s), n in sorted(counts.items())))


def check_split():
    songs = set()
    for part in ("synthetic", "hydrogen", "midi", "lmms", "nonmusic"):
        entries = scanned_entries(part) if part in ("synthetic", "hydrogen") else (cl.read_index(part) or [])
        songs |= {e["song"] for e in entries}
    want = set(rule_validation(songs))
    have = set(VALIDATION)
    if want == have:
        print(f"VALIDATION matches the rule ({len(have)} of {len(songs)} songs)")
        return 0
    print("by the rule but not in VALIDATION:", sorted(want - have))
    print("in VALIDATION but not by the rule:", sorted(have - want))
    print("rule's list:\n" + "\n".join(f'    "{s}",' for s in sorted(want)))
    return 1


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--parts", help="comma-separated parts (default: all)")
    ap.add_argument("--force", action="store_true", help="rebuild the selected parts")
    ap.add_argument("--manifest", action="store_true", help="only rewrite manifest.json")
    ap.add_argument("--check-split", action="store_true", help="compare VALIDATION with the rule")
    ap.add_argument("--record-tools", action="store_true",
                    help="write tools.json (today's package versions, marked as such) for built parts lacking one")
    args = ap.parse_args()
    if args.check_split:
        sys.exit(check_split())
    if args.record_tools:
        for part in PARTS:
            if built(part) and read_tools(part) is None:
                write_tools(part, after=True)
                cl.log(f"build: {part}: tools.json recorded after the build")
        manifest()
        return
    os.makedirs(cl.CORPUS, exist_ok=True)
    if not args.manifest:
        parts = args.parts.split(",") if args.parts else PARTS
        unknown = [p for p in parts if p not in PARTS]
        if unknown:
            ap.error(f"unknown parts {unknown}; parts are {','.join(PARTS)}")
        start = time.time()
        for part in PARTS:
            if part not in parts:
                continue
            if built(part) and not args.force:
                cl.log(f"build: {part}: already built (--force rebuilds)")
                continue
            for need in NEEDS.get(part, []):
                if not built(need):
                    cl.log(f"build: {part} needs {need}: building it first")
                    run_part(need, False)
            if run_part(part, args.force):
                manifest()
        cl.log(f"build: finished in {time.time() - start:.0f} s")
    manifest()


if __name__ == "__main__":
    main()
