#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Synthesises BeatMapKit's demo tracks into Audio/ and their exact beat maps into BeatMaps/.

Everything here is our own deterministic synthesis (drums, bass and pads from sine waves and a seeded
noise generator): the same script gives the same samples every run. The tracks are released under
CC0-1.0 (see Audio/README.md). Needs python3 (standard library only), oggenc (Debian vorbis-tools) and sox (FLAC).

    python3 tools/make-demo.py            # writes Audio/*.ogg|flac and BeatMaps/*.beatmap.json
"""
import hashlib
import math
import os
import subprocess
import sys
import tempfile
import wave
from array import array

RATE = 44100
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def decimal(value):
    """The map writer's number format: rounded to microseconds, plain decimal, no trailing zeros."""
    micros = int(round(value * 1_000_000))
    if micros == 0:
        return "0.0"
    sign = "-" if micros < 0 else ""
    whole, frac = divmod(abs(micros), 1_000_000)
    if frac == 0:
        return f"{sign}{whole}.0"
    return f"{sign}{whole}." + f"{frac:06d}".rstrip("0")


class Noise:
    """A seeded 32-bit LCG: deterministic white noise in [-1, 1)."""

    def __init__(self, seed):
        self.state = seed & 0xFFFFFFFF

    def next(self):
        self.state = (1664525 * self.state + 1013904223) & 0xFFFFFFFF
        return self.state / 2147483648.0 - 1.0


class Track:
    def __init__(self, seconds):
        self.frames = int(round(seconds * RATE))
        self.left = array("d", bytes(8 * self.frames))
        self.right = array("d", bytes(8 * self.frames))

    def add(self, start, samples, pan=0.0):
        """Adds mono `samples` from frame `start`; pan -1 (left) … 1 (right), equal power."""
        angle = (pan + 1) * math.pi / 4
        gl, gr = math.cos(angle), math.sin(angle)
        end = min(self.frames, start + len(samples))
        left, right = self.left, self.right
        for i in range(max(0, start), end):
            s = samples[i - start]
            left[i] += gl * s
            right[i] += gr * s


def kick(length=0.30):
    n = int(length * RATE)
    out, phase = [], 0.0
    for i in range(n):
        t = i / RATE
        freq = 50 + 110 * math.exp(-t * 30)
        phase += 2 * math.pi * freq / RATE
        out.append(0.95 * math.sin(phase) * math.exp(-t * 9))
    return out


def snare(noise, length=0.18):
    n = int(length * RATE)
    return [
        (0.45 * noise.next() + 0.35 * math.sin(2 * math.pi * 185 * i / RATE)) * math.exp(-i / RATE * 22)
        for i in range(n)
    ]


def hat(noise, length=0.05, level=0.22):
    n = int(length * RATE)
    out, previous = [], 0.0
    for i in range(n):
        x = noise.next()
        out.append(level * (x - previous) * math.exp(-i / RATE * 70))  # first difference: bright
        previous = x
    return out


def tone(freq, length, level, harmonics=(1.0,), attack=0.01, release=0.08):
    n = int(length * RATE)
    out = []
    for i in range(n):
        t = i / RATE
        env = min(1.0, t / attack) * min(1.0, (length - t) / release if length - t < release else 1.0)
        s = sum(a * math.sin(2 * math.pi * freq * (h + 1) * t) for h, a in enumerate(harmonics))
        out.append(level * env * s)
    return out


def midi(note):
    return 440.0 * 2 ** ((note - 69) / 12)


def render(segments, seconds, seed, swing=0.0):
    """segments: list of (start_time, bpm, beats, beats_per_bar). Returns (track, beat_times)."""
    played = []
    for start, bpm, count, per_bar in segments:
        period = 60.0 / bpm
        for k in range(count):
            played.append((start + k * period, period, k % per_bar, per_bar))
    return play(played, seconds, seed, swing)


def drifting(start, bpm, count, per_bar, depth, cycle):
    """`count` beats from `start` whose tempo drifts around `bpm` as a band's does without a click: by
    up to `depth` (a fraction) either way, over a cycle of `cycle` beats. (time, seconds to the next
    beat, position in the bar, beats per bar) each."""
    played = []
    t = start
    for k in range(count):
        period = 60.0 / (bpm * (1 + depth * math.sin(2 * math.pi * k / cycle) + 0.4 * depth * math.sin(2 * math.pi * k / (cycle / 3.1))))
        played.append((t, period, k % per_bar, per_bar))
        t += period
    return played


def play(played, seconds, seed, swing=0.0):
    """Drums, bass and pads on `played`: (time, seconds to the next beat, position in the bar, beats
    per bar) per beat. Returns (track, beat_times)."""
    track = Track(seconds)
    noise = Noise(seed)
    kick_sample = kick()
    beats = []
    progression = [(45, [57, 60, 64]), (41, [53, 57, 60]), (48, [55, 60, 64]), (43, [55, 59, 62])]
    bar_index = 0
    for t, period, position, per_bar in played:
        beats.append(t)
        frame = int(round(t * RATE))
        if position == 0 or (per_bar == 4 and position == 2):
            track.add(frame, kick_sample)
        if per_bar == 4 and position in (1, 3):
            track.add(frame, snare(noise), pan=0.1)
        # Eighth-note hats; swing delays the off-beat hat.
        track.add(frame, hat(noise, level=0.25 if position == 0 else 0.18), pan=0.5)
        off = t + period * (0.5 + swing)
        track.add(int(round(off * RATE)), hat(noise, level=0.12), pan=0.5)
        if position == 0:
            root, chord = progression[bar_index % len(progression)]
            bar_index += 1
            bar = per_bar * period
            track.add(frame, tone(midi(root), period * 0.9, 0.30, (1.0, 0.5, 0.25)), pan=-0.1)
            track.add(int(round((t + 2 * period) * RATE)), tone(midi(root + 7), period * 0.9, 0.25, (1.0, 0.5)), pan=-0.1)
            for i, note in enumerate(chord):
                track.add(frame, tone(midi(note), bar * 0.95, 0.05, (1.0, 0.3), attack=0.08, release=0.3), pan=-0.6 + 0.6 * i)
    return track, beats


def write_wav(track, path):
    peak = max(max(abs(x) for x in track.left), max(abs(x) for x in track.right), 1e-9)
    gain = 0.8 / peak
    pcm = array("h")
    for l, r in zip(track.left, track.right):
        pcm.append(int(round(max(-1.0, min(1.0, l * gain)) * 32767)))
        pcm.append(int(round(max(-1.0, min(1.0, r * gain)) * 32767)))
    if sys.byteorder == "big":
        pcm.byteswap()
    with wave.open(path, "wb") as w:
        w.setnchannels(2)
        w.setsampwidth(2)
        w.setframerate(RATE)
        w.writeframes(pcm.tobytes())


def encode(wav, out):
    if out.endswith(".ogg"):
        # A fixed stream serial number keeps the file byte-identical from run to run.
        subprocess.run(["oggenc", "--quiet", "--serial", "20261121", "-q", "5", "-o", out, wav], check=True)
    elif out.endswith(".flac"):
        subprocess.run(["sox", "-q", wav, "-C", "8", out], check=True)
    else:
        raise ValueError(out)


def write_map(name, audio_file, frames, tempo, beats, description):
    """The map of `beats`; `tempo`: (time, bpm, beats per bar or None) per segment."""
    with open(audio_file, "rb") as f:
        sha = hashlib.sha256(f.read()).hexdigest()
    lines = [
        "{",
        '  "version": 1,',
        '  "audio": {',
        f'    "path": "../Audio/{os.path.basename(audio_file)}",',
        f'    "duration": {decimal(frames / RATE)},',
        f'    "sampleRate": {RATE},',
        f'    "sha256": "{sha}"',
        "  },",
        '  "tempo": [',
    ]
    for i, (start, bpm, per_bar) in enumerate(tempo):
        comma = "," if i + 1 < len(tempo) else ""
        meter = f', "beatsPerBar": {per_bar}' if per_bar else ""
        lines.append(f'    {{ "time": {decimal(start)}, "bpm": {decimal(bpm)}{meter} }}{comma}')
    lines.append("  ],")
    lines.append('  "beats": [')
    for i, t in enumerate(beats):
        lines.append(f"    {decimal(t)}" + ("," if i + 1 < len(beats) else ""))
    lines.append("  ],")
    lines.append('  "analysis": {')
    lines.append('    "tool": "tools/make-demo.py",')
    lines.append('    "method": "ground truth: the beat times the track was synthesised on",')
    lines.append(f'    "description": "{description}"')
    lines.append("  }")
    lines.append("}")
    path = os.path.join(ROOT, "BeatMaps", name + ".beatmap.json")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    return path


DEMOS = [
    # name, extension, seconds, segments (start, bpm, beats, beats per bar), swing, description
    ("demo-120", "ogg", 32.0, [(0.5, 120.0, 62, 4)], 0.0, "120 BPM, 4/4, straight eighths"),
    ("demo-tempo-change", "flac", 32.0, [(0.5, 128.0, 32, 4), (15.5, 150.0, 40, 4)], 0.0,
     "128 BPM for 8 bars, then 150 BPM"),
    ("demo-95-shuffle", "ogg", 30.0, [(0.25, 95.0, 44, 4)], 0.16, "95 BPM, 4/4, swung eighths"),
]

# A band without a click: the tempo drifts, so the map follows it beat by beat, a tempo segment per
# beat with the meter on the segments that start a bar, as `beatmap analyze` writes such music.
DRIFT = ("demo-drift", "ogg", 30.0, (0.4, 100.0, 48, 4, 0.04, 24),
         "about 100 BPM, 4/4, drifting up to 4 % either way as a band without a click does")


def publish(scratch, name, ext, track, tempo, beats, description):
    """Encodes `track` to Audio/NAME.EXT and writes its map; prints both."""
    wav = os.path.join(scratch, name + ".wav")
    write_wav(track, wav)
    out = os.path.join(ROOT, "Audio", f"{name}.{ext}")
    if os.path.exists(out):
        os.remove(out)
    encode(wav, out)
    path = write_map(name, out, track.frames, tempo, beats, description)
    print(f"{os.path.relpath(out, ROOT)}  {os.path.relpath(path, ROOT)}  ({len(beats)} beats)")


def main():
    os.makedirs(os.path.join(ROOT, "Audio"), exist_ok=True)
    os.makedirs(os.path.join(ROOT, "BeatMaps"), exist_ok=True)
    with tempfile.TemporaryDirectory() as scratch:
        for name, ext, seconds, segments, swing, description in DEMOS:
            track, beats = render(segments, seconds, seed=len(name) * 7919, swing=swing)
            tempo = [(start, bpm, per_bar) for start, bpm, _, per_bar in segments]
            publish(scratch, name, ext, track, tempo, beats, description)
        name, ext, seconds, shape, description = DRIFT
        played = drifting(*shape)
        track, beats = play(played, seconds, seed=len(name) * 7919)
        tempo = [(t, 60.0 / period, per_bar if position == 0 else None) for t, period, position, per_bar in played]
        publish(scratch, name, ext, track, tempo, beats, description)


if __name__ == "__main__":
    main()
