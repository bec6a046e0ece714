#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Game music: the soundtracks of games packaged by Debian, as their games ship them — produced,
mixed and mastered music of the kind a rhythm-game team feeds `beatmap analyze`, with no ground truth.

The other parts are rendered from scores, so their beats are known exactly; these are not, so they
cannot give an accuracy. What they give (tools/bench/games): whether the analyzer refuses music,
invents tempo changes, writes maps `validate` rejects, or changes its answer with the sample rate
and the codec, on real mixes; and how often its beats agree with madmom's, whose tracker was trained
on annotated recordings (agreement, not accuracy: where the two differ, either may be wrong).

Sources (Debian packages; the audio is theirs, copied locally, never committed):
  extremetuxracer-data   /usr/share/games/etr/music/*.ogg              (GPL-2+, CC0, ... : its copyright file)
  hedgewars-data         /usr/share/games/hedgewars/Data/Music/*.ogg   (GPL-2, CC-BY-SA-3.0, ... : likewise)
Each file is copied byte for byte to corpus/games/PACKAGE-NAME.ogg, and two variants of it are made
as make-variants.py makes its own (`sox -D SRC -c CHANNELS TMP.wav rate -v RATE`, then `lame --silent
-V 2` or `flac -s -8`): 48 kHz stereo MP3 and 22.05 kHz mono FLAC, in corpus/games/variants/.

The split (build.py's rule, applied here before anything was looked at): sort the song ids, every
third one from the first is validation. Nobody tunes on validation.

    python3 tools/corpus/make-games.py [--force]

Writes corpus/games/index.json (path, song, split, kind "game" or "variant", source, encoding,
package, seconds) and corpus/games/tools.json (the package versions). Not part of manifest.json:
tools/bench/accuracy has no truth to score these against. Needs the two packages above, sox, lame
and flac (`apt-get install extremetuxracer-data hedgewars-data sox libsox-fmt-mp3 lame flac`).
"""
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import corpuslib as cl  # noqa: E402

SOURCES = [("extremetuxracer-data", "etr", "/usr/share/games/etr/music"),
           ("hedgewars-data", "hedgewars", "/usr/share/games/hedgewars/Data/Music")]
VARIANTS = [(48000, 2, "mp3"), (22050, 1, "flac")]
TOOLS = ["sox", "libsox3", "libsox-fmt-mp3", "lame", "flac"]


def make_variant(src, dst, rate, channels, codec):
    with tempfile.TemporaryDirectory() as scratch:
        wav = os.path.join(scratch, "variant.wav")
        subprocess.run(["sox", "-D", src, "-c", str(channels), wav, "rate", "-v", str(rate)], check=True)
        part = os.path.join(scratch, "variant." + codec)
        if codec == "flac":
            subprocess.run(["flac", "-s", "-f", "-8", "-o", part, wav], check=True)
        else:
            subprocess.run(["lame", "--silent", "-V", "2", wav, part], check=True)
        shutil.move(part, dst + ".tmp")
        os.replace(dst + ".tmp", dst)


def main(argv):
    force = "--force" in argv
    missing = [tool for tool in ("sox", "lame", "flac") if shutil.which(tool) is None]
    if missing:
        sys.exit(f"make-games: missing {', '.join(missing)} (apt-get install sox libsox-fmt-mp3 lame flac)")
    folder = cl.part_dir("games")
    variants = os.path.join(folder, "variants")
    os.makedirs(variants, exist_ok=True)
    sources = []
    for package, short, directory in SOURCES:
        files = sorted(glob.glob(os.path.join(directory, "*.ogg")))
        if not files:
            cl.log(f"games: {package} is not installed ({directory} has no .ogg): skipped")
        sources += [(package, short, path) for path in files]
    if not sources:
        sys.exit("make-games: no game music found: apt-get install extremetuxracer-data hedgewars-data")
    songs = sorted(f"games/{short}-{os.path.basename(path)[:-4]}" for _, short, path in sources)
    validation = set(songs[0::3])
    entries = []
    for n, (package, short, path) in enumerate(sources):
        name = f"{short}-{os.path.basename(path)[:-4]}"
        song = f"games/{name}"
        target = os.path.join(folder, name + ".ogg")
        if force or not os.path.exists(target):
            shutil.copyfile(path, target + ".tmp")
            os.replace(target + ".tmp", target)
        seconds = cl.audio_duration(target)
        split = "validation" if song in validation else "train"
        entries.append({"path": f"games/{name}.ogg", "song": song, "split": split, "kind": "game", "source": None,
                        "encoding": None, "package": package, "seconds": round(seconds, 3)})
        for rate, channels, codec in VARIANTS:
            variant = f"{name}-{codec}-{rate // 1000}k-{'mono' if channels == 1 else 'stereo'}.{codec}"
            dst = os.path.join(variants, variant)
            if force or not os.path.exists(dst):
                make_variant(target, dst, rate, channels, codec)
            entries.append({"path": f"games/variants/{variant}", "song": song, "split": split, "kind": "variant",
                            "source": f"games/{name}.ogg",
                            "encoding": {"codec": codec, "rate": rate, "channels": channels},
                            "package": package, "seconds": round(seconds, 3)})
        cl.log(f"games [{n + 1}/{len(sources)}] {name}: {seconds:.0f} s, {split}")
    cl.write_index("games", entries)
    record = {"python": sys.version.split()[0],
              "packages": cl.package_versions([p for p, _, _ in SOURCES] + TOOLS)}
    cl.write_text(os.path.join(folder, "tools.json"), json.dumps(record, indent=1, sort_keys=True) + "\n")
    cl.log(f"games: {len(sources)} songs, {len(entries) - len(sources)} variants, "
           f"{len(validation)} songs in validation")


if __name__ == "__main__":
    main(sys.argv[1:])
