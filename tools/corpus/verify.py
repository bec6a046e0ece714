#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Checks the built corpus against its manifest: every file exists and decodes, every .beats file is
sorted and inside its audio, and the beats sit on the music: the lag (-60..+60 ms) at which the
audio's onset strength (log spectral flux, 2.9 ms hop) summed over the beat times peaks, and how much
that peak stands above the average over all lags. A lag far from 0 or a flat curve flags a track.

    python3 tools/corpus/verify.py [--parts midi,lmms] [--limit SECONDS]

Prints one line per track and a summary per part; exits 1 if a file is missing or a truth file is
malformed (lags are reported, not judged: an instrument's attack moves its onset a few ms).
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import corpuslib as cl  # noqa: E402
import numpy as np  # noqa: E402

HOP = 128


def load(path, limit):
    if path.endswith(".wav"):
        rate, x = cl.read_wav(path)
    else:
        with tempfile.TemporaryDirectory() as tmp:
            wav = os.path.join(tmp, "d.wav")
            if path.endswith(".mp3"):
                subprocess.run(["mpg123", "-q", "-w", wav, path], check=True)
            else:
                subprocess.run(["sox", path, wav] + (["trim", "0", str(limit)] if limit else []), check=True)
            rate, x = cl.read_wav(wav)
    if limit:
        x = x[:int(limit * rate)]
    return rate, x.mean(1)


def onset_strength(x, rate):
    n = 1024
    frames = 1 + max(0, (len(x) - n) // HOP)
    window = np.hanning(n)
    prev = None
    out = np.zeros(frames)
    for start in range(0, frames, 2048):
        idx = np.arange(start, min(frames, start + 2048))
        seg = np.stack([x[i * HOP:i * HOP + n] for i in idx]) * window
        mag = np.log1p(100 * np.abs(np.fft.rfft(seg, axis=1)))
        if prev is not None:
            mag_prev = np.vstack([prev[None], mag[:-1]])
        else:
            mag_prev = np.vstack([mag[:1], mag[:-1]])
        out[idx] = np.maximum(0, mag - mag_prev).sum(1)
        prev = mag[-1]
    return out


def alignment(x, rate, beats):
    env = onset_strength(x, rate)
    hop_s = HOP / rate
    lags = np.arange(-60, 61)  # ms
    scores = []
    for lag in lags:
        # The frame whose analysis window starts ~ at the onset peaks a little earlier: centre it.
        idx = np.round((beats + lag / 1000.0) / hop_s - 1024 / HOP / 2).astype(int)
        idx = idx[(idx >= 0) & (idx < len(env))]
        scores.append(env[idx].mean() if len(idx) else 0.0)
    scores = np.array(scores)
    best = int(lags[np.argmax(scores)])
    return best, float(scores.max() / (scores.mean() + 1e-12))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--parts")
    ap.add_argument("--limit", type=float, default=300.0, help="seconds of each track to check (0: all)")
    args = ap.parse_args()
    with open(os.path.join(cl.CORPUS, "manifest.json")) as f:
        tracks = json.load(f)["tracks"]
    parts = set(args.parts.split(",")) if args.parts else None
    bad = 0
    summary = {}
    for t in tracks:
        if parts and t["part"] not in parts:
            continue
        path = os.path.join(cl.CORPUS, t["path"])
        if not os.path.exists(path):
            print(f"MISSING {t['path']}")
            bad += 1
            continue
        rate, x = load(path, args.limit)
        if t["beats"] is None:
            print(f"{t['path']}: {len(x) / rate:.1f} s, no beats")
            continue
        beats = np.array(cl.read_times(os.path.join(cl.CORPUS, t["beats"])))
        if len(beats) < 2 or np.any(np.diff(beats) <= 0):
            print(f"BAD {t['beats']}: not increasing")
            bad += 1
            continue
        if args.limit:
            beats = beats[beats < args.limit]
        lag, peak = alignment(x, rate, beats)
        summary.setdefault(t["part"], []).append((lag, peak))
        flag = "  <-- check" if abs(lag) > 25 or peak < 1.3 else ""
        print(f"{t['path']}: {len(beats)} beats, lag {lag:+d} ms, peak x{peak:.2f}{flag}", flush=True)
    for part, rows in summary.items():
        lags = np.array([r[0] for r in rows])
        print(f"{part}: {len(rows)} tracks, lag median {np.median(lags):+.0f} ms, |lag| > 25 ms: "
              f"{int(np.sum(np.abs(lags) > 25))}, flat (x<1.3): {sum(r[1] < 1.3 for r in rows)}")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
