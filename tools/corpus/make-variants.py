#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Encoding and sample-rate variants of some of the corpus's songs: each song at 22.05 and 48 kHz,
mono and stereo, as Ogg Vorbis, FLAC and MP3, six variants a song (COMBOS: each rate, channel count and
codec twice), the truth the same beats (and drums) as the source's.

Making a variant: `sox -D SRC -c CHANNELS TMP.wav rate -v RATE` (no dither; sox's linear-phase
resampler keeps time; mono is the channels' mean), then `oggenc -Q -q 5 -s 1` (a fixed stream serial,
so the file is the same on every run), `flac -s -8` or `lame --silent -V 2` (LAME's default Xing/LAME
info tag, which records the encoder delay and padding: a gapless decoder such as libmpg123, which
libsndfile uses, removes them). check-timing.py decodes clicks made this way (sox for Ogg and FLAC,
mpg123 for MP3) and measures them against the source's times.

    python3 tools/corpus/make-variants.py [--force]

Writes corpus/variants/SONG-CODEC-RATE-CHANNELS.{ogg,flac,mp3} with .beats (and .drums, .downbeats) beside each,
and corpus/variants/index.json. Needs sox, vorbis-tools, flac, lame (and mpg123 for the check).
"""
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import corpuslib as cl  # noqa: E402

COMBOS = [(22050, 1, "ogg"), (48000, 2, "ogg"), (22050, 2, "flac"), (48000, 1, "flac"), (22050, 1, "mp3"),
          (48000, 2, "mp3")]
# The songs, picked across styles and parts; at least three are in validation (build.py checks).
SONGS = ["midi/gm-rock-120", "midi/gm-disco-118", "midi/gm-swing-150", "midi/gm-edm-128", "midi/gm-metal-184",
         "midi/gm-waltz-144", "midi/gm-step-150-128", "midi/openmsx-chemistry-lab", "lmms/Alf42red-Mauiwowi",
         "lmms/CapDan-ReggaeTry"]


def encode(src, out, rate, channels, codec):
    with tempfile.TemporaryDirectory() as tmp:
        wav = os.path.join(tmp, "v.wav")
        subprocess.run(["sox", "-D", src, "-c", str(channels), wav, "rate", "-v", str(rate)], check=True)
        part = out + ".part"
        if codec == "ogg":
            subprocess.run(["oggenc", "-Q", "-q", "5", "-s", "1", "-o", part, wav], check=True)
        elif codec == "flac":
            subprocess.run(["flac", "-s", "-f", "-8", "-o", part, wav], check=True)
        elif codec == "mp3":
            subprocess.run(["lame", "--silent", "-V", "2", wav, part], check=True)
        else:
            raise ValueError(codec)
        os.replace(part, out)


def decode(path, wav):
    """Decodes a variant to WAV the way a gapless reader does (mpg123 for MP3, sox otherwise)."""
    if path.endswith(".mp3"):
        subprocess.run(["mpg123", "-q", "-w", wav, path], check=True)
    else:
        subprocess.run(["sox", path, wav], check=True)


def copy(src, dst):
    """Copies to a new file renamed over `dst` (never into `dst` in place: it may be a hard link)."""
    shutil.copyfile(src, dst + ".tmp")
    os.replace(dst + ".tmp", dst)


def main(argv):
    force = "--force" in argv
    folder = cl.part_dir("variants")
    sources = {}
    for part in ("midi", "lmms"):
        for e in cl.read_index(part) or []:
            sources[e["song"]] = e
    entries = []
    n = 0
    for song in SONGS:
        if song not in sources:
            cl.log(f"variants: {song} is not built, skipped")
            continue
        src = sources[song]
        for rate, channels, codec in COMBOS:
            n += 1
            stem = f"{song.split('/', 1)[1]}-{codec}-{rate // 1000}k-{'mono' if channels == 1 else 'stereo'}"
            out = os.path.join(folder, f"{stem}.{codec}")
            if force or not os.path.exists(out):
                encode(os.path.join(cl.CORPUS, src["path"]), out, rate, channels, codec)
            copy(os.path.join(cl.CORPUS, src["beats"]), os.path.join(folder, stem + ".beats"))
            drums = None
            if src.get("drums"):
                copy(os.path.join(cl.CORPUS, src["drums"]), os.path.join(folder, stem + ".drums"))
                drums = f"variants/{stem}.drums"
            downbeats = None
            if src.get("downbeats"):
                copy(os.path.join(cl.CORPUS, src["downbeats"]), os.path.join(folder, stem + ".downbeats"))
                downbeats = f"variants/{stem}.downbeats"
            entries.append(cl.entry(f"variants/{stem}.{codec}", "variants", song, "variant", f"variants/{stem}.beats",
                                    drums, src["meter"], src["bpm"], source=src["path"],
                                    encoding={"rate": rate, "channels": channels, "codec": codec},
                                    downbeats=downbeats))
            cl.log(f"variants [{n}/{len(SONGS) * len(COMBOS)}] {stem}.{codec}")
    cl.write_index("variants", entries)


if __name__ == "__main__":
    main(sys.argv[1:])
