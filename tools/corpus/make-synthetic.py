#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Synthesises the analyzer's development corpus with exact ground truth.

Every track is our own deterministic synthesis (drums, bass and pads from sines and seeded noise), so
the beat times it was built on are the ground truth: no annotation, no one else's audio. Writes
corpus/synthetic/NAME.wav (44.1 kHz stereo, 16-bit) and NAME.beats (one beat time in seconds per
line) for each track, covering 60-200 BPM, tempo changes, swing, syncopation, silent and beatless
intros, noise, fades and quiet passages.

    python3 tools/corpus/make-synthetic.py [OUT_DIR]          # default: corpus/synthetic
    python3 tools/corpus/make-synthetic.py --long 3600 FILE   # one long track (benchmarks)

Needs numpy (PyPI).
"""
import os
import sys
import wave

import numpy as np

RATE = 44100
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


class Mix:
    """A stereo buffer that sounds are added to at exact sample positions."""

    def __init__(self, seconds):
        self.left = np.zeros(int(round(seconds * RATE)))
        self.right = np.zeros(int(round(seconds * RATE)))

    def add(self, time, sound, gain=1.0, pan=0.0):
        start = int(round(time * RATE))
        if start >= len(self.left) or start + len(sound) <= 0:
            return
        s0 = max(0, start)
        s1 = min(len(self.left), start + len(sound))
        part = sound[s0 - start:s1 - start] * gain
        angle = (pan + 1) * np.pi / 4
        self.left[s0:s1] += part * np.cos(angle)
        self.right[s0:s1] += part * np.sin(angle)


def kick(rng):
    t = np.arange(int(0.25 * RATE)) / RATE
    freq = 45 + 90 * np.exp(-t / 0.04)
    phase = 2 * np.pi * np.cumsum(freq) / RATE
    click = rng.standard_normal(len(t)) * np.exp(-t / 0.002) * 0.3
    return (np.sin(phase) * np.exp(-t / 0.12) + click) * 0.9


def snare(rng):
    t = np.arange(int(0.2 * RATE)) / RATE
    noise = rng.standard_normal(len(t))
    body = np.sin(2 * np.pi * 185 * t) * np.exp(-t / 0.05)
    return (noise * np.exp(-t / 0.06) * 0.5 + body * 0.6) * 0.8


def hat(rng, open_=False):
    length = 0.25 if open_ else 0.05
    t = np.arange(int(length * RATE)) / RATE
    noise = rng.standard_normal(len(t))
    bright = np.diff(noise, prepend=0.0)
    return bright * np.exp(-t / (0.08 if open_ else 0.012)) * 0.25


def bass_note(freq, seconds):
    t = np.arange(int(seconds * RATE)) / RATE
    env = np.minimum(1, t / 0.005) * np.exp(-t / 0.4)
    return (np.sin(2 * np.pi * freq * t) + 0.3 * np.sin(4 * np.pi * freq * t)) * env * 0.35


def pad_chord(freqs, seconds, attack=0.3):
    t = np.arange(int(seconds * RATE)) / RATE
    env = np.minimum(1, t / attack) * np.minimum(1, (seconds - t) / 0.2)
    out = np.zeros(len(t))
    for f in freqs:
        out += np.sin(2 * np.pi * f * t) + 0.2 * np.sin(2 * np.pi * 2.01 * f * t)
    return out * env * 0.08


class Song:
    """A drum-and-bass groove laid out on a tempo map; records every beat it places."""

    def __init__(self, seconds, seed):
        self.mix = Mix(seconds)
        self.rng = np.random.default_rng(seed)
        self.seconds = seconds
        self.beats = []
        self.sounds = {"kick": kick(self.rng), "snare": snare(self.rng), "hat": hat(self.rng), "open": hat(self.rng, True)}

    def groove(self, start, bpm, bars, swing=0.0, syncopated=False, gain=1.0, eighths=True, fade=None):
        """`bars` bars of 4/4 from `start`; returns the time after the last bar."""
        period = 60.0 / bpm
        roots = [55.0, 55.0, 65.4, 49.0]
        for bar in range(bars):
            for beat in range(4):
                t = start + (bar * 4 + beat) * period
                if t >= self.seconds - 0.05:
                    return t
                g = gain * (fade(t) if fade else 1.0)
                self.beats.append(t)
                if syncopated:
                    # Kick on 1 and on the "and" of 2 and 3, snare on 2 and 4: the beat is not where the kicks are.
                    if beat == 0:
                        self.mix.add(t, self.sounds["kick"], g)
                    if beat in (1, 2):
                        self.mix.add(t + period / 2, self.sounds["kick"], g * 0.9)
                else:
                    if beat in (0, 2):
                        self.mix.add(t, self.sounds["kick"], g)
                if beat in (1, 3):
                    self.mix.add(t, self.sounds["snare"], g, pan=0.1)
                self.mix.add(t, self.sounds["hat"], g * 0.8, pan=0.4)
                if eighths:
                    off = t + period * (0.5 + swing / 2)
                    self.mix.add(off, self.sounds["hat"], g * 0.5, pan=0.4)
                root = roots[bar % 4]
                if beat % 2 == 0 or syncopated:
                    self.mix.add(t, bass_note(root, period * 0.9), g, pan=-0.2)
        return start + bars * 4 * period

    def pads(self, start, bpm, bars, gain=1.0):
        """Beatless pad chords, one per bar, from `start`."""
        period = 60.0 / bpm
        chords = [[220, 277, 330], [196, 247, 294], [175, 220, 262], [196, 247, 311]]
        for bar in range(bars):
            self.mix.add(start + bar * 4 * period, pad_chord(chords[bar % 4], 4 * period + 0.2), gain)
        return start + bars * 4 * period

    def noise(self, level):
        self.mix.left += self.rng.standard_normal(len(self.mix.left)) * level
        self.mix.right += self.rng.standard_normal(len(self.mix.right)) * level

    def write(self, path):
        peak = max(np.max(np.abs(self.mix.left)), np.max(np.abs(self.mix.right)), 1e-9)
        scale = 0.8 / peak
        frames = np.empty(2 * len(self.mix.left), dtype=np.int16)
        frames[0::2] = np.clip(self.mix.left * scale * 32767, -32768, 32767).astype(np.int16)
        frames[1::2] = np.clip(self.mix.right * scale * 32767, -32768, 32767).astype(np.int16)
        with wave.open(path + ".wav", "wb") as out:
            out.setnchannels(2)
            out.setsampwidth(2)
            out.setframerate(RATE)
            out.writeframes(frames.tobytes())
        with open(path + ".beats", "w") as out:
            out.writelines(f"{b:.6f}\n" for b in sorted(self.beats))


def straight(name, bpm, seed, seconds=45.0, start=0.4, **kwargs):
    song = Song(seconds, seed)
    bars = int((seconds - start) / (4 * 60 / bpm)) + 1
    song.groove(start, bpm, bars, **kwargs)
    return name, song


def tracks():
    """The corpus: (name, Song)."""
    out = []
    for i, bpm in enumerate([60, 72, 85, 96, 108, 120, 128, 140, 150, 165, 174, 185, 200]):
        out.append(straight(f"straight-{bpm}", bpm, seed=100 + i, start=0.25 + 0.037 * i))
    out.append(straight("quarter-hats-70", 70, seed=5, eighths=False))
    out.append(straight("swing-95", 95, seed=6, swing=1 / 3))
    out.append(straight("swing-132", 132, seed=7, swing=1 / 3))
    out.append(straight("syncopated-112", 112, seed=8, syncopated=True))
    out.append(straight("syncopated-160", 160, seed=9, syncopated=True))
    # Tempo changes: the second tempo starts on the bar after the first tempo's last bar.
    for name, (a, b), seed in [("change-128-150", (128, 150), 10), ("change-150-120", (150, 120), 11),
                               ("change-90-120", (90, 120), 12)]:
        song = Song(48.0, seed)
        end = song.groove(0.5, a, 12)
        song.groove(end, b, 40)
        out.append((name, song))
    # Silent intro, beatless (pad) intro, noise, fades, a quiet passage.
    song = Song(45.0, 13)
    song.groove(6.0, 124, 40)
    out.append(("silent-intro-124", song))
    song = Song(50.0, 14)
    end = song.pads(0.5, 104, 4)
    song.groove(end, 104, 40)
    song.beats = [0.5 + k * 60 / 104 for k in range(16)] + song.beats
    out.append(("pad-intro-104", song))
    name, song = straight("noise-136", 136, seed=15)
    song.noise(0.08)
    out.append((name, song))
    name, song = straight("fades-116", 116, seed=16, fade=lambda t: min(1.0, t / 8.0, max(0.0, (45 - t) / 10.0)))
    out.append((name, song))
    song = Song(45.0, 17)
    quiet = lambda t: 0.1 if 16 <= t < 28 else 1.0
    song.groove(0.6, 144, 40, fade=quiet)
    out.append(("quiet-passage-144", song))
    return out


def write_long(seconds, path):
    """A long 128 BPM track: one minute (exactly 128 beats) repeated, written minute by minute."""
    song = Song(60.0, 99)
    song.groove(0.0, 128, 32)
    peak = max(np.max(np.abs(song.mix.left)), np.max(np.abs(song.mix.right)))
    frames = np.empty(2 * len(song.mix.left), dtype=np.int16)
    frames[0::2] = np.clip(song.mix.left / peak * 0.8 * 32767, -32768, 32767).astype(np.int16)
    frames[1::2] = np.clip(song.mix.right / peak * 0.8 * 32767, -32768, 32767).astype(np.int16)
    minutes = max(1, int(round(seconds / 60)))
    with wave.open(path, "wb") as out:
        out.setnchannels(2)
        out.setsampwidth(2)
        out.setframerate(RATE)
        for _ in range(minutes):
            out.writeframes(frames.tobytes())


def main(argv):
    if len(argv) >= 3 and argv[0] == "--long":
        write_long(float(argv[1]), argv[2])
        return
    folder = argv[0] if argv else os.path.join(ROOT, "corpus", "synthetic")
    os.makedirs(folder, exist_ok=True)
    for name, song in tracks():
        song.write(os.path.join(folder, name))
        print(name, file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1:])
