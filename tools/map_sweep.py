# SPDX-License-Identifier: GPL-3.0-or-later
"""What tools/check-edits.py and tools/check-roundtrip.py share: the maps of some folders, one worker
per map on a thread pool (each runs `beatmap` as subprocesses), and the failures counted by kind."""
import argparse
import concurrent.futures
import glob
import os
import sys


def parser(doc, listing):
    """The command line both scripts take: BEATMAP FOLDER... [--list] [--jobs N]."""
    result = argparse.ArgumentParser(description=doc.split("\n")[0])
    result.add_argument("binary", help="the beatmap executable")
    result.add_argument("folders", nargs="+", help="folders of *.beatmap.json")
    result.add_argument("--list", action="store_true", help=listing)
    result.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    return result


def sweep(args, script, work):
    """`work(path)` for every map in `args.folders`: a list of (name, kind, detail) each. Lists them
    with `--list`; returns the number of maps and the count of each (name, kind)."""
    maps = sorted(p for folder in args.folders for p in glob.glob(os.path.join(folder, "*.beatmap.json")))
    if not maps:
        sys.exit(f"{script}: no *.beatmap.json in " + ", ".join(args.folders))
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        results = list(pool.map(lambda path: (path, work(path)), maps))
    counts = {}
    for path, found in results:
        for name, kind, detail in found:
            counts[(name, kind)] = counts.get((name, kind), 0) + 1
            if args.list:
                print(f"{kind:8} {name:18} {path}: {detail}")
    return len(maps), counts


def summary(maps, noun, per_map, counts, failing=lambda kind: True, also=""):
    """Prints `N maps, M <noun>: F failed<also>` and the count of each (name, kind); returns the exit
    status: 1 when any count's kind is `failing`."""
    failed = sum(n for (_, kind), n in counts.items() if failing(kind))
    print(f"{maps} maps, {maps * per_map} {noun}: {failed} failed{also}")
    for (name, kind), n in sorted(counts.items()):
        print(f"  {name:18} {kind:8} {n}")
    return 1 if failed else 0
