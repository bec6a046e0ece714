#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""General-MIDI part of the analyzer's corpus: our own songs and Debian's OpenMSX songs, rendered with
fluidsynth and the FluidR3 GM soundfont, with ground truth from each file's tempo map.

Our own songs (corpus/midi/gm-*.wav) are written here, by the composer below, with PyPI's mido: rock,
metal at 170-184 BPM with half-time sections, funk, four-on-the-floor EDM, a ballad, a blues shuffle,
jazz swing, a 3/4 waltz, a 6/8 song, drum and bass, hip-hop, trap, reggae, bossa nova, punk, disco,
songs with a quiet beatless pad intro, breakdowns without drums, a fill-heavy section, three songs with
one tempo step at a bar line, a ritardando and an accelerando. Then nine songs in 3/4 and 6/8 or with a
pickup, for the bar estimate (meter-*), and nine medleys (medley-A-B): two songs joined at a bar line
with one tempo step of more than 30 %, from A to B BPM (100->140, 96->128, 90->150, 128->174, 120->160,
170->120, 150->100, 140->96, 180->128), the style, groove, drum kit, instruments and chords all changing
at the step (medley_step). A seeded random generator (Python's random.Random, one seed per song) picks
velocities, melodies and fills, so the MIDI files and the audio are byte-identical on every run. The
songs are ours (GPL-3.0-or-later, like this script). The OpenMSX songs (Debian package openttd-openmsx,
GPL-2) are only rendered locally, as corpus/midi/openmsx-*.wav; nothing of them is committed.

Rendering: `fluidsynth -ni -g 0.5 -O float -F TMP.wav -r 44100 FluidR3_GM.sf2 SONG.mid`, then scaled to a
-1 dBFS peak and written as 44.1 kHz 16-bit stereo WAV (no dither), so renders are deterministic.

Ground truth (NAME.beats): one beat per time-signature denominator note (quarter notes in x/4, eighth
notes in x/8: the 6/8 song's beats are its eighth notes), counted from each time signature's start,
from the last beat at or before the first note-on to the last beat at or before the last note-off.
Each beat's time is where fluidsynth's MIDI player actually starts an event at that tick: fluidsynth
runs its player once per 64-frame block with millisecond timing, so an event sounds from the first
block boundary its tick has been reached at (0-1.45 ms after the tempo map's time, and each tempo
change slips the grid after it by that rounding). corpuslib.fluid_event_frames models it;
check-timing.py verifies the model against rendered clicks to the frame. NAME.drums lists the kick
(GM notes 35, 36) and snare (38, 40) hits of MIDI channel 10 where their sound starts: the note-on
timed the same way, plus the drum sample's own attack delay (corpuslib.fluid_drum_attacks).

    python3 tools/corpus/make-midi.py [--force] [--only NAME,...] [--jobs N]   # N renders at once (2)
    python3 tools/corpus/make-midi.py --truth-only   # only the truth files and index: no render

Writes corpus/midi/NAME.wav, .beats, .downbeats, .drums, corpus/midi/mid/NAME.mid (our songs' MIDI files) and
corpus/midi/index.json. Needs fluidsynth, fluid-soundfont-gm, openttd-openmsx (Debian), mido and
numpy (PyPI; mido is pip-installed if missing).
"""
import glob
import os
import random
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import corpuslib as cl  # noqa: E402

cl.ensure_python_packages("mido")
import mido  # noqa: E402
import numpy as np  # noqa: E402

PPQ = 480
OPENMSX = "/usr/share/games/openttd/baseset/openmsx"
DRUMS = 9
BASS, COMP, LEAD, PAD, EXTRA = 0, 1, 2, 3, 4

NOTE = {"C": 0, "D": 2, "E": 4, "F": 5, "G": 7, "A": 9, "B": 11}
QUALITY = {"": [0, 4, 7], "m": [0, 3, 7], "7": [0, 4, 7, 10], "m7": [0, 3, 7, 10], "maj7": [0, 4, 7, 11],
           "5": [0, 7, 12], "sus4": [0, 5, 7], "dim": [0, 3, 6], "m9": [0, 3, 7, 10, 14], "add9": [0, 4, 7, 14],
           "9": [0, 4, 7, 10, 14], "6": [0, 4, 7, 9]}

# GM percussion keys
KICK, KICK2, STICK, SNARE, CLAP, SNARE2 = 36, 35, 37, 38, 39, 40
HAT, PEDAL, OPEN, CRASH, RIDE, BELL, CHINA, SPLASH = 42, 44, 46, 49, 51, 53, 52, 55
TOMS = [50, 48, 47, 45, 43, 41]  # high to low
TAMB, COWBELL, SHAKER, CLAVES = 54, 56, 70, 75


def chord(name):
    """'Am7' -> (pitch class, intervals)."""
    root = NOTE[name[0]]
    rest = name[1:]
    if rest[:1] == "#":
        root, rest = root + 1, rest[1:]
    elif rest[:1] == "b":
        root, rest = root - 1, rest[1:]
    return root % 12, QUALITY[rest]


def near(pc, low):
    """The MIDI note of pitch class pc at or above `low`."""
    return low + (pc - low) % 12


class Song:
    """A multi-track General-MIDI song laid out in bars; saved as a type-1 MIDI file."""

    def __init__(self, name, seed, bpm, num=4, den=4):
        self.name = name
        self.rng = random.Random(seed)
        self.num, self.den = num, den
        self.bar = num * PPQ * 4 // den
        self.unit = PPQ * 4 // den
        self.meta = []
        self.events = {}
        self.seq = 0
        self.tempo(0, bpm)
        self.meta.append((0, 0, mido.MetaMessage("time_signature", numerator=num, denominator=den)))
        self.pos = 0  # tick of the next section's first bar
        self.jitter = {}  # channel -> +- ticks of timing jitter (a human player)

    # -- raw events
    def _add(self, ch, tick, order, msg):
        self.seq += 1
        self.events.setdefault(ch, []).append((tick, order, self.seq, msg))

    def tempo(self, tick, bpm):
        self.meta.append((tick, 1, mido.MetaMessage("set_tempo", tempo=mido.bpm2tempo(bpm))))

    def program(self, ch, prog, volume=100, pan=64, reverb=40, tick=0):
        self._add(ch, tick, 0, mido.Message("program_change", channel=ch, program=prog))
        self._add(ch, tick, 0, mido.Message("control_change", channel=ch, control=7, value=volume))
        self._add(ch, tick, 0, mido.Message("control_change", channel=ch, control=10, value=pan))
        self._add(ch, tick, 0, mido.Message("control_change", channel=ch, control=91, value=reverb))

    def note(self, ch, tick, dur, key, vel):
        j = self.jitter.get(ch, 0)
        if j:
            tick = max(0, tick + self.rng.randint(-j, j))
        vel = int(max(1, min(127, vel + self.rng.randint(-5, 5))))
        key = int(max(0, min(127, key)))
        self._add(ch, tick, 1, mido.Message("note_on", channel=ch, note=key, velocity=vel))
        self._add(ch, tick + max(1, int(dur)), 0, mido.Message("note_off", channel=ch, note=key, velocity=0))

    def hit(self, tick, key, vel, dur=PPQ // 8):
        self.note(DRUMS, tick, dur, key, vel)

    def save(self, path):
        mid = mido.MidiFile(ticks_per_beat=PPQ, type=1)
        conductor = mido.MidiTrack()
        conductor.append(mido.MetaMessage("track_name", name=self.name))
        last = 0
        for tick, _, msg in sorted(self.meta, key=lambda e: (e[0], e[1])):
            conductor.append(msg.copy(time=tick - last))
            last = tick
        mid.tracks.append(conductor)
        for ch in sorted(self.events):
            track = mido.MidiTrack()
            last = 0
            for tick, _, _, msg in sorted(self.events[ch], key=lambda e: (e[0], e[1], e[2])):
                track.append(msg.copy(time=tick - last))
                last = tick
            mid.tracks.append(track)
        mid.save(path)

    # -- sections: `bars` bars from self.pos; `chords` one name per bar (cycled)
    def section(self, bars, chords, **layers):
        """Lays out one section. layers: drums=(groove, fill_every or 0), bass=style, comp=style,
        lead=True/'busy', pad=True, extra=style, crash=True (a crash on its first beat)."""
        start = self.pos
        for b in range(bars):
            t0 = start + b * self.bar
            name = chords[b % len(chords)]
            nxt = chords[(b + 1) % len(chords)]
            if "drums" in layers and layers["drums"]:
                groove, fill_every = layers["drums"] if isinstance(layers["drums"], tuple) else (layers["drums"], 0)
                fill = fill_every and (b + 1) % fill_every == 0
                drum_bar(self, t0, groove, fill=fill, crash=(b == 0 and layers.get("crash", True)),
                         last=(b == bars - 1))
            if layers.get("bass"):
                bass_bar(self, t0, layers["bass"], name, nxt)
            if layers.get("comp"):
                comp_bar(self, t0, layers["comp"], name, b)
            if layers.get("pad"):
                pad_bar(self, t0, name, layers.get("pad_vel", 60), layers["pad"] if layers["pad"] != True else 1, b)
            if layers.get("lead"):
                lead_bar(self, t0, name, b, layers["lead"])
            if layers.get("extra"):
                comp_bar(self, t0, layers["extra"], name, b, ch=EXTRA)
        self.pos = start + bars * self.bar
        return start

    def ending(self, chord_name, drums=True, beats=None):
        """A final hit: chord, bass and crash on the downbeat, held for a bar."""
        t0 = self.pos
        pc, iv = chord(chord_name)
        dur = (beats or self.num) * self.unit
        self.note(BASS, t0, dur, near(pc, 28), 105)
        for i in iv[:3]:
            self.note(COMP, t0, dur, near(pc, 48) + i, 95)
        if drums:
            self.hit(t0, KICK, 120)
            self.hit(t0, CRASH, 120, PPQ * 2)
        self.pos = t0 + dur


# ---------------------------------------------------------------- drums
VEL = {"X": 122, "x": 98, "-": 74, "o": 44}

GROOVES = {
    # 16 steps per 4/4 bar unless the strings say otherwise (12 = triplet grid, 6/3 = eighth notes of 6/8, 3/4)
    "rock": {KICK: "x.......x.x.....", SNARE: "....X.......X...", HAT: "x-x-x-x-x-x-x-x-"},
    "rock-ride": {KICK: "x.......x.x.....", SNARE: "....X.......X...", RIDE: "x-x-x-x-x-x-x-x-"},
    "rock-busy": {KICK: "x..x..x.x.x..x..", SNARE: "....X..o....X..o", HAT: "x-x-x-x-x-x-x-x-"},
    "metal": {KICK: "xxxxxxxxxxxxxxxx", SNARE: "....X.......X...", RIDE: "x...x...x...x...", CRASH: "x..............."},
    "metal-gallop": {KICK: "x.xxx.xxx.xxx.xx", SNARE: "....X.......X...", CHINA: "x.......x......."},
    "halftime": {KICK: "x.....x...x.....", SNARE: "........X.......", CRASH: "x.......x.......", RIDE: "..x...x...x...x."},
    "halftime-2": {KICK: "xx....x...xx....", SNARE: "........X.......", RIDE: "x.x.x.x.x.x.x.x."},
    "punk": {KICK: "x...x...x...x...", SNARE: "..X...X...X...X.", CRASH: "x.x.x.x.x.x.x.x."},
    "funk": {KICK: "x..x..x...x..x..", SNARE: "....X..o.o..X..o", HAT: "X-x-X-x-X-x-X-xo", OPEN: "..............x."},
    "funk-2": {KICK: "x.x...x..x..x...", SNARE: "....X.o.o..oX.o.", HAT: "X-x-X-x-X-x-X-x-"},
    "edm": {KICK: "X...X...X...X...", CLAP: "....x.......x...", OPEN: "..x...x...x...x.", HAT: "x.x.x.x.x.x.x.x."},
    "edm-build": {KICK: "x...x...x...x...", SNARE: "x.x.x.x.x.x.x.x."},
    "edm-build2": {KICK: "x...x...x...x...", SNARE: "xxxxxxxxxxxxxxxx"},
    "disco": {KICK: "x...x...x...x...", SNARE: "....x.......x...", OPEN: "..x...x...x...x.", HAT: "x.x.x.x.x.x.x.x.", TAMB: "....x.......x..."},
    "ballad": {KICK: "x.......x.x.....", STICK: "....x.......x...", HAT: "x.-.x.-.x.-.x.-."},
    "ballad-full": {KICK: "x.......x.x.....", SNARE: "....x.......x...", RIDE: "x.-.x.-.x.-.x.-."},
    "dnb": {KICK: "X.........x.....", SNARE: "....X.......X...", HAT: "x.xxx.xxx.xxx.x-", RIDE: "x...x...x...x..."},
    "dnb-2": {KICK: "X.........x..x..", SNARE: "....X..o....X...", HAT: "x-x-x-x-x-x-x-x-"},
    "hiphop": {KICK: "x.....x...x..x..", SNARE: "....X.......X...", HAT: "x-x-x-x-x-x-x-x-"},
    "trap": {KICK: "x......x..x.....", CLAP: "........X.......", HAT: "x.x.x.x.xxx.x.xx"},
    "trap-roll": {KICK: "x......x..x.....", CLAP: "........X.......", HAT: "xxxxxxxxxxxxxxxx"},
    "reggae": {KICK: "........x.......", STICK: "........x.......", HAT: "x.x.x.x.x.x.x.x."},
    "bossa": {KICK: "x..xx..xx..xx..x", STICK: "x..x..x...x..x..", HAT: "-x-x-x-x-x-x-x-x"},
    "shuffle": {KICK: "x.....x.....", SNARE: "...x.....x..", HAT: "x.-x.-x.-x.-"},
    "swing": {RIDE: "x..x.-x..x.-", PEDAL: "...x.....x..", KICK: "o..o..o..o.."},
    "train": {KICK: "x.......x.......", SNARE: "oxoXoxoXoxoXoxoX"},
    "waltz": {KICK: "x.....", SNARE: "..o.o.", HAT: "x.x.x."},
    "sixeight": {KICK: "x.....", SNARE: "...x..", HAT: "x-xx-x"},
    "sixeight-soft": {KICK: "x.....", STICK: "...x..", RIDE: "x-x-x-"},
    "jazzwaltz": {RIDE: "x.-x.-x.-", PEDAL: "...x..x..", KICK: "o........"},
    "waltz-rock": {KICK: "x.....", SNARE: "..x.x.", HAT: "x-x-x-"},
    "sixeight-rock": {KICK: "x.x...", SNARE: "...X..", HAT: "xxxxxx"},
}


def drum_bar(song, t0, groove, fill=False, crash=False, last=False):
    pattern = GROOVES[groove]
    fill_from = None
    if fill:
        fill_from = song.bar - song.unit * (2 if song.rng.random() < 0.4 else 1)
    for key, steps in pattern.items():
        n = len(steps)
        step = song.bar // n
        swing = getattr(song, "swing", 0.0)
        for i, c in enumerate(steps):
            if c == ".":
                continue
            t = i * step
            if swing and n == 16 and i % 2 == 1:
                t += int(step * swing)
            if fill_from is not None and t >= fill_from and key not in (KICK, KICK2):
                continue
            vel = VEL[c]
            if crash and i == 0 and key in (HAT, RIDE, OPEN):
                key_here = CRASH
            else:
                key_here = key
            song.hit(t0 + t, key_here, vel, PPQ if key_here in (CRASH, CHINA, OPEN) else PPQ // 8)
    if crash and all(k not in pattern for k in (HAT, RIDE, OPEN)):
        song.hit(t0, CRASH, 115, PPQ)
    if fill_from is not None:
        drum_fill(song, t0 + fill_from, song.bar - fill_from)


def drum_fill(song, t, length, density=4):
    """A fill over `length` ticks: sixteenths (or triplets) down the toms, some snare flams."""
    rng = song.rng
    step = PPQ // density if rng.random() < 0.75 else PPQ // 3
    n = max(1, length // step)
    kind = rng.choice(["down", "snare-toms", "snare", "flat"])
    for i in range(n):
        if kind == "snare" or (kind == "snare-toms" and i < n // 2):
            key = SNARE
        elif kind == "flat":
            key = [SNARE, TOMS[1], TOMS[3], TOMS[5]][i % 4]
        else:
            key = TOMS[min(len(TOMS) - 1, i * len(TOMS) // n)]
        vel = 80 + 35 * i // n
        if rng.random() < 0.1 and i > 0:
            continue
        song.hit(t + i * step, key, vel)
        if i % 4 == 0:
            song.hit(t + i * step, KICK, 90)


def fill_section(song, bars, chords, groove="rock", **layers):
    """A fill-heavy section: every bar ends in a fill, every other bar is nearly all fill."""
    start = song.pos
    for b in range(bars):
        t0 = start + b * song.bar
        name = chords[b % len(chords)]
        if b % 2 == 0:
            drum_bar(song, t0, groove, fill=True, crash=(b % 4 == 0))
        else:
            song.hit(t0, KICK, 110)
            song.hit(t0, CRASH, 115, PPQ)
            drum_fill(song, t0 + song.unit, song.bar - song.unit, density=4)
        if layers.get("bass"):
            bass_bar(song, t0, layers["bass"], name, chords[(b + 1) % len(chords)])
        if layers.get("comp"):
            comp_bar(song, t0, layers["comp"], name, b)
    song.pos = start + bars * song.bar


# ---------------------------------------------------------------- bass
def bass_bar(song, t0, style, name, nxt):
    pc, iv = chord(name)
    r = near(pc, 28)
    rng = song.rng
    u = song.unit
    s16 = PPQ // 4
    e8 = PPQ // 2
    if style == "root8":
        for i in range(song.bar // e8):
            song.note(BASS, t0 + i * e8, e8 - 20, r, 104 if i % 2 == 0 else 88)
    elif style == "root16":
        for i in range(song.bar // s16):
            song.note(BASS, t0 + i * s16, s16 - 10, r, 100 if i % 4 == 0 else 84)
    elif style == "gallop":
        for beat in range(song.bar // PPQ):
            for off, d in ((0, e8), (e8, s16), (e8 + s16, s16)):
                song.note(BASS, t0 + beat * PPQ + off, d - 10, r, 100)
    elif style == "offbeat":
        for i in range(song.bar // PPQ):
            song.note(BASS, t0 + i * PPQ + e8, e8 - 30, r + 12 if i % 2 else r, 105)
    elif style == "octave":
        for i in range(song.bar // e8):
            song.note(BASS, t0 + i * e8, e8 - 40, r + (12 if i % 2 else 0), 100)
    elif style == "funk":
        steps = "x..x..x.x.xx.x.."
        for i, c in enumerate(steps):
            if c == "x":
                k = r + rng.choice([0, 0, 0, 12, 7, 10])
                song.note(BASS, t0 + i * s16, s16 if rng.random() < 0.5 else s16 * 2 - 20, k, 110 if i == 0 else 92)
    elif style == "walk":
        tones = [r, r + iv[1], r + iv[2], near(chord(nxt)[0], 28) + rng.choice([-1, 1])]
        for i in range(song.bar // PPQ):
            song.note(BASS, t0 + i * PPQ, PPQ - 30, tones[i % 4], 96)
    elif style == "boogie":
        degrees = [0, 4, 7, 9, 10, 9, 7, 4] if iv[1] == 4 else [0, 3, 7, 9, 10, 9, 7, 3]
        for i in range(song.bar // e8):
            off = (i // 2) * PPQ + (PPQ * 2 // 3 if i % 2 else 0)
            song.note(BASS, t0 + off, PPQ // 3, r + degrees[i % 8], 100 if i % 2 == 0 else 80)
    elif style == "sustain":
        song.note(BASS, t0, song.bar - 30, r, 90)
    elif style == "half":
        song.note(BASS, t0, song.bar // 2 - 30, r, 95)
        song.note(BASS, t0 + song.bar // 2, song.bar // 2 - 30, r + 7, 90)
    elif style == "rock":
        for i, c in enumerate("x.x.x.xxx.x.x.x."):
            if c == "x":
                song.note(BASS, t0 + i * s16, e8 - 20 if i % 2 == 0 else s16, r if i != 7 else r + 7, 100)
    elif style == "reggae":
        for i, (c, d) in enumerate(zip("..x..x.x..x.x...", [0, 0, 0, 7, 0, 12, 0, 10, 0, 0, 0, 0, 7, 0, 0, 0])):
            if c == "x":
                song.note(BASS, t0 + i * s16, s16 * 2, r + d, 100)
    elif style == "dnb":
        song.note(BASS, t0, int(PPQ * 1.5) - 20, r, 105)
        song.note(BASS, t0 + int(PPQ * 2.5), PPQ * 1 - 20, r + rng.choice([0, 3, 7]), 100)
        song.note(BASS, t0 + int(PPQ * 3.5), PPQ // 2 - 20, r + 12, 90)
    elif style == "808":
        for i, c in enumerate("x......x..x....."):
            if c == "x":
                song.note(BASS, t0 + i * s16, s16 * 6, r - 12 + 12 * (i > 0 and rng.random() < 0.3), 115)
    elif style == "waltz":
        song.note(BASS, t0, u - 30, r if (t0 // song.bar) % 2 == 0 else r + 7, 100)
    elif style == "sixeight":
        song.note(BASS, t0, 3 * u - 30, r, 100)
        song.note(BASS, t0 + 3 * u, 3 * u - 30, r + 7, 90)
    elif style == "bossa":
        for off, d, k in ((0, PPQ * 3 // 2, 0), (PPQ * 3 // 2, PPQ // 2, 7), (PPQ * 2, PPQ * 3 // 2, 7), (PPQ * 7 // 2, PPQ // 2, 0)):
            song.note(BASS, t0 + off, d - 20, r + k, 95)
    elif style == "train":
        for i in range(song.bar // PPQ):
            song.note(BASS, t0 + i * PPQ, PPQ - 60, r + (0 if i % 2 == 0 else 7), 100)
    else:
        raise ValueError(style)


# ---------------------------------------------------------------- chords
def voicing(name, low=52, top=3):
    pc, iv = chord(name)
    base = near(pc, low)
    return [base + i for i in iv[:top] if True]


def comp_bar(song, t0, style, name, b, ch=COMP):
    pc, iv = chord(name)
    rng = song.rng
    s16 = PPQ // 4
    e8 = PPQ // 2
    u = song.unit
    if style in ("power8", "power16", "powerhold", "powerpush"):
        r = near(pc, 40)
        notes = [r, r + 7, r + 12]
        if style == "powerhold":
            hits = [(0, song.bar - 30, 104)]
        elif style == "powerpush":
            hits = [(0, PPQ * 3 // 2 - 20, 104), (PPQ * 3 // 2, PPQ * 5 // 2 - 20, 100)]
        else:
            step = e8 if style == "power8" else s16
            hits = [(i * step, step - 15, 100 if i % (4 if step == s16 else 2) == 0 else 82)
                    for i in range(song.bar // step)]
        for off, d, v in hits:
            for k in notes:
                song.note(ch, t0 + off, d, k, v)
    elif style == "strum":
        for i, c in enumerate("x..x..x.x.x.x..."):
            if c == "x":
                for j, k in enumerate(voicing(name, 52, 4)):
                    song.note(ch, t0 + i * s16 + j * 8, s16 * 2, k, 84 if i % 4 == 0 else 70)
    elif style == "stab":
        for i, c in enumerate("x..x..x...x..x.."):
            if c == "x":
                for k in voicing(name, 60, 3):
                    song.note(ch, t0 + i * s16, s16 + 20, k, 92)
    elif style == "offstab":
        for i in range(song.bar // PPQ):
            for k in voicing(name, 60, 3):
                song.note(ch, t0 + i * PPQ + e8, e8 - 60, k, 90)
    elif style == "skank":
        for i in range(song.bar // PPQ):
            for k in voicing(name, 60, 3):
                song.note(ch, t0 + i * PPQ + e8, s16, k, 88)
    elif style in ("arp8", "arp16", "arp-up"):
        step = e8 if style != "arp16" else s16
        tones = voicing(name, 55, 4) + [voicing(name, 55, 1)[0] + 12]
        order = tones + tones[-2:0:-1] if style != "arp-up" else tones
        for i in range(song.bar // step):
            song.note(ch, t0 + i * step, step * 2, order[i % len(order)], 78 if i % 4 else 90)
    elif style == "pad":
        for k in voicing(name, 55, 4):
            song.note(ch, t0, song.bar - 10, k, 62)
    elif style == "waltz":
        for beat in (1, 2):
            for k in voicing(name, 57, 3):
                song.note(ch, t0 + beat * u, u - 60, k, 78)
    elif style == "comp":
        # Charleston: on 1 and on the swung "and" of 2; a push in some bars.
        for off in (0, PPQ + PPQ * 2 // 3) if b % 2 == 0 else (PPQ * 2 // 3, PPQ * 2 + PPQ * 2 // 3):
            for k in voicing(name, 55, 4):
                song.note(ch, t0 + off, PPQ // 2, k, 72)
    elif style == "clav":
        for i, c in enumerate("x.xx.x.xx.x.x.xx"):
            if c == "x":
                for k in voicing(name, 60, 2):
                    song.note(ch, t0 + i * s16, s16 - 20, k, 96 if i % 4 == 0 else 74)
    elif style == "brass":
        for i, c in enumerate("......x.......x." if b % 2 == 0 else "x.....x...x....."):
            if c == "x":
                for k in voicing(name, 60, 3):
                    song.note(ch, t0 + i * s16, s16 * 2, k, 100)
    elif style == "ballad-piano":
        r = near(pc, 36)
        song.note(ch, t0, song.bar - 20, r, 70)
        tones = voicing(name, 60, 3)
        pattern = [r + 12, tones[0], tones[1], tones[2], tones[1] + 12 if len(tones) > 1 else tones[0], tones[2], tones[1], tones[0]]
        for i in range(song.bar // e8):
            song.note(ch, t0 + i * e8, e8 * 2, pattern[i % 8], 66 if i % 2 else 76)
    elif style == "sixeight-arp":
        tones = voicing(name, 55, 3)
        seq = [tones[0] - 12, tones[0], tones[1], tones[2], tones[1], tones[0]]
        for i in range(song.bar // u):
            song.note(ch, t0 + i * u, u * 2, seq[i % 6], 80 if i % 3 == 0 else 66)
    elif style == "organ":
        for k in voicing(name, 55, 3):
            song.note(ch, t0, song.bar // 2 - 20, k, 70)
            song.note(ch, t0 + song.bar // 2, song.bar // 2 - 20, k, 66)
    elif style == "shuffle-piano":
        for beat in range(song.bar // PPQ):
            for k in voicing(name, 60, 3):
                song.note(ch, t0 + beat * PPQ + PPQ * 2 // 3, PPQ // 3, k, 70)
    elif style == "bossa-guitar":
        for i, c in enumerate("x..x..x...x..x.."):
            if c == "x":
                for k in voicing(name, 52, 4):
                    song.note(ch, t0 + i * s16, s16 * 2, k, 70)
    elif style == "train":
        for i in range(song.bar // e8):
            if i % 2:
                for k in voicing(name, 52, 3):
                    song.note(ch, t0 + i * e8, e8 - 40, k, 86)
    else:
        raise ValueError(style)


def pad_bar(song, t0, name, vel, every, b):
    """Sustained pad chord on PAD: one every `every` bars."""
    if b % every:
        return
    for k in voicing(name, 55, 4):
        song.note(PAD, t0, song.bar * every - 10, k, vel)


# ---------------------------------------------------------------- melody
def lead_bar(song, t0, name, b, mode):
    """A melody: two-bar phrases from a few rhythms, pitches walking on the chord's pentatonic scale,
    repeated in an A A' B A shape (remembered per song)."""
    rng = song.rng
    pc, iv = chord(name)
    minor = iv[1] == 3
    scale = [0, 3, 5, 7, 10] if minor else [0, 2, 4, 7, 9]
    e8 = PPQ // 2
    bar8 = song.bar // e8
    rhythms = [[0, 2, 3, 4, 6], [0, 1, 2, 4, 5, 6], [0, 3, 6], [0, 2, 4, 6, 7], [1, 2, 3, 5, 6, 7]]
    if mode == "busy":
        rhythms = [[0, 1, 2, 3, 4, 5, 6, 7], [0, 1, 2, 4, 5, 6, 7], [0, 2, 3, 4, 5, 6]]
    if not hasattr(song, "_phrases"):
        song._phrases = {}
    key = (b // 2) % 4
    slot = "B" if key == 2 else "A"
    if slot not in song._phrases or (key == 1 and rng.random() < 0.5):
        rhythm = [x for x in rng.choice(rhythms) if x < bar8]
        steps = []
        degree = rng.randint(5, 9)
        for _ in rhythm:
            degree = max(3, min(12, degree + rng.choice([-2, -1, -1, 0, 1, 1, 2])))
            steps.append(degree)
        song._phrases[slot] = (rhythm, steps)
    rhythm, steps = song._phrases[slot]
    for j, (x, d) in enumerate(zip(rhythm, steps)):
        nxt = rhythm[j + 1] if j + 1 < len(rhythm) else bar8
        octave, deg = divmod(d, len(scale))
        k = near(pc, 60) + 12 * (octave - 1) + scale[deg]
        song.note(LEAD, t0 + x * e8, (nxt - x) * e8 - 20, k, 92 if x % 2 == 0 else 80)


# ---------------------------------------------------------------- the songs
def pickup(song, beats, chord_name, drums=True, lead_from=None):
    """An anacrusis: the last `beats` beats of bar 0 (a bar that starts with rests, as a MIDI file
    writes a pickup), a fill on the drums and a walk up in the bass and the lead; the song's first full
    bar follows."""
    t0 = song.bar - beats * song.unit
    pc, iv = chord(chord_name)
    root = near(pc, 28)
    for i in range(beats):
        t = t0 + i * song.unit
        if drums:
            song.hit(t, SNARE if i % 2 == 0 else TOMS[min(5, 2 + i)], 90 + 8 * i)
        song.note(BASS, t, song.unit - 30, root - 2 * (beats - i), 96)
        song.note(LEAD, t, song.unit - 30, near(pc, lead_from or 64) - 2 * (beats - i), 90)
    song.pos = song.bar


def ritardando(song, bars, a, b, per=PPQ // 2):
    """Tempo events every `per` ticks over `bars` bars from song.pos, from `a` falling (or rising) to `b`."""
    n = bars * song.bar // per
    for i in range(n + 1):
        song.tempo(song.pos + i * per, a + (b - a) * i / n)


def medley_step(song, bpm, programs, swing=0.0, jitter=None):
    """A medley's join: from song.pos (a bar line) another song at `bpm` follows, with its own instruments
    (`programs`: channel -> (program, volume)), swing, timing jitter and melodies. The program changes sit
    an eighth of a beat before the bar line, so a note of the new song that its jitter moves early
    already sounds with the new instrument (and none of the old song's notes starts that late)."""
    song.tempo(song.pos, bpm)
    for ch, (prog, volume) in sorted(programs.items()):
        song.program(ch, prog, volume, tick=song.pos - PPQ // 8)
    song.swing = swing
    song.jitter = dict(jitter or {})
    if hasattr(song, "_phrases"):
        del song._phrases


def songs():
    """name -> function building the Song (each with its own seed)."""
    out = {}

    def song(name):
        def deco(fn):
            out[name] = fn
            return fn
        return deco

    pop = ["C", "G", "Am", "F"]
    minor = ["Am", "F", "C", "G"]
    emin = ["E5", "C5", "D5", "E5"]

    @song("gm-rock-120")
    def _():
        s = Song("gm-rock-120", 101, 120)
        s.program(BASS, 34), s.program(COMP, 29, 90), s.program(LEAD, 30, 85), s.program(DRUMS, 16), s.program(PAD, 48, 70)
        s.section(4, ["E5", "G5", "A5", "A5"], drums=("rock", 4), comp="power8", bass="root8")
        s.section(8, ["E5", "G5", "A5", "D5"], drums=("rock", 4), comp="power8", bass="rock")
        s.section(8, ["C5", "G5", "D5", "E5"], drums=("rock-busy", 8), comp="powerhold", bass="root8", lead=True)
        s.section(8, ["E5", "G5", "A5", "D5"], drums=("rock", 4), comp="power8", bass="rock")
        s.section(8, ["C5", "G5", "D5", "E5"], drums=("rock-busy", 8), comp="powerhold", bass="root8", lead=True)
        s.section(4, ["Em", "C", "D", "D"], bass="sustain", pad=True, pad_vel=70)  # breakdown without drums
        s.section(8, ["C5", "G5", "D5", "E5"], drums=("rock-busy", 4), comp="power8", bass="root8", lead=True)
        s.ending("E5")
        return s

    @song("gm-metal-184")
    def _():
        s = Song("gm-metal-184", 102, 184)
        s.program(BASS, 34), s.program(COMP, 30, 95), s.program(LEAD, 30, 80), s.program(DRUMS, 16)
        s.section(4, emin, drums=("metal", 4), comp="power16", bass="root16")
        s.section(8, ["E5", "F5", "E5", "G5"], drums=("metal-gallop", 4), comp="power16", bass="gallop")
        s.section(8, ["C5", "D5", "E5", "E5"], drums=("halftime", 4), comp="powerhold", bass="half", lead=True)
        s.section(8, ["E5", "F5", "E5", "G5"], drums=("metal", 8), comp="power16", bass="root16")
        fill_section(s, 4, ["A5", "G5"], groove="metal", comp="power8", bass="root8")
        s.section(8, ["C5", "D5", "E5", "E5"], drums=("halftime-2", 4), comp="powerhold", bass="half", lead=True)
        s.section(8, emin, drums=("metal", 4), comp="power16", bass="root16")
        s.ending("E5")
        return s

    @song("gm-metal-170")
    def _():
        s = Song("gm-metal-170", 103, 170)
        s.program(BASS, 33), s.program(COMP, 30, 95), s.program(LEAD, 29, 80), s.program(DRUMS, 16), s.program(PAD, 91, 70)
        s.section(6, ["Dm", "Bb", "C", "Am"], pad=2, pad_vel=50)  # quiet beatless intro: choir pad, ~8.5 s
        s.section(8, ["D5", "Bb5", "C5", "A5"], drums=("halftime", 4), comp="powerhold", bass="half")
        s.section(8, ["D5", "D5", "C5", "Bb5"], drums=("metal-gallop", 4), comp="power16", bass="gallop")
        s.section(8, ["Bb5", "C5", "D5", "D5"], drums=("metal", 4), comp="power8", bass="root8", lead=True)
        s.section(4, ["Dm", "Bb", "C", "A"], pad=True, pad_vel=60, bass="sustain")  # breakdown, no drums
        s.section(8, ["D5", "D5", "C5", "Bb5"], drums=("halftime-2", 4), comp="powerhold", bass="half", lead=True)
        s.section(8, ["D5", "Bb5", "C5", "A5"], drums=("metal", 4), comp="power16", bass="root16")
        s.ending("D5")
        return s

    @song("gm-funk-104")
    def _():
        s = Song("gm-funk-104", 104, 104)
        s.jitter = {COMP: 6, EXTRA: 6, LEAD: 8}
        s.program(BASS, 36), s.program(COMP, 7, 85), s.program(EXTRA, 61, 80), s.program(LEAD, 65, 85), s.program(DRUMS, 0)
        s.section(4, ["E9", "E9", "A9", "E9"], drums=("funk", 4), comp="clav")
        s.section(8, ["E9", "E9", "A9", "E9"], drums=("funk", 4), comp="clav", bass="funk")
        s.section(8, ["A9", "A9", "E9", "B7"], drums=("funk-2", 4), comp="clav", bass="funk", extra="brass")
        s.section(8, ["E9", "E9", "A9", "E9"], drums=("funk", 8), comp="clav", bass="funk", lead=True)
        s.section(8, ["A9", "A9", "E9", "B7"], drums=("funk-2", 4), comp="clav", bass="funk", extra="brass", lead="busy")
        s.section(4, ["E9"], drums=("funk", 2), bass="funk")
        s.ending("E9")
        return s

    @song("gm-edm-128")
    def _():
        s = Song("gm-edm-128", 105, 128)
        s.program(BASS, 38), s.program(COMP, 81, 80), s.program(LEAD, 80, 75), s.program(PAD, 89, 80), s.program(DRUMS, 24)
        prog = ["Am", "F", "C", "G"]
        s.section(8, prog, pad=2, pad_vel=45)  # quiet beatless intro: pads only, 15 s
        s.section(4, prog, pad=True, drums="edm-build", crash=False, comp="arp16")
        s.section(4, prog, pad=True, drums="edm-build2", crash=False, comp="arp16")
        s.section(16, prog, drums=("edm", 8), bass="offbeat", comp="stab", lead=True)
        s.section(8, prog, pad=True, comp="arp8")  # breakdown without drums
        s.section(16, prog, drums=("edm", 8), bass="offbeat", comp="stab", lead="busy", pad=2)
        s.ending("Am")
        return s

    @song("gm-ballad-72")
    def _():
        s = Song("gm-ballad-72", 106, 72)
        s.jitter = {COMP: 8, LEAD: 10, PAD: 10}
        s.program(BASS, 33, 90), s.program(COMP, 0, 100), s.program(LEAD, 73, 85), s.program(PAD, 48, 70), s.program(DRUMS, 40)
        prog = ["C", "G", "Am", "F", "C", "G", "F", "G"]
        s.section(4, prog, comp="ballad-piano")
        s.section(8, prog, comp="ballad-piano", drums=("ballad", 8), bass="half", lead=True)
        s.section(8, ["F", "G", "Em", "Am", "F", "G", "C", "C"], comp="ballad-piano", drums=("ballad-full", 4), bass="half", pad=2, lead=True)
        s.section(8, prog, comp="ballad-piano", drums=("ballad", 8), bass="half", lead=True)
        s.ending("C", drums=False)
        return s

    @song("gm-shuffle-96")
    def _():
        s = Song("gm-shuffle-96", 107, 96)
        s.jitter = {COMP: 6, LEAD: 8}
        s.program(BASS, 33), s.program(COMP, 0, 85), s.program(LEAD, 22, 85), s.program(EXTRA, 17, 70), s.program(DRUMS, 0)
        blues = ["A7", "D7", "A7", "A7", "D7", "D7", "A7", "A7", "E7", "D7", "A7", "E7"]
        s.section(12, blues, drums=("shuffle", 4), bass="boogie", comp="shuffle-piano")
        s.section(12, blues, drums=("shuffle", 4), bass="boogie", comp="shuffle-piano", lead=True, extra="organ")
        s.section(12, blues, drums=("shuffle", 12), bass="boogie", comp="shuffle-piano", lead=True)
        s.ending("A7")
        return s

    @song("gm-swing-150")
    def _():
        s = Song("gm-swing-150", 108, 150)
        s.jitter = {COMP: 8, LEAD: 8, BASS: 4}
        s.program(BASS, 32, 110), s.program(COMP, 0, 80), s.program(LEAD, 66, 90), s.program(DRUMS, 32)
        changes = ["Dm7", "G7", "Cmaj7", "Cmaj7", "Dm7", "G7", "Cmaj7", "A7"]
        s.section(8, changes, drums=("swing", 8), bass="walk", comp="comp")
        s.section(16, changes, drums=("swing", 8), bass="walk", comp="comp", lead="busy")
        s.section(16, changes, drums=("swing", 4), bass="walk", comp="comp", lead=True)
        s.section(8, changes, drums=("swing", 8), bass="walk", comp="comp")
        s.ending("Cmaj7")
        return s

    @song("gm-waltz-144")
    def _():
        s = Song("gm-waltz-144", 109, 144, 3, 4)
        s.jitter = {COMP: 6, LEAD: 8}
        s.program(BASS, 32), s.program(COMP, 21, 80), s.program(LEAD, 40, 95), s.program(DRUMS, 40), s.program(PAD, 48, 60)
        prog = ["F", "F", "C7", "C7", "C7", "C7", "F", "F", "F", "F", "Bb", "Bb", "F", "C7", "F", "F"]
        s.section(16, prog, bass="waltz", comp="waltz")
        s.section(16, prog, bass="waltz", comp="waltz", drums=("waltz", 8), lead=True)
        s.section(16, ["Bb", "Bb", "F", "F", "C7", "C7", "F", "F"], bass="waltz", comp="waltz", drums=("waltz", 8), pad=4, lead=True)
        s.section(16, prog, bass="waltz", comp="waltz", drums=("waltz", 8), lead=True)
        s.ending("F", beats=3)
        return s

    @song("gm-sixeight-150")
    def _():
        s = Song("gm-sixeight-150", 110, 75, 6, 8)  # quarter = 75, so eighths (the beats) = 150, dotted quarter = 50
        s.jitter = {COMP: 6, LEAD: 8}
        s.program(BASS, 33, 90), s.program(COMP, 25, 95), s.program(LEAD, 71, 85), s.program(DRUMS, 8), s.program(PAD, 49, 60)
        prog = ["G", "Em", "C", "D"]
        s.section(4, prog, comp="sixeight-arp")
        s.section(8, prog, comp="sixeight-arp", bass="sixeight", drums=("sixeight-soft", 4))
        s.section(8, ["C", "D", "G", "Em", "C", "D", "G", "G"], comp="sixeight-arp", bass="sixeight", drums=("sixeight", 4), lead=True, pad=2)
        s.section(8, prog, comp="sixeight-arp", bass="sixeight", drums=("sixeight", 8), lead=True)
        s.ending("G", beats=6)
        return s

    @song("gm-dnb-174")
    def _():
        s = Song("gm-dnb-174", 111, 174)
        s.program(BASS, 38), s.program(PAD, 89, 75), s.program(COMP, 4, 70), s.program(DRUMS, 24), s.program(LEAD, 81, 65)
        prog = ["Fm", "Fm", "Db", "Eb"]
        s.section(8, prog, pad=4, pad_vel=60, drums="dnb-2", crash=False)  # a drums-and-pad intro
        s.section(16, prog, pad=4, drums=("dnb", 8), bass="dnb", comp="arp16")
        s.section(8, prog, pad=2, pad_vel=70)  # breakdown without drums
        s.section(16, prog, pad=4, drums=("dnb", 4), bass="dnb", lead="busy")
        s.section(8, prog, drums=("dnb-2", 8), bass="dnb")
        s.ending("Fm")
        return s

    @song("gm-hiphop-90")
    def _():
        s = Song("gm-hiphop-90", 112, 90)
        s.swing = 0.35
        s.program(BASS, 38, 110), s.program(COMP, 4, 85), s.program(LEAD, 11, 70), s.program(DRUMS, 0)
        prog = ["Dm7", "Dm7", "Gm7", "A7"]
        s.section(4, prog, comp="ballad-piano")
        s.section(8, prog, drums=("hiphop", 8), bass="808", comp="ballad-piano")
        s.section(8, prog, drums=("hiphop", 4), bass="808", comp="ballad-piano", lead=True)
        s.section(8, prog, drums=("hiphop", 8), bass="808", comp="ballad-piano")
        s.section(8, prog, drums=("hiphop", 4), bass="808", comp="ballad-piano", lead=True)
        s.ending("Dm7")
        return s

    @song("gm-trap-140")
    def _():
        s = Song("gm-trap-140", 113, 140)
        s.program(BASS, 38, 115), s.program(PAD, 90, 70), s.program(LEAD, 80, 60), s.program(DRUMS, 25)
        prog = ["Cm", "Cm", "Ab", "G"]
        s.section(4, prog, pad=2)
        s.section(8, prog, drums=("trap", 4), bass="808", pad=2)
        s.section(8, prog, drums=("trap-roll", 2), bass="808", pad=2, lead=True)
        s.section(8, prog, drums=("trap", 4), bass="808", pad=2, lead=True)
        s.section(8, prog, drums=("trap-roll", 4), bass="808", pad=2)
        s.ending("Cm")
        return s

    @song("gm-reggae-76")
    def _():
        s = Song("gm-reggae-76", 114, 76)
        s.swing = 0.2
        s.jitter = {COMP: 5, EXTRA: 5}
        s.program(BASS, 33, 115), s.program(COMP, 28, 85), s.program(EXTRA, 16, 60), s.program(LEAD, 56, 75), s.program(DRUMS, 0)
        prog = ["Am", "D", "Am", "E7"]
        s.section(4, prog, drums=("reggae", 4), comp="skank")
        s.section(8, prog, drums=("reggae", 8), comp="skank", bass="reggae", extra="organ")
        s.section(8, ["F", "G", "Am", "Am"], drums=("reggae", 8), comp="skank", bass="reggae", lead=True)
        s.section(8, prog, drums=("reggae", 4), comp="skank", bass="reggae", extra="organ")
        s.ending("Am")
        return s

    @song("gm-bossa-136")
    def _():
        s = Song("gm-bossa-136", 115, 136)
        s.jitter = {COMP: 6, LEAD: 8}
        s.program(BASS, 32), s.program(COMP, 24, 95), s.program(LEAD, 73, 85), s.program(DRUMS, 40)
        prog = ["Dm9", "Dm9", "G7", "G7", "Cmaj7", "Cmaj7", "A7", "A7"]
        s.section(8, prog, comp="bossa-guitar", bass="bossa")
        s.section(16, prog, comp="bossa-guitar", bass="bossa", drums=("bossa", 0), lead=True)
        s.section(16, prog, comp="bossa-guitar", bass="bossa", drums=("bossa", 8), lead=True)
        s.section(8, prog, comp="bossa-guitar", bass="bossa", drums=("bossa", 0))
        s.ending("Cmaj7", drums=False)
        return s

    @song("gm-punk-196")
    def _():
        s = Song("gm-punk-196", 116, 196)
        s.program(BASS, 34), s.program(COMP, 30, 100), s.program(LEAD, 29, 80), s.program(DRUMS, 16)
        s.section(4, ["A5", "A5", "D5", "E5"], drums=("rock", 4), comp="power8", bass="root8")
        s.section(16, ["A5", "F#5", "D5", "E5"], drums=("punk", 8), comp="power8", bass="root8")
        s.section(16, ["D5", "E5", "A5", "A5"], drums=("punk", 8), comp="power8", bass="root8", lead=True)
        s.section(8, ["A5", "F#5", "D5", "E5"], drums=("halftime", 4), comp="powerhold", bass="half")
        s.section(16, ["D5", "E5", "A5", "A5"], drums=("punk", 4), comp="power8", bass="root8", lead=True)
        s.ending("A5")
        return s

    @song("gm-disco-118")
    def _():
        s = Song("gm-disco-118", 117, 118)
        s.program(BASS, 33), s.program(COMP, 27, 80), s.program(EXTRA, 49, 75), s.program(LEAD, 61, 80), s.program(DRUMS, 0)
        prog = ["Am7", "Dm7", "G7", "Cmaj7"]
        s.section(4, prog, drums=("disco", 4), bass="octave")
        s.section(16, prog, drums=("disco", 8), bass="octave", comp="offstab", extra="pad")
        s.section(8, prog, drums=("disco", 4), bass="octave", comp="offstab", lead=True)
        s.section(16, prog, drums=("disco", 8), bass="octave", comp="offstab", extra="pad", lead="busy")
        s.ending("Am7")
        return s

    @song("gm-pop-100")
    def _():
        s = Song("gm-pop-100", 118, 100)
        s.jitter = {LEAD: 6}
        s.program(BASS, 33), s.program(COMP, 25, 90), s.program(LEAD, 80, 70), s.program(PAD, 94, 80), s.program(DRUMS, 0), s.program(EXTRA, 4, 70)
        s.section(6, pop, pad=2, pad_vel=45)  # quiet beatless intro: pads only, 14.4 s
        s.section(8, pop, drums=("ballad-full", 8), comp="strum", bass="root8")
        s.section(8, ["F", "G", "Am", "Am", "F", "G", "C", "C"], drums=("rock", 4), comp="strum", bass="root8", lead=True, extra="arp8")
        s.section(8, pop, drums=("ballad-full", 8), comp="strum", bass="root8")
        s.section(8, ["F", "G", "Am", "Am", "F", "G", "C", "C"], drums=("rock", 4), comp="strum", bass="root8", lead=True, extra="arp8")
        s.ending("C")
        return s

    @song("gm-fills-136")
    def _():
        s = Song("gm-fills-136", 119, 136)
        s.program(BASS, 33), s.program(COMP, 29, 90), s.program(LEAD, 62, 75), s.program(DRUMS, 8)
        prog = ["Em", "C", "G", "D"]
        s.section(8, prog, drums=("rock", 4), comp="powerpush", bass="rock")
        fill_section(s, 8, prog, groove="rock", comp="power8", bass="root8")  # fill-heavy
        s.section(8, prog, drums=("rock-ride", 2), comp="powerpush", bass="rock", lead=True)
        fill_section(s, 8, ["C", "D", "Em", "Em"], groove="rock-busy", comp="powerhold", bass="root8")
        s.section(8, prog, drums=("rock", 4), comp="power8", bass="rock", lead=True)
        s.ending("Em")
        return s

    # One tempo step at a bar line.
    @song("gm-step-120-140")
    def _():
        s = Song("gm-step-120-140", 120, 120)
        s.program(BASS, 34), s.program(COMP, 29, 90), s.program(LEAD, 30, 80), s.program(DRUMS, 16)
        s.section(16, ["A5", "F5", "C5", "G5"], drums=("rock", 4), comp="power8", bass="root8")
        s.section(8, ["A5", "F5", "C5", "G5"], drums=("rock-busy", 8), comp="powerhold", bass="root8", lead=True)
        s.tempo(s.pos, 140)
        s.section(16, ["D5", "A5", "C5", "G5"], drums=("rock", 4), comp="power8", bass="root8", lead=True)
        s.section(8, ["A5", "F5", "C5", "G5"], drums=("rock-busy", 8), comp="power8", bass="root8")
        s.ending("A5")
        return s

    @song("gm-step-150-128")
    def _():
        s = Song("gm-step-150-128", 121, 150)
        s.program(BASS, 39), s.program(COMP, 81, 80), s.program(PAD, 89, 70), s.program(DRUMS, 24), s.program(LEAD, 80, 70)
        prog = ["Gm", "Eb", "Bb", "F"]
        s.section(16, prog, drums=("edm", 8), bass="offbeat", comp="stab", pad=4)
        s.section(8, prog, drums=("edm", 8), bass="offbeat", comp="arp16", lead=True)
        s.tempo(s.pos, 128)
        s.section(16, prog, drums=("disco", 8), bass="octave", comp="stab", lead=True)
        s.section(8, prog, drums=("edm", 8), bass="offbeat", pad=2)
        s.ending("Gm")
        return s

    @song("gm-step-92-104")
    def _():
        s = Song("gm-step-92-104", 122, 92)
        s.jitter = {COMP: 5}
        s.program(BASS, 36), s.program(COMP, 7, 80), s.program(EXTRA, 61, 75), s.program(DRUMS, 0), s.program(LEAD, 65, 80)
        prog = ["Dm7", "Dm7", "G7", "G7"]
        s.section(12, prog, drums=("funk-2", 4), bass="funk", comp="clav")
        s.section(8, prog, drums=("funk", 4), bass="funk", comp="clav", lead=True)
        s.tempo(s.pos, 104)
        s.section(12, ["Gm7", "Gm7", "C7", "C7"], drums=("funk", 4), bass="funk", comp="clav", extra="brass")
        s.section(8, prog, drums=("funk-2", 8), bass="funk", comp="clav", lead="busy")
        s.ending("Dm7")
        return s

    @song("gm-ritardando-112")
    def _():
        s = Song("gm-ritardando-112", 123, 112)
        s.jitter = {COMP: 6, LEAD: 6}
        s.program(BASS, 33), s.program(COMP, 0, 95), s.program(LEAD, 40, 90), s.program(PAD, 48, 70), s.program(DRUMS, 0)
        prog = ["D", "A", "Bm", "G"]
        s.section(8, prog, drums=("ballad-full", 4), comp="arp8", bass="root8", pad=2)
        s.section(16, prog, drums=("rock", 8), comp="arp8", bass="root8", lead=True, pad=2)
        ritardando(s, 12, 112, 64)  # a gradual ritardando over the last 12 bars: a tempo event every eighth
        s.section(12, ["G", "A", "D", "Bm", "G", "A", "D", "D"], drums=("ballad-full", 4), comp="arp8", bass="half", lead=True, pad=2)
        s.ending("D")
        return s

    @song("gm-accelerando-96-132")
    def _():
        s = Song("gm-accelerando-96-132", 124, 96)
        s.jitter = {COMP: 5, LEAD: 6}
        s.program(BASS, 32), s.program(COMP, 25, 90), s.program(LEAD, 21, 85), s.program(DRUMS, 0)
        prog = ["G", "C", "D", "G"]
        s.section(8, prog, drums=("train", 8), comp="train", bass="train")
        ritardando(s, 16, 96, 132)  # accelerando over 16 bars, then a tempo 132
        s.section(16, prog, drums=("train", 8), comp="train", bass="train", lead=True)
        s.section(12, ["C", "G", "D", "G"], drums=("train", 4), comp="train", bass="train", lead="busy")
        s.ending("G")
        return s

    # Songs in 3/4 and 6/8 and songs that start with a pickup, for the bar estimate (group midi/meter in
    # build.py's split rule).
    @song("meter-waltz-pickup-168")
    def _():
        s = Song("meter-waltz-pickup-168", 201, 168, 3, 4)
        s.jitter = {COMP: 6, LEAD: 6}
        s.program(BASS, 32), s.program(COMP, 0, 85), s.program(LEAD, 73, 90), s.program(DRUMS, 0)
        pickup(s, 1, "G")
        prog = ["G", "G", "D7", "D7", "D7", "D7", "G", "G", "C", "C", "G", "G", "D7", "D7", "G", "G"]
        s.section(16, prog, bass="waltz", comp="waltz", drums=("waltz", 8), lead=True)
        s.section(16, prog, bass="waltz", comp="waltz", drums=("waltz-rock", 8), lead=True)
        s.section(8, ["C", "C", "G", "G", "D7", "D7", "G", "G"], bass="waltz", comp="waltz", drums=("waltz", 4))
        s.ending("G", beats=3)
        return s

    @song("meter-country-pickup2-150")
    def _():
        s = Song("meter-country-pickup2-150", 202, 150, 3, 4)
        s.jitter = {LEAD: 6}
        s.program(BASS, 33), s.program(COMP, 25, 90), s.program(LEAD, 22, 85), s.program(DRUMS, 32)
        pickup(s, 2, "D")
        prog = ["D", "D", "A", "A", "G", "G", "D", "A"]
        s.section(16, prog, bass="waltz", comp="waltz", drums=("waltz-rock", 8), lead=True)
        s.section(8, ["G", "G", "D", "D", "A", "A", "D", "D"], bass="waltz", comp="waltz", drums=("waltz", 4))
        s.section(16, prog, bass="waltz", comp="waltz", drums=("waltz-rock", 8), lead="busy")
        s.ending("D", beats=3)
        return s

    @song("meter-jazzwaltz-132")
    def _():
        s = Song("meter-jazzwaltz-132", 203, 132, 3, 4)
        s.jitter = {COMP: 8, LEAD: 8}
        s.program(BASS, 32), s.program(COMP, 4, 80), s.program(LEAD, 65, 85), s.program(DRUMS, 32)
        prog = ["Dm7", "Dm7", "G7", "G7", "Cmaj7", "Cmaj7", "A7", "A7"]
        s.section(16, prog, bass="waltz", comp="waltz", drums=("jazzwaltz", 8))
        s.section(16, prog, bass="waltz", comp="waltz", drums=("jazzwaltz", 8), lead=True)
        s.section(16, ["Fmaj7", "Fmaj7", "Em7", "A7", "Dm7", "G7", "Cmaj7", "Cmaj7"], bass="waltz", comp="waltz",
                  drums=("jazzwaltz", 8), lead=True)
        s.ending("Cmaj7", beats=3)
        return s

    @song("meter-waltz-slow-96")
    def _():
        s = Song("meter-waltz-slow-96", 204, 96, 3, 4)
        s.jitter = {COMP: 6, LEAD: 8}
        s.program(BASS, 42), s.program(COMP, 46, 85), s.program(LEAD, 40, 90), s.program(DRUMS, 40), s.program(PAD, 48, 60)
        prog = ["Am", "Am", "E7", "E7", "E7", "E7", "Am", "Am", "Dm", "Dm", "Am", "Am", "E7", "E7", "Am", "Am"]
        s.section(16, prog, bass="waltz", comp="waltz", pad=4)
        s.section(16, prog, bass="waltz", comp="waltz", drums=("waltz", 8), lead=True)
        s.ending("Am", beats=3)
        return s

    @song("meter-folk-sixeight-120")
    def _():
        s = Song("meter-folk-sixeight-120", 205, 60, 6, 8)  # quarter 60: eighths (the beats) 120
        s.jitter = {COMP: 6, LEAD: 8}
        s.program(BASS, 32), s.program(COMP, 24, 95), s.program(LEAD, 73, 90), s.program(DRUMS, 40)
        prog = ["D", "G", "D", "A", "D", "G", "A", "D"]
        s.section(8, prog, comp="sixeight-arp", bass="sixeight", drums=("sixeight-soft", 4))
        s.section(8, prog, comp="sixeight-arp", bass="sixeight", drums=("sixeight", 4), lead=True)
        s.section(8, ["Bm", "G", "D", "A"], comp="sixeight-arp", bass="sixeight", drums=("sixeight", 8), lead=True)
        s.ending("D", beats=6)
        return s

    @song("meter-sixeight-pickup-168")
    def _():
        s = Song("meter-sixeight-pickup-168", 206, 84, 6, 8)  # eighths 168, dotted quarter 56
        s.jitter = {LEAD: 6}
        s.program(BASS, 34), s.program(COMP, 29, 90), s.program(LEAD, 30, 80), s.program(DRUMS, 16)
        pickup(s, 2, "E5")
        prog = ["E5", "C5", "D5", "E5"]
        s.section(8, prog, comp="sixeight-arp", bass="sixeight", drums=("sixeight-rock", 4))
        s.section(8, prog, comp="sixeight-arp", bass="sixeight", drums=("sixeight-rock", 8), lead=True)
        s.section(8, ["A5", "C5", "D5", "E5"], comp="sixeight-arp", bass="sixeight", drums=("sixeight", 4), lead=True)
        s.ending("E5", beats=6)
        return s

    @song("meter-rock-pickup-112")
    def _():
        s = Song("meter-rock-pickup-112", 207, 112)
        s.program(BASS, 34), s.program(COMP, 29, 90), s.program(LEAD, 30, 85), s.program(DRUMS, 16)
        pickup(s, 1, "A5")
        s.section(8, ["A5", "F5", "G5", "A5"], drums=("rock", 4), comp="power8", bass="root8")
        s.section(8, ["D5", "A5", "E5", "A5"], drums=("rock-busy", 8), comp="powerhold", bass="root8", lead=True)
        s.section(8, ["A5", "F5", "G5", "A5"], drums=("rock", 4), comp="power8", bass="rock", lead=True)
        s.ending("A5")
        return s

    @song("meter-pop-pickup2-96")
    def _():
        s = Song("meter-pop-pickup2-96", 208, 96)
        s.jitter = {LEAD: 6}
        s.program(BASS, 33), s.program(COMP, 0, 85), s.program(LEAD, 80, 70), s.program(DRUMS, 0)
        pickup(s, 2, "C", drums=False, lead_from=67)
        s.section(8, ["C", "Am", "F", "G"], drums=("ballad-full", 8), comp="arp8", bass="root8", lead=True)
        s.section(8, ["F", "G", "C", "Am"], drums=("rock", 4), comp="strum", bass="root8", lead=True)
        s.section(8, ["C", "Am", "F", "G"], drums=("ballad-full", 8), comp="arp8", bass="root8", lead=True)
        s.ending("C")
        return s

    @song("meter-ballad-pickup3-80")
    def _():
        s = Song("meter-ballad-pickup3-80", 209, 80)
        s.jitter = {COMP: 6, LEAD: 8}
        s.program(BASS, 33), s.program(COMP, 0, 90), s.program(LEAD, 40, 90), s.program(DRUMS, 0), s.program(PAD, 48, 60)
        pickup(s, 3, "F", drums=False, lead_from=65)
        prog = ["F", "Dm", "Bb", "C"]
        s.section(8, prog, comp="ballad-piano", bass="half", lead=True, pad=2)
        s.section(8, prog, drums=("ballad", 4), comp="ballad-piano", bass="root8", lead=True)
        s.section(8, ["Bb", "C", "F", "Dm"], drums=("ballad-full", 4), comp="ballad-piano", bass="root8", lead=True)
        s.ending("F")
        return s

    # Medleys: two songs joined at a bar line, with a tempo step of more than 30 % between them (as the
    # medleys and multi-BPM songs of rhythm games have): style, groove, kit, instruments, key and chords
    # all change at the step. Each side is 16+ bars and 40+ s. Group midi/medley in build.py's split rule.
    @song("medley-100-140")
    def _():
        s = Song("medley-100-140", 301, 100)  # one-drop reggae 100, then rock 140
        s.swing = 0.2
        s.jitter = {COMP: 5, EXTRA: 5}
        s.program(BASS, 33, 115), s.program(COMP, 28, 85), s.program(EXTRA, 16, 60), s.program(LEAD, 56, 75), s.program(DRUMS, 0)
        prog = ["G", "C", "D", "C"]
        s.section(4, prog, drums=("reggae", 4), comp="skank")
        s.section(8, prog, drums=("reggae", 8), comp="skank", bass="reggae", extra="organ")
        s.section(8, ["Em", "C", "G", "D"], drums=("reggae", 4), comp="skank", bass="reggae", lead=True)  # a fill into the step
        medley_step(s, 140, {BASS: (34, 100), COMP: (29, 90), LEAD: (30, 85), DRUMS: (16, 100)})
        s.section(8, ["E5", "G5", "A5", "D5"], drums=("rock", 4), comp="power8", bass="root8")
        s.section(8, ["C5", "D5", "E5", "E5"], drums=("rock-busy", 8), comp="powerhold", bass="root8", lead=True)
        s.section(8, ["E5", "G5", "A5", "D5"], drums=("rock", 4), comp="power8", bass="rock", lead=True)
        s.section(4, ["C5", "D5", "E5", "E5"], drums=("rock-busy", 4), comp="power8", bass="root8")
        s.ending("E5")
        return s

    @song("medley-96-128")
    def _():
        s = Song("medley-96-128", 302, 96)  # funk 96, then four-on-the-floor EDM 128 (4/3: a hard case)
        s.jitter = {COMP: 6, EXTRA: 6, LEAD: 8}
        s.program(BASS, 36), s.program(COMP, 7, 85), s.program(EXTRA, 61, 80), s.program(LEAD, 65, 85), s.program(DRUMS, 0)
        prog = ["Cm7", "Cm7", "F9", "F9"]
        s.section(4, prog, drums=("funk", 4), comp="clav")
        s.section(8, prog, drums=("funk", 4), comp="clav", bass="funk")
        s.section(8, ["Ab7", "Ab7", "G7", "G7"], drums=("funk-2", 0), comp="clav", bass="funk", extra="brass", lead=True)  # a cut
        medley_step(s, 128, {BASS: (38, 100), COMP: (81, 80), LEAD: (80, 75), PAD: (89, 80), DRUMS: (24, 100)})
        prog = ["Fm", "Db", "Ab", "Eb"]
        s.section(8, prog, drums=("edm", 8), bass="offbeat", comp="stab", lead=True)
        s.section(4, prog, pad=True, comp="arp8")  # breakdown without drums
        s.section(4, prog, pad=True, drums="edm-build2", crash=False, comp="arp16")
        s.section(8, prog, drums=("edm", 8), bass="offbeat", comp="stab", lead="busy", pad=2)
        s.ending("Fm")
        return s

    @song("medley-90-150")
    def _():
        s = Song("medley-90-150", 303, 90)  # piano ballad 90 that stops on a held chord, then punk 150
        s.jitter = {COMP: 8, LEAD: 10, PAD: 10}
        s.program(BASS, 33, 90), s.program(COMP, 0, 100), s.program(LEAD, 73, 85), s.program(PAD, 48, 70), s.program(DRUMS, 40)
        prog = ["D", "A", "Bm", "G"]
        s.section(4, prog, comp="ballad-piano")
        s.section(8, prog, comp="ballad-piano", drums=("ballad", 8), bass="half", lead=True)
        s.section(7, ["G", "A", "F#m", "Bm", "G", "A", "D"], comp="ballad-piano", drums=("ballad-full", 4), bass="half", pad=2, lead=True)
        s.ending("D", drums=False)
        medley_step(s, 150, {BASS: (34, 100), COMP: (30, 100), LEAD: (29, 80), DRUMS: (16, 100)})
        s.section(4, ["D5", "D5", "A5", "A5"], drums=("rock", 4), comp="power8", bass="root8")
        s.section(12, ["D5", "B5", "G5", "A5"], drums=("punk", 4), comp="power8", bass="root8")
        s.section(8, ["G5", "A5", "D5", "D5"], drums=("punk", 8), comp="power8", bass="root8", lead=True)
        s.section(4, ["D5", "B5", "G5", "A5"], drums=("punk", 4), comp="power8", bass="root8", lead=True)
        s.ending("D5")
        return s

    @song("medley-128-174")
    def _():
        s = Song("medley-128-174", 304, 128)  # disco 128, then drum and bass 174
        s.program(BASS, 33), s.program(COMP, 27, 80), s.program(EXTRA, 49, 75), s.program(LEAD, 61, 80), s.program(DRUMS, 0)
        prog = ["Fmaj7", "Em7", "Dm7", "Cmaj7"]
        s.section(4, prog, drums=("disco", 4), bass="octave")
        s.section(12, prog, drums=("disco", 8), bass="octave", comp="offstab", extra="pad")
        s.section(8, prog, drums=("disco", 8), bass="octave", comp="offstab", lead="busy")  # a fill into the step
        medley_step(s, 174, {BASS: (38, 100), COMP: (4, 70), LEAD: (81, 65), PAD: (89, 75), DRUMS: (24, 100)})
        prog = ["Bbm", "Bbm", "Gb", "Ab"]
        s.section(16, prog, pad=4, drums=("dnb", 8), bass="dnb", comp="arp16")
        s.section(8, prog, pad=4, drums=("dnb-2", 4), bass="dnb", lead="busy")
        s.section(8, prog, pad=2, drums=("dnb", 8), bass="dnb")
        s.ending("Bbm")
        return s

    @song("medley-120-160")
    def _():
        s = Song("medley-120-160", 305, 120)  # pop 120, then metal 160 (gallops, double kick)
        s.jitter = {LEAD: 6}
        s.program(BASS, 33), s.program(COMP, 25, 90), s.program(LEAD, 80, 70), s.program(PAD, 94, 80), s.program(DRUMS, 0), s.program(EXTRA, 4, 70)
        pop = ["C", "G", "Am", "F"]
        s.section(8, pop, drums=("ballad-full", 8), comp="strum", bass="root8")
        s.section(8, ["F", "G", "Am", "Am", "F", "G", "C", "C"], drums=("rock", 4), comp="strum", bass="root8", lead=True, extra="arp8")
        s.section(8, pop, drums=("rock", 8), comp="strum", bass="root8", lead=True, pad=2)  # a fill into the step
        medley_step(s, 160, {BASS: (34, 100), COMP: (30, 95), LEAD: (30, 80), DRUMS: (16, 100)})
        s.section(8, ["E5", "F5", "E5", "G5"], drums=("metal-gallop", 4), comp="power16", bass="gallop")
        s.section(8, ["C5", "D5", "E5", "E5"], drums=("metal", 8), comp="power8", bass="root8", lead=True)
        s.section(8, ["E5", "F5", "E5", "G5"], drums=("metal-gallop", 4), comp="power16", bass="gallop", lead=True)
        s.section(4, ["A5", "G5", "F5", "E5"], drums=("metal", 4), comp="power16", bass="root16")
        s.ending("E5")
        return s

    @song("medley-170-120")
    def _():
        s = Song("medley-170-120", 306, 170)  # fast rock 170, then a blues shuffle 120
        s.program(BASS, 34), s.program(COMP, 29, 90), s.program(LEAD, 81, 70), s.program(DRUMS, 16), s.program(PAD, 48, 60)
        s.section(8, ["A5", "F5", "G5", "E5"], drums=("rock-busy", 4), comp="power8", bass="root8")
        s.section(8, ["F5", "G5", "A5", "A5"], drums=("rock", 4), comp="power16", bass="root8", lead=True, pad=4)
        s.section(8, ["A5", "F5", "G5", "E5"], drums=("rock-busy", 8), comp="power8", bass="rock", lead="busy")
        s.section(8, ["D5", "E5", "F5", "G5"], drums=("rock", 4), comp="power8", bass="root8")  # a fill into the step
        medley_step(s, 120, {BASS: (33, 100), COMP: (0, 85), LEAD: (22, 85), EXTRA: (17, 70), DRUMS: (0, 100)},
                    jitter={COMP: 6, LEAD: 8})
        blues = ["A7", "D7", "A7", "A7", "D7", "D7", "A7", "A7", "E7", "D7", "A7", "E7"]
        s.section(12, blues, drums=("shuffle", 4), bass="boogie", comp="shuffle-piano")
        s.section(12, blues, drums=("shuffle", 4), bass="boogie", comp="shuffle-piano", lead=True, extra="organ")
        s.ending("A7")
        return s

    @song("medley-150-100")
    def _():
        s = Song("medley-150-100", 307, 150)  # EDM 150, then swung boom-bap hip-hop 100
        s.program(BASS, 39), s.program(COMP, 81, 80), s.program(PAD, 89, 70), s.program(DRUMS, 24), s.program(LEAD, 80, 70)
        prog = ["Em", "C", "G", "D"]
        s.section(4, prog, pad=True, drums="edm-build", crash=False, comp="arp16")
        s.section(16, prog, drums=("edm", 8), bass="offbeat", comp="stab", lead=True, pad=4)
        s.section(8, prog, drums=("edm", 8), bass="offbeat", comp="arp16", pad=2)  # a fill into the step
        medley_step(s, 100, {BASS: (38, 110), COMP: (4, 85), LEAD: (11, 70), DRUMS: (8, 100)}, swing=0.3)
        prog = ["Am7", "Am7", "Dm7", "E7"]
        s.section(8, prog, drums=("hiphop", 8), bass="808", comp="ballad-piano")
        s.section(8, prog, drums=("hiphop", 4), bass="808", comp="ballad-piano", lead=True)
        s.section(4, prog, drums=("hiphop", 4), bass="808", comp="ballad-piano")
        s.ending("Am7")
        return s

    @song("medley-140-96")
    def _():
        s = Song("medley-140-96", 308, 140)  # jazz swing 140 that stops on a held chord, then bossa nova 96
        s.jitter = {COMP: 8, LEAD: 8, BASS: 4}
        s.program(BASS, 32, 110), s.program(COMP, 0, 80), s.program(LEAD, 66, 90), s.program(DRUMS, 32)
        changes = ["Cm7", "F7", "Bbmaj7", "Ebmaj7", "Am7", "D7", "Gm7", "Gm7"]
        s.section(8, changes, drums=("swing", 8), bass="walk", comp="comp")
        s.section(16, changes, drums=("swing", 8), bass="walk", comp="comp", lead="busy")
        s.section(3, ["Am7", "D7", "Gm7"], drums=("swing", 0), bass="walk", comp="comp", lead=True)
        s.ending("Gm7")
        medley_step(s, 96, {BASS: (32, 100), COMP: (24, 95), LEAD: (73, 85), DRUMS: (40, 100)},
                    jitter={COMP: 6, LEAD: 8})
        prog = ["Am7", "Am7", "D9", "D9", "Gmaj7", "Gmaj7", "E7", "E7"]
        s.section(4, prog, comp="bossa-guitar", bass="bossa", drums=("bossa", 0))
        s.section(12, prog, comp="bossa-guitar", bass="bossa", drums=("bossa", 8), lead=True)
        s.section(4, prog, comp="bossa-guitar", bass="bossa", drums=("bossa", 4))
        s.ending("Am7", drums=False)
        return s

    @song("medley-180-128")
    def _():
        s = Song("medley-180-128", 309, 180)  # metal 180, then a country train beat 128
        s.program(BASS, 34), s.program(COMP, 30, 95), s.program(LEAD, 30, 80), s.program(DRUMS, 16), s.program(PAD, 91, 60)
        s.section(8, ["D5", "Bb5", "C5", "D5"], drums=("metal", 4), comp="power16", bass="root16")
        s.section(8, ["D5", "D5", "C5", "Bb5"], drums=("metal-gallop", 4), comp="power16", bass="gallop", lead=True)
        s.section(8, ["Bb5", "C5", "D5", "D5"], drums=("metal", 8), comp="power8", bass="root8", lead=True, pad=4)
        s.section(8, ["D5", "Bb5", "C5", "A5"], drums=("metal", 4), comp="power16", bass="root16")  # a fill into the step
        medley_step(s, 128, {BASS: (32, 100), COMP: (25, 90), LEAD: (40, 90), DRUMS: (0, 100)},
                    jitter={COMP: 5, LEAD: 6})
        prog = ["G", "C", "D", "G"]
        s.section(8, prog, drums=("train", 8), comp="train", bass="train")
        s.section(8, prog, drums=("train", 8), comp="train", bass="train", lead=True)
        s.section(8, ["C", "G", "D", "G"], drums=("train", 4), comp="train", bass="train", lead="busy")
        s.ending("G")
        return s
    return out


# ---------------------------------------------------------------- truth from a MIDI file
DRUM_KEYS = {35: "kick", 36: "kick", 38: "snare", 40: "snare"}


def midi_truth(path, attacks):
    """Ground truth of a MIDI file as rendered by fluidsynth at 44.1 kHz: dict with beats (s), downbeats
    (the beats at bar position 1: every `numerator`-th beat from each time signature's tick, as a MIDI
    file counts its bars; a pickup is the end of a bar that starts with rests), drums [(s, kind)], bpm
    (of the beat grid at the first beat), meter, kind (constant|tempo-change).
    A drum hit's time is where its sound starts: the frame the player starts the note plus the
    sample's own attack delay, `attacks[key]` (corpuslib.fluid_drum_attacks)."""
    mid = mido.MidiFile(path)
    ppq = mid.ticks_per_beat
    tempos, sigs, ons, offs, drums = [], [], [], [], []
    for tick, msg in cl.absolute_messages(mid):
        if msg.type == "set_tempo":
            tempos.append((tick, msg.tempo))
        elif msg.type == "time_signature":
            sigs.append((tick, msg.numerator, msg.denominator))
        elif msg.type == "note_on" and msg.velocity > 0:
            ons.append(tick)
            if msg.channel == 9 and msg.note in DRUM_KEYS:
                drums.append((tick, msg.note))
        elif msg.type == "note_off" or (msg.type == "note_on" and msg.velocity == 0):
            offs.append(tick)
    tempos.sort(key=lambda e: e[0])
    sigs = sorted(sigs, key=lambda e: e[0]) or [(0, 4, 4)]
    if sigs[0][0] > 0:
        sigs.insert(0, (0, 4, 4))
    first, last = min(ons), max(offs + ons)
    beat_ticks, beat_sig, beat_down = [], [], []
    for i, (start, num, den) in enumerate(sigs):
        end = sigs[i + 1][0] if i + 1 < len(sigs) else last + 1
        unit = ppq * 4 / den
        k = 0
        while start + k * unit < end:
            beat_ticks.append(start + k * unit)
            beat_sig.append((num, den))
            beat_down.append(k % num == 0)  # bars start at each time signature's tick
            k += 1
    beat_ticks = np.array(beat_ticks)
    lo = np.searchsorted(beat_ticks, first, side="right") - 1
    hi = np.searchsorted(beat_ticks, last, side="right")
    idx = range(max(0, lo), hi)
    ticks = [int(round(beat_ticks[i])) for i in idx]
    frames = cl.fluid_event_frames(ppq, tempos, ticks)
    down = [beat_down[i] for i in idx]
    dframes = cl.fluid_event_frames(ppq, tempos, [t for t, _ in drums]) if drums else []
    # The tempo (and meter) at the first beat; tempo-change if another tempo acts inside the grid.
    tempo_at = lambda t: ([us for tt, us in tempos if tt <= t] or [500000])[-1]
    num, den = beat_sig[idx[0]]
    us0 = tempo_at(ticks[0])
    changes = {tempo_at(t) for t in ticks} | {us for tt, us in tempos if ticks[0] < tt <= ticks[-1]}
    dens = {beat_sig[i][1] for i in idx}
    return {
        "beats": frames / cl.RATE,
        "downbeats": [f / cl.RATE for f, d in zip(frames, down) if d],
        "drums": [(f / cl.RATE + attacks[key], DRUM_KEYS[key]) for f, (_, key) in zip(dframes, drums)],
        "bpm": 60e6 / us0 * den / 4,
        "meter": num,
        "kind": "tempo-change" if len(changes) > 1 or len(dens) > 1 else "constant",
    }


def render(mid_path, wav_path, soundfont=cl.SOUNDFONT):
    """fluidsynth to 32-bit float, then scaled to a -1 dBFS peak and written as 16-bit WAV.
    (tools/learned/songs.py renders its songs here too, with other soundfonts.)"""
    with tempfile.TemporaryDirectory() as tmp:
        raw = os.path.join(tmp, "render.wav")
        subprocess.run(["fluidsynth", "-ni", "-q", "-g", "0.5", "-O", "float", "-T", "wav", "-F", raw,
                        "-r", str(cl.RATE), soundfont, mid_path],
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=900)
        rate, x = cl.read_wav(raw)
    assert rate == cl.RATE and x.shape[1] == 2, (rate, x.shape)
    cl.write_wav16(wav_path, cl.normalize(x))


def main(argv):
    force = "--force" in argv
    truth_only = "--truth-only" in argv  # rewrite the truth files and index of the songs rendered, no render
    workers = int(argv[argv.index("--jobs") + 1]) if "--jobs" in argv else 2
    only = None
    if "--only" in argv:
        only = set(argv[argv.index("--only") + 1].split(","))
    folder = cl.part_dir("midi")
    mids = os.path.join(folder, "mid")
    os.makedirs(mids, exist_ok=True)
    jobs = []
    for name, build in sorted(songs().items()):
        jobs.append((name, build, os.path.join(mids, name + ".mid")))
    for path in sorted(glob.glob(os.path.join(OPENMSX, "*.mid"))):
        name = "openmsx-" + os.path.basename(path)[:-4].replace("_", "-")
        jobs.append((name, None, path))
    todo = []
    for name, build, mid_path in jobs:
        wav = os.path.join(folder, name + ".wav")
        if only is None or name in only:
            changed = False
            if build is not None:
                tmp = mid_path + ".new"
                build().save(tmp)
                with open(tmp, "rb") as f:
                    new = f.read()
                old = open(mid_path, "rb").read() if os.path.exists(mid_path) else None
                changed = new != old
                if changed:
                    os.replace(tmp, mid_path)
                else:
                    os.remove(tmp)
            if not truth_only and (force or changed or not os.path.exists(wav)):
                todo.append((name, mid_path, wav))

    def run(job):
        name, mid_path, wav = job
        render(mid_path, wav)
        return name

    with ThreadPoolExecutor(max_workers=workers) as pool:
        for n, name in enumerate(pool.map(run, todo)):
            cl.log(f"midi: rendered [{n + 1}/{len(todo)}] {name}")
    attacks = cl.fluid_drum_attacks(sorted(DRUM_KEYS))
    cl.log("midi: drum attack delays " + ", ".join(f"{k} {1000 * d:.2f} ms" for k, d in sorted(attacks.items())))
    entries = []
    for i, (name, build, mid_path) in enumerate(jobs):
        wav = os.path.join(folder, name + ".wav")
        if not (os.path.exists(wav) and os.path.exists(mid_path)):
            continue
        truth = midi_truth(mid_path, attacks)
        duration = cl.wav_duration(wav)
        beats = [b for b in truth["beats"] if b < duration]
        cl.write_times(os.path.join(folder, name + ".beats"), beats)
        cl.write_times(os.path.join(folder, name + ".downbeats"), [b for b in truth["downbeats"] if b < duration])
        drums = None
        if truth["drums"]:
            cl.write_drums(os.path.join(folder, name + ".drums"), truth["drums"])
            drums = f"midi/{name}.drums"
        entries.append(cl.entry(f"midi/{name}.wav", "midi", f"midi/{name}", truth["kind"], f"midi/{name}.beats",
                                drums, truth["meter"], truth["bpm"], downbeats=f"midi/{name}.downbeats"))
        cl.log(f"midi [{i + 1}/{len(jobs)}] {name}: {truth['kind']}, {truth['bpm']:.2f} BPM, meter {truth['meter']}, "
               f"{len(beats)} beats, {duration:.1f} s")
    cl.write_index("midi", entries)


if __name__ == "__main__":
    main(sys.argv[1:])
