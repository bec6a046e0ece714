#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""A scratch folder of the corpus's constant-tempo songs as a room and a recording would give them.

    tools/corpus/make-degraded.py OUT [--split train|validation] [--noise-db -32] [--no-reverb]

Each constant-tempo song of the parts midi, lmms and hydrogen in the split goes through sox: reverb
(reverberance 50 %, HF damping 50 %, room scale 90 %, pre-delay 20 ms), normalised to -3 dBFS, and
pink noise at --noise-db dBFS mixed in over the whole file (none with --noise-db 0), 16-bit. Its
truth is copied beside it (`.beats`), so that tools/bench/trial reads the folder with --also and
--scratch, and the file names are part_song.wav. The renders end in digital silence; recordings end
in their own reverb and noise. Session 60 measured the analyzer on these
(docs/analyze-log.md): reverb alone costs it what it costs madmom; noise 32 dB down lays beats
over the noise after the music.
"""
import argparse
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import corpuslib as cl  # noqa: E402

CORPUS = cl.CORPUS


def channels_and_rate(path):
    rate = subprocess.run(["soxi", "-r", path], capture_output=True, text=True, check=True).stdout.strip()
    channels = subprocess.run(["soxi", "-c", path], capture_output=True, text=True, check=True).stdout.strip()
    return channels, rate


def degrade(source, target, noise_db, reverb):
    """`source` through the room (and the noise) into `target`, written whole or not at all; the same noise on every run (sox -R)."""
    temporary = target + ".part.wav"
    effects = (["reverb", "50", "50", "90", "100", "20"] if reverb else []) + ["gain", "-n", "-3"]
    if noise_db == 0:
        subprocess.run(["sox", "-R", source, "-b", "16", temporary] + effects, check=True, capture_output=True)
    else:
        wet, noise = target + ".wet.wav", target + ".noise.wav"
        channels, rate = channels_and_rate(source)
        try:
            subprocess.run(["sox", "-R", source, wet] + effects, check=True, capture_output=True)
            subprocess.run(["sox", "-R", "-n", "-r", rate, "-c", channels, noise, "synth", str(cl.audio_duration(wet)), "pinknoise",
                            "gain", str(noise_db)], check=True, capture_output=True)
            subprocess.run(["sox", "-R", "-m", wet, noise, "-b", "16", temporary], check=True, capture_output=True)
        finally:
            for path in (wet, noise):
                if os.path.exists(path):
                    os.remove(path)
    os.replace(temporary, target)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("out")
    parser.add_argument("--split", default="train", choices=["train", "validation"])
    parser.add_argument("--noise-db", type=float, default=-32.0, help="pink noise level in dBFS (0: none)")
    parser.add_argument("--no-reverb", action="store_true")
    args = parser.parse_args()
    with open(os.path.join(CORPUS, "manifest.json")) as f:
        tracks = json.load(f)["tracks"]
    chosen = [t for t in tracks if t["split"] == args.split and t["part"] in ("midi", "lmms", "hydrogen")
              and t["kind"] == "constant" and t.get("beats")]
    if not chosen:
        sys.exit("make-degraded: no constant-tempo song in that split (build the corpus: tools/corpus/build.py)")
    os.makedirs(args.out, exist_ok=True)
    for track in chosen:
        stem = os.path.splitext(track["path"])[0].replace("/", "_")
        degrade(os.path.join(CORPUS, track["path"]), os.path.join(args.out, stem + ".wav"), args.noise_db,
                not args.no_reverb)
        with open(os.path.join(CORPUS, track["beats"])) as source, open(os.path.join(args.out, stem + ".beats"), "w") as copy:
            copy.write(source.read())
    print(f"make-degraded: {len(chosen)} songs of the {args.split} split in {args.out}")


if __name__ == "__main__":
    main()
