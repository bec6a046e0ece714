#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Generates the hostile audio corpus and checks that `beatmap` survives every file.

    tools/hostile-audio.py [--out DIR] [--big] [--binary PATH] [--generate-only]

Writes the corpus to DIR (default .build/hostile-audio; nothing here is committed): zero-length
files, header-only and lying WAV headers, truncated FLAC/Ogg/MP3, wrong extensions, absurd sample
rates and channel counts, all-silence, all-DC, full-scale noise, NaN/Inf float WAVs, and with --big
a 3-hour WAV (sparse, 1.9 GB) and a 3-hour FLAC. Then, for every file, it runs
`beatmap validate --format json` on a map pointing at it and, when the binary has them,
`beatmap analyze FILE -o MAP`, each under a time limit, measuring peak memory with wait4. A run
passes when every command ends by itself (no signal, no time-out) with status 0 or 1, stays under the
memory limit, names the file when it fails, and any map it writes is a valid map.
Needs sox (tools/setup.sh installs it). Exit status: 0 all passed, 1 a check failed.
"""

import argparse
import json
import math
import os
import random
import shutil
import signal
import struct
import subprocess
import sys
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MEMORY_LIMIT = 256 << 20


def wav(data=b"", fmt=1, channels=1, rate=44100, bits=16, declared=None):
    size = len(data) if declared is None else declared
    align = (channels * bits // 8) & 0xFFFF
    header = struct.pack(
        "<4sI4s4sIHHIIHH4sI", b"RIFF", (36 + size) & 0xFFFFFFFF, b"WAVE", b"fmt ", 16, fmt, channels, rate,
        (rate * align) & 0xFFFFFFFF, align, bits, b"data", size & 0xFFFFFFFF)
    return header + data


def pcm16(samples):
    return struct.pack("<%dh" % len(samples), *samples)


def sox(*args):
    subprocess.run(["sox", "-V1", "-R", "-D", *args], check=True)


def generate(out, big):
    """Writes the corpus; returns {file name: expected duration in seconds or None if unreadable}."""
    os.makedirs(out, exist_ok=True)
    expect = {}

    def put(name, data, duration):
        with open(os.path.join(out, name), "wb") as f:
            f.write(data)
        expect[name] = duration

    for ext in ("wav", "flac", "ogg", "mp3"):
        put("zero-length." + ext, b"", None)
    put("header-only.wav", wav(), None)
    put("header-claims-1GB.wav", wav(declared=1 << 30), None)
    put("text.wav", b"hello, this is not audio\n" * 40, None)
    put("random-bytes.mp3", random.Random(7).randbytes(65536), None)
    second = pcm16([0] * 8000)
    for rate in (0, 7, 768001, 10_000_000, 0xFFFFFFFF):
        put("rate-%d.wav" % rate, wav(second, rate=rate), 8000 / rate if 0 < rate <= 768000 else None)
    put("rate-1.wav", wav(pcm16([0, 1000, -1000, 0]), rate=1), 4.0)
    put("rate-768000.wav", wav(second, rate=768000), 8000 / 768000)
    for channels in (0, 65, 255, 65535):
        put("channels-%d.wav" % channels, wav(second, channels=channels, rate=8000), None)
    put("channels-64.wav", wav(second, channels=64, rate=8000), 125 / 8000)
    put("silence.wav", wav(pcm16([0] * 44100 * 60)), 60.0)
    put("dc.wav", wav(pcm16([32767] * 44100 * 60)), 60.0)
    put("square-clipping.wav", wav(pcm16(([32767] * 50 + [-32768] * 50) * 441 * 60)), 60.0)
    floats = [math.nan, math.inf, -math.inf, 1e30, -1e30, 0.5, -0.5, 0.0]
    put("nan-inf.wav", wav(struct.pack("<%df" % (len(floats) * 5512), *(floats * 5512)), fmt=3, bits=32, rate=44100),
        len(floats) * 5512 / 44100)
    put("all-nan.wav", wav(struct.pack("<f", math.nan) * 441000, fmt=3, bits=32, rate=44100), 10.0)

    # Encoded streams: 10 s of a click track; full-scale noise; then damaged copies.
    tone = os.path.join(out, "clicks")
    for ext in ("flac", "ogg", "mp3"):
        sox("-n", "-r", "44100", "-c", "2", tone + "." + ext, "synth", "10", "sine", "1000", "tremolo", "2", "100")
        expect["clicks." + ext] = "decodes"
    sox("-n", "-r", "44100", "-c", "2", "-b", "16", os.path.join(out, "noise-full-scale.wav"),
        "synth", "60", "whitenoise", "vol", "1.0")
    expect["noise-full-scale.wav"] = 60.0
    for ext in ("flac", "ogg", "mp3"):
        data = open(tone + "." + ext, "rb").read()
        for label, size in (("header", 100), ("tenth", len(data) // 10), ("half", len(data) // 2)):
            put("truncated-%s.%s" % (label, ext), data[:size], "partial")
        # Wrong extensions: the decoder goes by the content.
        put("%s-named.wav" % ext, data, "decodes")
    put("wav-named.ogg", open(os.path.join(out, "silence.wav"), "rb").read()[:44 + 88200], 1.0)

    if big:
        frames = 3 * 3600 * 44100
        path = os.path.join(out, "three-hours.wav")
        with open(path, "wb") as f:
            f.write(wav(channels=2, declared=frames * 4))
            f.truncate(44 + frames * 4)  # sparse: the file system reads the hole as silence
        expect["three-hours.wav"] = 10800.0
        sox("-n", "-r", "8000", "-c", "1", os.path.join(out, "three-hours.flac"), "synth", "10800", "sine", "440",
            "tremolo", "2", "100")
        expect["three-hours.flac"] = 10800.0
    return expect


class Run:
    def __init__(self, args, timeout):
        start = time.monotonic()
        proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL)
        self.timed_out = False

        def expire():
            self.timed_out = True
            proc.kill()

        timer = threading.Timer(timeout, expire)
        timer.start()
        out_chunks, err_chunks = [], []
        readers = [threading.Thread(target=lambda: out_chunks.append(proc.stdout.read())),
                   threading.Thread(target=lambda: err_chunks.append(proc.stderr.read()))]
        for reader in readers:
            reader.start()
        # The child's own peak (VmHWM): wait4's ru_maxrss also counts this script's memory at spawn
        # time, which the kernel carries over exec.
        peak = [0]
        done = threading.Event()

        def watch():
            while not done.is_set():
                try:
                    with open("/proc/%d/status" % proc.pid) as status_file:
                        for line in status_file:
                            if line.startswith("VmHWM:"):
                                peak[0] = max(peak[0], int(line.split()[1]) * 1024)
                except (OSError, ValueError):
                    pass
                done.wait(0.005)

        watcher = threading.Thread(target=watch)
        watcher.start()
        _, status, usage = os.wait4(proc.pid, 0)
        done.set()
        watcher.join()
        proc.returncode = os.waitstatus_to_exitcode(status)
        timer.cancel()
        for reader in readers:
            reader.join()
        self.seconds = time.monotonic() - start
        self.status = proc.returncode  # negative: killed by that signal
        self.max_rss = peak[0] or usage.ru_maxrss * 1024
        self.stdout = b"".join(out_chunks).decode("utf-8", "replace")
        self.stderr = b"".join(err_chunks).decode("utf-8", "replace")


def check(binary, out, expect, timeout):
    usage = subprocess.run([binary, "--help"], capture_output=True, text=True).stdout
    has_analyze = any(line.split()[:1] == ["analyze"] for line in usage.splitlines())
    failures = []
    rows = []
    maps = os.path.join(out, "maps")
    shutil.rmtree(maps, ignore_errors=True)
    os.makedirs(maps)

    def judge(name, what, run, ok, message):
        problem = None
        if run.timed_out:
            problem = "timed out after %.0f s" % run.seconds
        elif run.status < 0:
            problem = "killed by signal %d" % -run.status
        elif run.status not in (0, 1):
            problem = "exit status %d" % run.status
        elif run.max_rss > MEMORY_LIMIT:
            problem = "peak memory %d MiB" % (run.max_rss >> 20)
        elif not ok:
            problem = message
        rows.append((name, what, run.status, run.seconds, run.max_rss >> 20, problem or message))
        if problem:
            failures.append("%s: %s: %s" % (name, what, problem))

    for name in sorted(expect):
        expected = expect[name]
        audio = os.path.join(out, name)
        duration = expected if isinstance(expected, float) else 1.0
        map_path = os.path.join(maps, name + ".beatmap.json")
        with open(map_path, "w") as f:
            json.dump({"version": 1, "audio": {"path": os.path.relpath(audio, maps), "duration": duration},
                       "beats": [0.0005]}, f)
        run = Run([binary, "validate", "--format", "json", "--disable", "off-grid", map_path], timeout)
        findings = []
        try:
            findings = json.loads(run.stdout)["files"][0]["findings"]
        except (ValueError, KeyError, IndexError):
            pass
        audio_findings = [f["message"] for f in findings if f["rule"] == "audio-mismatch"]
        if expected is None:
            ok = any("cannot be read" in m and name in m for m in audio_findings)
            message = audio_findings[0] if audio_findings else "no audio-mismatch finding: " + run.stdout[:200]
        elif isinstance(expected, float):
            ok = run.status == 0 and not audio_findings
            message = audio_findings[0] if audio_findings else "duration %.3f s as expected" % expected
        else:  # "decodes" or "partial": a duration finding or an unreadable finding naming the file
            ok = all(("cannot be read" in m and name in m) or "lasts" in m for m in audio_findings)
            message = audio_findings[0] if audio_findings else "decoded"
        judge(name, "validate", run, ok, message)

        if has_analyze:
            produced = os.path.join(maps, name + ".analyzed.beatmap.json")
            run = Run([binary, "analyze", audio, "-o", produced, "--force", "--no-progress"], timeout)
            if run.status == 0:
                valid = Run([binary, "validate", "--no-audio", "--format", "json", produced], timeout)
                try:
                    rules = [f["rule"] for f in json.loads(valid.stdout)["files"][0]["findings"]]
                except (ValueError, KeyError, IndexError):
                    rules = ["unreadable report"]
                ok = not any(r in ("invalid-json", "schema", "non-finite") for r in rules)
                judge(name, "analyze", run, ok, "map written" if ok else "written map is invalid: %s" % rules)
            else:
                lines = run.stderr.strip().splitlines()
                ours = [line for line in lines if line.startswith("beatmap: error:")]
                message = ours[0] if ours else (lines[0] if lines else "failed without a message")
                # libmpg123 (inside libsndfile) prints notes on broken MP3 frames; libsndfile cannot
                # silence it (libsndfile issue #958). Count it, do not fail on it.
                chatter = len(lines) - len(ours)
                if chatter:
                    message += " (+%d lines of decoder chatter on stderr)" % chatter
                judge(name, "analyze", run, any(name in line for line in ours), message)

    width = max(len(r[0]) for r in rows)
    for name, what, status, seconds, mib, note in rows:
        print("%-*s  %-8s  exit %-3s %7.2f s %5d MiB  %s" % (width, name, what, status, seconds, mib, note[:110]))
    print("%d files, %d commands, %d failures" % (len(expect), len(rows), len(failures)))
    for failure in failures:
        print("FAIL " + failure, file=sys.stderr)
    return not failures


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=os.path.join(ROOT, ".build", "hostile-audio"))
    parser.add_argument("--big", action="store_true", help="add the 3-hour files")
    parser.add_argument("--binary", default=os.path.join(ROOT, ".build", "debug", "beatmap"))
    parser.add_argument("--timeout", type=float, default=600)
    parser.add_argument("--generate-only", action="store_true")
    args = parser.parse_args()
    shutil.rmtree(args.out, ignore_errors=True)
    expect = generate(args.out, args.big)
    print("hostile-audio: %d files in %s" % (len(expect), args.out), file=sys.stderr)
    if args.generate_only:
        return 0
    if not os.access(args.binary, os.X_OK):
        print("hostile-audio: %s not found; run `swift build` first" % args.binary, file=sys.stderr)
        return 2
    return 0 if check(args.binary, args.out, expect, args.timeout) else 1


if __name__ == "__main__":
    sys.exit(main())
