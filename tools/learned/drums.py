#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""A kick and snare detector learned from our own songs, measured before it was built on and, since
session 32, run by the analyzer (tools/learned/README.md, "Which sound is the kick").

The analyzer's phase rules read the kick from a 150 Hz low band, which a bass line fools, and the
learned activation of experiment.py did not learn which sound is the kick from 58 songs. This asks
whether a detector that has learned the drums' timbre from many songs of our own tells the beat from
the off-beat where the rules do not.

  make       renders random General-MIDI clips (random tempo, drum pattern, bass, comp and lead,
             random programs and mix) with soundfonts the corpus does not use: MuseScore General and
             csound's GM bank for the music; those two and the two AVL acoustic kits for the drums.
             The corpus renders its MIDI songs with FluidR3, so no corpus sample is in training.
             Truth: every kick (35, 36) and snare (38, 40; the GM clap 39 too) note-on.
             `--set electronic` (session 30) makes a second set of 1000 clips from the same random
             songs (other seeds): half of them with their drums played by a Hydrogen kit's samples
             (Debian hydrogen-drumkits: electronic and acoustic kits, not the two the corpus's
             Hydrogen songs use), two in three with an electronic bass and chord stabs mostly between
             the beats (a sine, or a filtered saw or square, sharp attack, 40-110 Hz, sometimes long
             like an 808 bass): the sounds a 150 Hz low band, and the first detector, took for kicks in LMMS songs.
             `--set synth` (session 33) is the electronic set with a synthesised kit (a kick's sine
             falling in pitch, as drum machines and LMMS's Kicker make it) in place of the Hydrogen kits.
             `--set modules` (session 39) cuts the corpus's train-split tracker modules
             (tools/corpus/make-modules.py) into clips: recorded kits, breakbeats and off-beat basses.
             Their kicks and snares are the notes of the instruments module_drums.py finds to be a kick
             or a snare; the notes of instruments surely neither (bass lines, chords, hi-hats) are
             negatives, and those of instruments it cannot tell are left out of training.
  train      a small network (scikit-learn) on per-frame log bands and their rises at a few offsets
             around the frame, saying "a kick starts here" and "a snare starts here".
  evaluate   on the corpus's train split (or --split validation, once): detection against the MIDI
             songs' drum truth, and the half-beat question: kick and snare activation on a map's
             beats against its midpoints, for the truth and for analyze's maps.
  check-songs  the same check on the maps of a tools/bench/composed run (session 32): the composed
             songs (even and odd halves) or Freedoom's (--songs corpus/freedoom, its own split).
  export     the network as Swift source (Sources/BeatAnalysis/Drums/DrumDetectorWeights.swift): the
             analyzer runs it since session 32 (docs/analyze.md, step 8).
  reference  kick plus snare of one 22.05 kHz WAV at some frames, for DrumDetectorTests.reference.

  bash tools/learned/setup.sh
  tools/learned/out/venv/bin/python3 tools/learned/drums.py make --clips 300
  tools/learned/out/venv/bin/python3 tools/learned/drums.py train
  tools/learned/out/venv/bin/python3 tools/learned/drums.py evaluate --accuracy-json acc.json
  ... make --set electronic --clips 1000; train --set electronic (or --set both: both sets' clips);
  evaluate --set electronic|both
  ... make --set synth --clips 1000; train --set gmsynth (gm's and synth's clips); evaluate --set gmsynth
  ... make --set modules; train --set gmmodules --hidden 64 --modules-kicks-only (gm's clips and the
      modules' kicks: the analyzer's network since session 39)
  tools/learned/out/venv/bin/python3 tools/learned/drums.py check-songs --composed-json composed.json \
      [--songs corpus/freedoom]
"""
import argparse
import json
import os
import pickle
import subprocess
import sys
import tempfile

import numpy as np

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..'))
sys.path.insert(0, os.path.join(ROOT, 'tools', 'corpus'))
import corpuslib as cl  # noqa: E402

sys.path.insert(0, os.path.join(ROOT, 'tools', 'bench'))
import accuracy_module  # noqa: E402 (tools/bench/accuracy as a module: its beat scores)

bench = accuracy_module.load()

OUT = os.path.join(ROOT, 'tools', 'learned', 'out', 'drums')
# --set electronic (session 30): its own clips, model and activations under OUT/electronic/.
SETS = ('gm', 'electronic', 'both', 'synth', 'gmsynth', 'modules', 'gmmodules')
# both: gm and electronic's clips; gmsynth: gm and synth's; gmmodules: gm and the tracker modules'
# Hydrogen kits (Debian hydrogen-drumkits) the electronic set draws from. The corpus's Hydrogen songs
# use GMRockKit and TR808EmulationKit (hydrogen-data), so neither is here.
HYDROGEN_KITS = '/usr/share/hydrogen/data/drumkits'
KIT_NAMES = ('HardElectro1', 'ElectricEmpireKit', 'VariBreaks', 'Audiophob', 'rumpf_kit_z01_h2', 'BJA_Pacific',
             'ForzeeStereo', 'Millo-Drums_v.1', 'ColomboAcousticDrumkit')


def set_dir(name):
    return OUT if name == 'gm' else os.path.join(OUT, name)
SR, HOP, WIN, BANDS = 22050, 256, 1024, 24
MUSIC_FONTS = ('/usr/share/sounds/sf3/MuseScore_General_Lite.sf3', '/usr/share/sounds/sf2/sf_GMbank.sf2')
# (soundfont, channel): the GM fonts' kits on channel 10; the AVL kits are a melodic preset.
DRUM_FONTS = (('/usr/share/sounds/sf3/MuseScore_General_Lite.sf3', 9), ('/usr/share/sounds/sf2/sf_GMbank.sf2', 9),
              ('/usr/share/sounds/sf2/Black_Pearl_4_LV2.sf2', 0), ('/usr/share/sounds/sf2/Red_Zeppelin_4_LV2.sf2', 0))
KICKS, SNARES = (35, 36), (38, 40, 39)
AVL_KICKS, AVL_SNARES = (36,), (38, 40)
HATS, TOMS, CYMBALS, PERC = (42, 44, 46), (41, 43, 45, 47, 48, 50), (49, 51, 52, 55, 57, 59), (37, 54, 56, 60, 61, 62,
                                                                                             63, 64, 69, 70, 75, 76)
GM_KITS = (0, 0, 8, 16, 24, 25, 32, 40)  # standard, room, power, electronic, TR-808, jazz, brush
OFFSETS = (-3, -2, -1, 0, 1, 2, 3, 4, 6, 8)  # hops around the frame the network reads
PPQ = 480


# ---------------------------------------------------------------- random songs

def random_song(rng):
    """One random clip as two MIDI files' events (drums, music) and its drum truth in ticks."""
    bpm = float(np.exp(rng.uniform(np.log(70), np.log(200))))
    per_bar = 4 if rng.random() < 0.8 else 3
    steps = per_bar * 4  # sixteenths
    bars = int(np.ceil(30 / (60 / bpm * per_bar)))
    step = PPQ // 4
    swing = rng.choice([0, 0, 0, step // 3])
    font, channel = DRUM_FONTS[rng.integers(len(DRUM_FONTS))]
    avl = channel == 0
    kicks, snares = (AVL_KICKS, AVL_SNARES) if avl else (KICKS, SNARES)
    hats = HATS
    toms = TOMS
    cymbals = (49, 51, 52, 55, 57) if avl else CYMBALS
    perc = (37,) if avl else PERC

    def pattern():
        """A bar of sixteenths: key lists per step. Positions vary widely, so the network learns the
        sound rather than where in the bar it falls."""
        p = [[] for _ in range(steps)]
        pk = rng.uniform(0.15, 0.6)
        ps = rng.uniform(0.1, 0.5)
        hat_every = int(rng.choice([1, 2, 2, 4]))
        hat = int(rng.choice(hats[:2] if rng.random() < 0.8 else hats))
        for s in range(steps):
            on_beat, on_eighth = s % 4 == 0, s % 2 == 0
            w = 1.0 if on_beat else (0.5 if on_eighth else 0.25)
            if rng.random() < pk * w * 1.5:
                p[s].append(int(rng.choice(kicks)))
            if rng.random() < ps * w * 1.5:
                p[s].append(int(rng.choice(snares)))
            if s % hat_every == 0 and rng.random() < 0.9:
                p[s].append(hat if rng.random() < 0.85 else 46)
            if rng.random() < 0.04:
                p[s].append(int(rng.choice(perc)))
        return p

    patterns = [pattern() for _ in range(int(rng.integers(1, 4)))]
    drums, music, truth = [], [], []  # (tick, channel, key, velocity, length)
    mute_from = int(rng.integers(0, bars)) if rng.random() < 0.3 else bars  # a stretch without drums
    mute_to = min(bars, mute_from + int(rng.integers(2, 6)))
    root = int(rng.integers(36, 48))
    progression = [root + int(x) for x in rng.choice([0, 3, 5, 7, 8, 10], size=4)]
    bass_prog = int(rng.choice([32, 33, 34, 35, 36, 37, 38, 39, 87]))
    comp_prog = int(rng.choice([0, 1, 2, 4, 5, 16, 17, 19, 24, 25, 26, 27, 29, 30, 48, 49, 50, 61, 62, 80, 81, 88, 89,
                                90, 95]))
    lead_prog = int(rng.choice([56, 57, 60, 64, 65, 66, 68, 71, 73, 78, 80, 81, 82, 84, 40, 41, 22, 11, 12, 13]))
    bass_p = rng.uniform(0.2, 0.7)
    comp_style = rng.choice(['beats', 'offbeats', 'eighths', 'hold', 'random'])
    lead_p = rng.uniform(0.0, 0.4)
    has_music = rng.random() < 0.92
    for bar in range(bars):
        t0 = bar * steps * step
        chord_root = progression[bar % 4]
        pat = patterns[(bar // 2) % len(patterns)]
        fill = rng.random() < 0.12
        for s in range(steps):
            t = t0 + s * step + (swing if s % 2 else 0)
            if not (mute_from <= bar < mute_to):
                keys = list(pat[s])
                if fill and s >= steps // 2 and rng.random() < 0.6:
                    keys.append(int(rng.choice(toms + snares[:1])))
                if s == 0 and (bar % 8 == 0) and rng.random() < 0.5:
                    keys.append(int(rng.choice(cymbals)))
                for key in keys:
                    v = int(np.clip(rng.normal(100, 15), 40, 127))
                    drums.append((t, channel, key, v, step))
                    if key in kicks:
                        truth.append((t, 'kick'))
                    elif key in snares:
                        truth.append((t, 'snare'))
            if not has_music:
                continue
            if rng.random() < bass_p * (1.0 if s % 2 == 0 else 0.5):
                note = chord_root - 12 + int(rng.choice([0, 0, 0, 7, 12, 5]))
                music.append((t, 1, note, int(rng.integers(60, 120)), int(step * rng.choice([1, 2, 3]))))
            beat_step = s % 4 == 0
            play = {'beats': beat_step, 'offbeats': s % 4 == 2, 'eighths': s % 2 == 0, 'hold': s == 0,
                    'random': rng.random() < 0.25}[comp_style]
            if play:
                length = step * (steps if comp_style == 'hold' else int(rng.choice([1, 2])))
                for iv in (0, 4 if rng.random() < 0.5 else 3, 7):
                    music.append((t, 2, chord_root + 12 + iv, int(rng.integers(50, 100)), length))
            if rng.random() < lead_p * (1.0 if s % 2 == 0 else 0.3):
                note = chord_root + 24 + int(rng.choice([0, 2, 3, 5, 7, 9, 10, 12]))
                music.append((t, 3, note, int(rng.integers(60, 110)), int(step * rng.choice([1, 2, 4]))))
    meta = {'bpm': bpm, 'per_bar': per_bar, 'drum_font': font, 'music_font': MUSIC_FONTS[rng.integers(2)],
            'programs': {1: bass_prog, 2: comp_prog, 3: lead_prog}, 'drum_gain_db': float(rng.uniform(-12, 4)),
            'tone': float(rng.uniform(-1, 1)), 'kit': int(rng.choice(GM_KITS))}
    return meta, drums, music, truth


def write_midi(path, bpm, events, programs):
    import mido
    mid = mido.MidiFile(ticks_per_beat=PPQ)
    track = mido.MidiTrack()
    mid.tracks.append(track)
    track.append(mido.MetaMessage('set_tempo', tempo=int(round(60e6 / bpm))))
    for ch, prog in programs.items():
        track.append(mido.Message('program_change', channel=ch, program=prog, time=0))
    timeline = []
    for t, ch, key, v, length in events:
        timeline.append((t, 1, ch, key, v))
        timeline.append((t + max(1, length - 10), 0, ch, key, 0))
    timeline.sort()
    now = 0
    for t, on, ch, key, v in timeline:
        kind = 'note_on' if on else 'note_off'
        track.append(mido.Message(kind, channel=ch, note=key, velocity=v, time=t - now))
        now = t
    mid.save(path)


def render(mid_path, font, frames):
    with tempfile.TemporaryDirectory() as tmp:
        wav = os.path.join(tmp, 'r.wav')
        subprocess.run(['fluidsynth', '-ni', '-q', '-g', '0.5', '-O', 'float', '-T', 'wav', '-F', wav, '-r', str(SR),
                        font, mid_path], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=600)
        rate, x = cl.read_wav(wav)
    assert rate == SR, rate
    x = x.mean(axis=1) if x.ndim == 2 else x
    out = np.zeros(frames, np.float32)
    out[:min(frames, len(x))] = x[:frames]
    return out


def tilt(x, amount):
    """A gentle random tone colour: a one-pole low or high shelf mixed in, so no one kit's
    spectrum is the only kick the network sees."""
    from scipy.signal import lfilter
    a = 0.9
    low = lfilter([1 - a], [1, -a], x)
    return (x + amount * (low - 0.5 * x)).astype(np.float32)


def kit_samples(kit):
    """A Hydrogen kit's sample files by role (kick, snare, hat, tom, cymbal, perc), from its
    drumkit.xml's instrument names."""
    import re
    import xml.etree.ElementTree as ET
    root = ET.parse(os.path.join(HYDROGEN_KITS, kit, 'drumkit.xml')).getroot()
    ns = re.match(r'\{.*\}', root.tag)
    ns = ns.group(0) if ns else ''
    roles = {}
    for instrument in root.iter(ns + 'instrument'):
        name = (instrument.findtext(ns + 'name') or '').lower()
        files = [f.text for f in instrument.iter(ns + 'filename') if f.text]
        if not files:
            continue
        if re.search(r'kick|bass ?drum|bassdrum', name):
            role = 'kick'
        elif re.search(r'snare|clap', name) and 'roll' not in name:
            role = 'snare'
        elif re.search(r'hat|hh', name):
            role = 'hat'
        elif 'tom' in name:
            role = 'tom'
        elif re.search(r'crash|ride|cymbal|splash|china', name):
            role = 'cymbal'
        else:
            role = 'perc'
        roles.setdefault(role, []).append(os.path.join(HYDROGEN_KITS, kit, files[len(files) // 2]))
    return roles


_SAMPLES = {}


def sample(path):
    """A kit sample as mono float32 at SR (sox converts it once; cached in memory)."""
    if path not in _SAMPLES:
        with tempfile.TemporaryDirectory() as tmp:
            wav = os.path.join(tmp, 's.wav')
            subprocess.run(['sox', path, '-b', '32', '-e', 'floating-point', '-c', '1', '-r', str(SR), wav],
                           check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            _, x = cl.read_wav(wav)
        x = x.mean(axis=1) if x.ndim == 2 else x
        _SAMPLES[path] = x[:int(1.5 * SR)].astype(np.float32)
    return _SAMPLES[path]


def gm_role(key):
    if key in KICKS:
        return 'kick'
    if key in SNARES:
        return 'snare'
    if key in HATS:
        return 'hat'
    if key in TOMS:
        return 'tom'
    if key in CYMBALS:
        return 'cymbal'
    return 'perc'


def render_kit(rng, kit, drums, bpm, frames):
    """The drum events played with one sample per role of a Hydrogen kit, at their exact times. Returns
    the audio and each kick's and snare's start in seconds."""
    roles = kit_samples(kit)
    chosen = {role: files[int(rng.integers(len(files)))] for role, files in roles.items()}
    out = np.zeros(frames, np.float32)
    hits = {'kick': [], 'snare': []}
    for tick, _, key, velocity, _ in drums:
        role = gm_role(key)
        if role not in chosen:
            continue
        t = tick / PPQ * 60.0 / bpm
        start = int(round(t * SR))
        if start >= frames:
            continue
        x = sample(chosen[role]) * (velocity / 127.0)
        end = min(frames, start + len(x))
        out[start:end] += x[:end - start]
        if role in hits:
            hits[role].append(t)
    return out, hits


def synth_voice(rng, role):
    """One drum sound made the way drum machines and synth plugins make them (LMMS's Kicker, a TR-808's
    circuits), with its parameters drawn once per clip: a kick is a sine whose pitch falls fast from
    100-400 Hz to 35-70 Hz, sometimes with a click or some drive; a snare a tone of 150-300 Hz under
    band-passed noise; a clap three or four noise bursts; a hat high-passed noise; a tom a slower, higher
    sweep; other percussion a short tone. What tells a kick from an electronic bass note (electronic_part)
    is the falling pitch and the short decay."""
    from scipy.signal import butter, lfilter
    def noise(n):
        return rng.standard_normal(n).astype(np.float32)
    if role == 'kick':
        start, end = float(np.exp(rng.uniform(np.log(100), np.log(400)))), rng.uniform(35, 70)
        sweep, decay = rng.uniform(0.01, 0.06), rng.uniform(0.08, 0.5)
        n = int(min(1.5, 5 * decay) * SR)
        time = np.arange(n) / SR
        freq = end + (start - end) * np.exp(-time / sweep)
        x = np.sin(2 * np.pi * np.cumsum(freq) / SR) * np.exp(-time / decay)
        if rng.random() < 0.5:  # a click at the start
            click = noise(n) * np.exp(-time / rng.uniform(0.001, 0.005)) * rng.uniform(0.1, 0.6)
            x = x + click
        if rng.random() < 0.3:  # drive
            x = np.tanh(x * rng.uniform(1.5, 6))
    elif role in ('snare', 'clap'):
        decay = rng.uniform(0.05, 0.3)
        n = int(min(1.5, 5 * decay) * SR)
        time = np.arange(n) / SR
        lo, hi = rng.uniform(800, 3000), rng.uniform(5000, 10000)
        b, a = butter(2, [lo / (SR / 2), hi / (SR / 2)], btype='band')
        hiss = lfilter(b, a, noise(n))
        if role == 'clap':
            env = np.zeros(n)
            for k in range(int(rng.integers(3, 5))):
                at = int(k * rng.uniform(0.006, 0.012) * SR)
                env[at:] += np.exp(-(time[:n - at]) / (0.01 if k < 3 else decay))
            x = hiss * env
        else:
            tone = np.sin(2 * np.pi * rng.uniform(150, 300) * time) * np.exp(-time / rng.uniform(0.03, 0.12))
            x = hiss * np.exp(-time / decay) + tone * rng.uniform(0.2, 1.0)
    elif role == 'hat':
        decay = rng.uniform(0.02, 0.25)
        n = int(min(1.5, 5 * decay) * SR)
        b, a = butter(2, rng.uniform(5000, 9000) / (SR / 2), btype='high')
        x = lfilter(b, a, noise(n)) * np.exp(-np.arange(n) / SR / decay)
    elif role == 'tom':
        start, end = rng.uniform(150, 500), rng.uniform(80, 200)
        decay = rng.uniform(0.1, 0.4)
        n = int(min(1.5, 5 * decay) * SR)
        time = np.arange(n) / SR
        freq = end + max(0.0, start - end) * np.exp(-time / rng.uniform(0.02, 0.1))
        x = np.sin(2 * np.pi * np.cumsum(freq) / SR) * np.exp(-time / decay)
    elif role == 'cymbal':
        decay = rng.uniform(0.4, 1.2)
        n = int(1.5 * SR)
        b, a = butter(2, rng.uniform(3000, 7000) / (SR / 2), btype='high')
        x = lfilter(b, a, noise(n)) * np.exp(-np.arange(n) / SR / decay)
    else:
        decay = rng.uniform(0.02, 0.1)
        n = int(5 * decay * SR)
        time = np.arange(n) / SR
        x = np.sin(2 * np.pi * rng.uniform(400, 2000) * time) * np.exp(-time / decay)
    x = np.asarray(x, np.float32)
    return x / (np.max(np.abs(x)) + 1e-9)


def render_synth(rng, drums, bpm, frames):
    """The drum events played by a synthesised kit (synth_voice, one sound per role), at their exact
    times. Returns the audio and each kick's and snare's start in seconds."""
    voices = {role: synth_voice(rng, role) for role in ('kick', 'snare', 'hat', 'tom', 'cymbal', 'perc')}
    if rng.random() < 0.4:
        voices['snare'] = synth_voice(rng, 'clap')
    out = np.zeros(frames, np.float32)
    hits = {'kick': [], 'snare': []}
    gains = {'kick': 1.0, 'snare': 0.8, 'hat': rng.uniform(0.1, 0.4), 'tom': 0.6, 'cymbal': 0.3, 'perc': 0.3}
    for tick, _, key, velocity, _ in drums:
        role = gm_role(key)
        t = tick / PPQ * 60.0 / bpm
        start = int(round(t * SR))
        if start >= frames:
            continue
        x = voices[role] * (velocity / 127.0) * gains[role]
        end = min(frames, start + len(x))
        out[start:end] += x[:end - start]
        if role in hits:
            hits[role].append(t)
    return out, hits


def electronic_part(rng, bpm, per_bar, frames):
    """Sounds of electronic music that are not drums, often between the beats: a bass (a sine or a
    filtered saw, sharp attack, 40-110 Hz), sometimes long like an 808 bass, and chord stabs or plucks.
    What the 150 Hz low band and session 25's detector took for kicks in LMMS songs."""
    from scipy.signal import lfilter
    beat = 60.0 / bpm
    sixteenth = beat / 4
    out = np.zeros(frames, np.float32)
    # The bass.
    kind = rng.choice(['sine', 'saw', 'square'])
    long = rng.random() < 0.3
    f0 = float(np.exp(rng.uniform(np.log(40), np.log(110))))
    decay = rng.uniform(0.3, 0.8) if long else rng.uniform(0.05, 0.25)
    attack = rng.uniform(0.001, 0.008)
    cutoff = rng.uniform(150, 1500)
    offbeat_p = rng.uniform(0.5, 0.95)
    other_p = rng.uniform(0.0, 0.3)
    semitones = rng.choice([0, 3, 5, 7, 10, 12], size=4)
    steps = int(frames / SR / sixteenth)
    for step in range(steps):
        position = step % 4
        p = offbeat_p if position == 2 else (other_p if position != 0 else other_p * 0.5)
        if rng.random() >= p:
            continue
        t = step * sixteenth
        n = int(min(decay * 4, 1.5) * SR)
        start = int(round(t * SR))
        if start >= frames:
            break
        freq = f0 * 2 ** (semitones[(step // (4 * per_bar)) % 4] / 12)
        time = np.arange(n) / SR
        phase = 2 * np.pi * freq * time
        wave = {'sine': np.sin(phase), 'saw': 2 * ((freq * time) % 1) - 1,
                'square': np.sign(np.sin(phase))}[kind]
        env = np.minimum(1, time / attack) * np.exp(-time / decay)
        x = (wave * env).astype(np.float32)
        if kind != 'sine':
            a = np.exp(-2 * np.pi * cutoff / SR)
            x = lfilter([1 - a], [1, -a], lfilter([1 - a], [1, -a], x)).astype(np.float32)
        end = min(frames, start + n)
        out[start:end] += x[:end - start]
    out /= np.sqrt(np.mean(out ** 2)) + 1e-9
    # Stabs or plucks: a saw chord through a decaying low-pass, mostly off the beat.
    if rng.random() < 0.6:
        stabs = np.zeros(frames, np.float32)
        root = float(np.exp(rng.uniform(np.log(180), np.log(500))))
        sdecay = rng.uniform(0.04, 0.2)
        stab_p = rng.uniform(0.4, 0.9)
        for step in range(steps):
            if step % 4 != 2 and rng.random() > 0.1:
                continue
            if rng.random() >= stab_p:
                continue
            start = int(round(step * sixteenth * SR))
            n = int(4 * sdecay * SR)
            time = np.arange(n) / SR
            wave = sum(2 * ((root * r * time) % 1) - 1 for r in (1.0, 1.26, 1.5))
            x = (wave * np.exp(-time / sdecay) * np.minimum(1, time / 0.002)).astype(np.float32)
            end = min(frames, start + n)
            stabs[start:end] += x[:end - start]
        out += stabs / (np.sqrt(np.mean(stabs ** 2)) + 1e-9) * rng.uniform(0.2, 0.8)
    return out


def fluid_truth(meta, truth):
    """The kicks' and snares' starts in seconds as fluidsynth plays the clip's MIDI ticks."""
    us = int(round(60e6 / meta['bpm']))
    ticks = [t for t, _ in truth]
    starts = cl.fluid_event_frames(PPQ, [(0, us)], ticks, rate=SR) / SR if ticks else np.zeros(0)
    kinds = np.array([k for _, k in truth])
    kicks = np.unique(starts[kinds == 'kick']) if len(kinds) else starts
    snares = np.unique(starts[kinds == 'snare']) if len(kinds) else starts
    return kicks, snares


def font_drums(meta, drums, midi_path, frames):
    """The drum events played by the clip's soundfont kit (written to `midi_path`): a GM kit on
    channel 10, or an AVL kit, which is a melodic preset."""
    write_midi(midi_path, meta['bpm'], drums, {0: 0} if meta['drum_font'].endswith('LV2.sf2') else {9: meta['kit']})
    return render(midi_path, meta['drum_font'], frames)


def with_music(meta, drums_audio, music, midi_path, frames):
    """The drums mixed with the clip's music (rendered from `midi_path`), each at its own level."""
    m = np.zeros(frames, np.float32)
    if music:
        write_midi(midi_path, meta['bpm'], music, meta['programs'])
        m = render(midi_path, meta['music_font'], frames)
    rd, rm = np.sqrt(np.mean(drums_audio ** 2)) + 1e-9, np.sqrt(np.mean(m ** 2)) + 1e-9
    gain = 10 ** (meta['drum_gain_db'] / 20)
    return (drums_audio / rd * gain + (m / rm if music else 0)) if music else drums_audio / rd


def make_modules(args):
    """Clips of 32 s of the corpus's train-split tracker modules, their kicks and snares found by
    module_drums.py, and the note starts of the instruments that are surely neither ('others') or
    may be ('unknowns')."""
    import module_drums
    folder = os.path.join(set_dir('modules'), 'clips')
    os.makedirs(folder, exist_ok=True)
    frames = int(module_drums.CLIP_SECONDS * SR)
    for name, data in module_drums.train_modules():
        if os.path.exists(os.path.join(folder, f'{name}-00.npz')):
            continue
        audio, truth, table = module_drums.describe(data)
        roles = {str(instrument): kind for instrument, kind, _, _ in table}
        cl.log(f'{name}: {len(truth["kick"])} kicks, {len(truth["snare"])} snares, '
               f'{sum(k in ("kick", "snare") for k in roles.values())} drum instruments of {len(roles)}')
        for i, start in enumerate(range(0, max(1, len(audio) - frames // 2), frames)):
            x = audio[start:start + frames]
            t0, t1 = start / SR, (start + len(x)) / SR

            def inside(times):
                times = np.asarray(times)
                return times[(times >= t0) & (times < t1)] - t0
            np.savez_compressed(os.path.join(folder, f'{name}-{i:02d}.npz'),
                                audio=(0.5 * x / (np.max(np.abs(x)) + 1e-9)).astype(np.float32),
                                kicks=inside(truth['kick']), snares=inside(truth['snare']),
                                others=inside(truth['other']), unknowns=inside(truth[None]),
                                meta=json.dumps({'module': name, 'start': t0, 'roles': roles}))


def make(args):
    if args.set in ('both', 'gmsynth', 'gmmodules'):
        sys.exit('drums.py make: make the sets it joins; `train --set both|gmsynth|gmmodules` reads their clips')
    if args.set == 'modules':
        return make_modules(args)
    # Both sets render their music, and some of their drums, with these soundfonts.
    missing = sorted({f for f in MUSIC_FONTS + tuple(f for f, _ in DRUM_FONTS) if not os.path.exists(f)})
    if missing:
        sys.exit(f'drums.py make: missing soundfonts {", ".join(missing)}; install the Debian packages '
                 'musescore-general-soundfont-small, csound-soundfont and avldrums.lv2-soundfont')
    electronic_set = args.set in ('electronic', 'synth')
    synth_set = args.set == 'synth'
    if args.set == 'electronic':
        kits = [k for k in KIT_NAMES if not os.path.exists(os.path.join(HYDROGEN_KITS, k, 'drumkit.xml'))]
        if kits:
            sys.exit(f'drums.py make: missing Hydrogen kits {", ".join(kits)}; install the Debian package '
                     'hydrogen-drumkits')
    # gm: the random songs with their drums played by a soundfont's kit. electronic: the same kind of
    # songs (other seeds), with the drums played by a Hydrogen kit's samples in half the clips, and an
    # electronic bass and stabs under them in two clips in three.
    folder = os.path.join(set_dir(args.set), 'clips')
    os.makedirs(folder, exist_ok=True)
    for i in range(args.start, args.clips):
        base = os.path.join(folder, f'clip{i:04d}')
        if os.path.exists(base + '.npz'):
            continue
        rng = np.random.default_rng((90_000 if synth_set else 50_000 if electronic_set else 1000) + i)
        meta, drums, music, truth = random_song(rng)
        frames = int(32 * SR)
        kit = None
        if electronic_set and rng.random() < 0.5:
            kit = 'synth' if synth_set else KIT_NAMES[int(rng.integers(len(KIT_NAMES)))]
        with tempfile.TemporaryDirectory() as tmp:
            dm, mm = os.path.join(tmp, 'd.mid'), os.path.join(tmp, 'm.mid')
            if kit == 'synth':
                d, hits = render_synth(rng, drums, meta['bpm'], frames)
                kicks, snares = np.unique(hits['kick']), np.unique(hits['snare'])
            elif kit:
                d, hits = render_kit(rng, kit, drums, meta['bpm'], frames)
                kicks, snares = np.unique(hits['kick']), np.unique(hits['snare'])
            else:
                d = font_drums(meta, drums, dm, frames)
                kicks, snares = fluid_truth(meta, truth)
            x = with_music(meta, d, music, mm, frames)
        electronic = electronic_set and rng.random() < 2 / 3
        if electronic:
            x = x + electronic_part(rng, meta['bpm'], meta['per_bar'], frames) * 10 ** (rng.uniform(-6, 6) / 20)
        x = tilt(x, meta['tone'])
        x = 0.5 * x / (np.max(np.abs(x)) + 1e-9)
        if electronic_set:
            meta.update(hydrogen_kit=kit, electronic=bool(electronic))
        np.savez_compressed(base + '.npz', audio=x.astype(np.float32), kicks=kicks, snares=snares,
                            meta=json.dumps(meta))
        if i % 20 == 0:
            cl.log(f'clip {i}: {meta["bpm"]:.0f} BPM, {kit or os.path.basename(meta["drum_font"])}'
                   f'{", electronic" if electronic else ""}')


# ---------------------------------------------------------------- features and the network

def filterbank():
    freqs = np.fft.rfftfreq(WIN, 1 / SR)
    edges = np.geomspace(30, 11000, BANDS + 1)
    bank = np.zeros((len(freqs), BANDS))
    for band in range(BANDS):
        inside = (freqs >= edges[band]) & (freqs < edges[band + 1])
        if not inside.any():
            inside = np.arange(len(freqs)) == np.argmin(np.abs(freqs - np.sqrt(edges[band] * edges[band + 1])))
        bank[inside, band] = 1.0 / inside.sum()
    return bank


BANK = filterbank()


def features(audio):
    """Per hop (frame i centred at i * HOP / SR): log band levels relative to the clip's loud level,
    and their rises."""
    audio = np.r_[np.zeros(WIN // 2, np.float32), audio.astype(np.float32), np.zeros(WIN, np.float32)]
    count = 1 + (len(audio) - WIN) // HOP
    bands = np.zeros((count, BANDS), np.float32)
    window = np.hanning(WIN).astype(np.float32)
    for start in range(0, count, 4096):
        end = min(count, start + 4096)
        index = np.arange(WIN)[None, :] + HOP * np.arange(start, end)[:, None]
        magnitude = np.abs(np.fft.rfft(audio[index] * window, axis=1))
        bands[start:end] = np.log(1e-4 + magnitude @ BANK)
    loud = np.percentile(bands.max(axis=1), 95)  # the clip's loud level, so gain does not matter
    bands = np.maximum(bands - loud, -12.0) / 4.0
    rises = np.zeros_like(bands)
    rises[1:] = np.maximum(0, np.diff(bands, axis=0))
    return np.concatenate([bands, rises], axis=1)


def context(feats, rows):
    last = len(feats) - 1
    return np.concatenate([feats[np.clip(rows + o, 0, last)] for o in OFFSETS], axis=1).astype(np.float32)


def labels(count, times):
    """1 at the hop nearest each time (training leaves out the hops either side of it)."""
    y = np.zeros(count, np.float32)
    for t in times:
        f = t * SR / HOP
        i = int(round(f))
        if 0 <= i < count:
            y[i] = 1
    return y


def train(args):
    from sklearn.neural_network import MLPClassifier
    joined = {'both': ('gm', 'electronic'), 'gmsynth': ('gm', 'synth'), 'gmmodules': ('gm', 'modules')}
    folders = [os.path.join(set_dir(name), 'clips') for name in joined.get(args.set, (args.set,))]
    clips = sorted(os.path.join(folder, f) for folder in folders for f in os.listdir(folder) if f.endswith('.npz'))
    rng = np.random.default_rng(0)
    xs, ys = [], []
    for name in clips:
        z = np.load(name)
        f = features(z['audio'])
        yk, ysn = labels(len(f), z['kicks']), labels(len(f), z['snares'])
        if 'others' in z.files and args.modules_kicks_only:
            ysn = np.zeros_like(ysn)
        pos = np.flatnonzero((yk + ysn) > 0)
        near = np.zeros(len(f), bool)  # a hit's neighbouring hops: where it starts is within a hop
        near[np.clip(np.r_[pos - 1, pos + 1], 0, len(f) - 1)] = True
        near[pos] = False
        size = min(len(f) // 2, 3 * len(pos) + 200)
        if 'others' in z.files:
            # A tracker module's clip: its unlabelled drums are not negatives. Half the negatives are
            # the notes of instruments that are surely no kick or snare (bass lines, chords, hi-hats),
            # half hops more than two from any note's start.
            def around(keys):
                marked = np.zeros(len(f), bool)
                for key in keys:
                    for t in z[key]:
                        i = int(round(t * SR / HOP))
                        marked[max(0, i - 2):i + 3] = True
                return marked
            drumlike = around(('kicks', 'snares', 'unknowns'))
            noted = drumlike | around(('others',))
            others = np.flatnonzero(labels(len(f), z['others']) > 0)
            others = others[~drumlike[others]]
            quiet = np.flatnonzero(~noted)
            from_others = min(len(others), size // 2)
            neg = np.r_[rng.choice(others, size=from_others, replace=False),
                        rng.choice(quiet, size=min(len(quiet), size - from_others), replace=False)]
        else:
            neg = rng.choice(np.flatnonzero(~near & ((yk + ysn) == 0)), size=size, replace=False)
        rows = np.unique(np.r_[pos, neg])
        xs.append(context(f, rows))
        ys.append(np.stack([yk[rows], ysn[rows]], axis=1))
    x, y = np.concatenate(xs), np.concatenate(ys)
    cl.log(f'{len(clips)} clips, {len(x)} frames, {int(y[:, 0].sum())} kicks, {int(y[:, 1].sum())} snares')
    model = MLPClassifier(hidden_layer_sizes=(args.hidden,), alpha=1e-3, max_iter=200, early_stopping=True,
                          random_state=0)
    model.fit(x, y)
    cl.log(f'validation score (held-out frames of training clips) {model.best_validation_score_:.3f}')
    model.trained_with = f'--set {args.set} --hidden {args.hidden}' + (' --modules-kicks-only' if args.modules_kicks_only else '')
    os.makedirs(set_dir(args.set), exist_ok=True)
    with open(os.path.join(set_dir(args.set), 'model.pkl'), 'wb') as fh:
        pickle.dump(model, fh)


def activation(model, audio):
    f = features(audio)
    p = model.predict_proba(context(f, np.arange(len(f))))
    return p[:, 0], p[:, 1]


# ---------------------------------------------------------------- evaluation on the corpus

def corpus_audio(path):
    import scipy.io.wavfile as wavfile
    from math import gcd
    from scipy.signal import resample_poly
    rate, audio = wavfile.read(os.path.join(cl.CORPUS, path))
    audio = audio.astype(np.float32)
    if audio.ndim == 2:
        audio = audio.mean(axis=1)
    audio /= 32768.0
    if rate != SR:
        g = gcd(rate, SR)
        audio = resample_poly(audio, SR // g, rate // g).astype(np.float32)
    return audio


def corpus_activation(model, set_name, path):
    """The kick and snare activation of a corpus track by `set_name`'s model (cached per set)."""
    here = set_dir(set_name)
    cache = os.path.join(here, 'act', path.replace('/', '_') + '.npy')
    if os.path.exists(cache) and os.path.getmtime(cache) > os.path.getmtime(os.path.join(here, 'model.pkl')):
        return np.load(cache)
    k, s = activation(model, corpus_audio(path))
    a = np.stack([k, s]).astype(np.float32)
    os.makedirs(os.path.dirname(cache), exist_ok=True)
    np.save(cache, a)
    return a


def peaks(curve, threshold=0.5):
    i = np.flatnonzero((curve[1:-1] >= threshold) & (curve[1:-1] >= curve[:-2]) & (curve[1:-1] > curve[2:])) + 1
    return i * HOP / SR


def f_measure(found, truth, window=0.03):
    truth = np.sort(np.asarray(truth))
    if len(found) == 0 or len(truth) == 0:
        return 0.0
    used = np.zeros(len(truth), bool)
    hits = 0
    for t in found:
        j = np.searchsorted(truth, t)
        for c in (j - 1, j):
            if 0 <= c < len(truth) and not used[c] and abs(truth[c] - t) <= window:
                used[c] = True
                hits += 1
                break
    return 2 * hits / (len(found) + len(truth))


def strength(curve, times, reach=2):
    """Mean over `times` of the curve's largest value within `reach` hops."""
    rows = np.round(np.asarray(times) * SR / HOP).astype(int)
    rows = rows[(rows >= reach) & (rows < len(curve) - reach)]
    if len(rows) == 0:
        return 0.0
    return float(np.mean(np.max(np.stack([curve[rows + o] for o in range(-reach, reach + 1)]), axis=0)))


SHIFTS = (0.0, 1 / 3, 0.5, 2 / 3)  # of a beat: the phases analysis can confuse


def shifted(beats, fraction):
    beats = np.asarray(beats)
    return beats[:-1] + fraction * np.diff(beats)


def shift_scores(drum, beats):
    """log of (kick + snare) activation at the beats moved by each of SHIFTS over that at the beats."""
    if len(beats) < 4:
        return np.zeros(len(SHIFTS))
    s = np.array([strength(drum, shifted(beats, f)) for f in SHIFTS]) + 1e-3
    return np.log(s / s[0])


def paired_t(drum, beats, fraction):
    """Paired t statistic of (kick + snare) activation at the beats moved by `fraction` of a beat
    minus that at the beats themselves, over the beats of the first five minutes."""
    beats = np.asarray(beats)
    beats = beats[beats < 300.0]
    if len(beats) < 8:
        return 0.0
    moved = np.array([strength(drum, [t]) for t in shifted(beats, fraction)])
    at = np.array([strength(drum, [t]) for t in beats[:-1]])
    x = moved - at
    return float(x.mean() / (x.std(ddof=1) / np.sqrt(len(x)) + 1e-9))


def checked(drum, beats, t_min):
    """The beats, or the beats moved by the fraction of a beat (1/3, 1/2, 2/3) whose points carry
    more kick and snare than the beats at a paired t of t_min or more (the largest such)."""
    ts = [(paired_t(drum, beats, f), f) for f in SHIFTS[1:]]
    t, f = max(ts)
    if t < t_min:
        return beats, None, t
    return list(shifted(beats, f)), f, t


def evaluate(args):
    with open(os.path.join(set_dir(args.set), 'model.pkl'), 'rb') as fh:
        model = pickle.load(fh)
    with open(args.accuracy_json) as fh:
        acc = json.load(fh)
    with open(os.path.join(cl.CORPUS, 'manifest.json')) as fh:
        manifest = {m['path']: m for m in json.load(fh)['tracks']}
    det = {'kick': [], 'snare': []}
    rows = []
    simulated = []
    for t in acc['tracks']:
        t = {**manifest.get(t['path'], {}), **t}
        if t['split'] != args.split or t['part'] not in ('midi', 'lmms', 'hydrogen', 'warped', 'synthetic'):
            continue
        if t.get('encoding') or not t.get('beats') or (t.get('ours') or {}).get('F') is None:
            continue
        a = corpus_activation(model, args.set, t['path'])
        drum = a[0] + a[1]
        if t.get('drums'):
            truth = cl.read_drums(os.path.join(cl.CORPUS, t['drums']))
            for i, kind in enumerate(('kick', 'snare')):
                det[kind].append(f_measure(peaks(a[i]), [x for x, k in truth if k == kind]))
        truth_beats = cl.read_times(os.path.join(cl.CORPUS, t['beats']))
        with open(t['ours']['map']) as fh:
            ours = json.load(fh)['beats']
        rows.append((t['path'], t['ours']['F'], t['ours'].get('AMLt'), shift_scores(drum, truth_beats),
                     shift_scores(drum, ours)))
        new, moved_by, t_value = checked(drum, ours, args.t_min)
        after = bench.score(truth_beats, new) if moved_by is not None else t['ours']
        group = 'warped' if t['part'] == 'warped' else ('constant' if t['kind'] == 'constant' else t['kind'])
        simulated.append((group, t['path'], t['ours']['F'], t['ours']['CMLt'], after['F'], after['CMLt'], moved_by,
                          t_value))
    for kind, v in det.items():
        print(f'{kind}: detection F (30 ms) mean {np.mean(v):.3f} over {len(v)} songs, min {np.min(v):.3f}')
    print(f'\nThe check (move the beats where a shift wins at paired t >= {args.t_min}), split {args.split}:')
    for group in sorted({r[0] for r in simulated}):
        g = [r for r in simulated if r[0] == group]
        print(f'  {group:12s} n={len(g):3d}  F {np.mean([r[2] for r in g]):.3f} -> {np.mean([r[4] for r in g]):.3f}'
              f'  CMLt {np.mean([r[3] for r in g]):.3f} -> {np.mean([r[5] for r in g]):.3f}')
    for r in simulated:
        if r[6] is not None:
            print(f'  moved by {r[6]:.2f} (t {r[7]:.1f}): {r[1]}  F {r[2]:.2f} -> {r[4]:.2f}')
    print()
    margin = np.array([-np.max(r[3][1:]) for r in rows])  # how far the truth's own phase leads the others
    print(f'truth beats: margin of phase 0 over the best other: min {margin.min():.2f}, 5th pct '
          f'{np.percentile(margin, 5):.2f}, median {np.median(margin):.2f}; '
          f'below 0 in {int((margin < 0).sum())} of {len(rows)}')
    fmt = lambda v: ' '.join(f'{x:+.2f}' for x in v[1:])
    for path, f, amlt, tr, our in sorted(rows, key=lambda r: -np.max(r[4][1:])):
        flag = f' < {SHIFTS[int(np.argmax(our))]:.2f}' if np.max(our[1:]) > 0 else ''
        print(f'{path:58s} F {f:.2f} AMLt {amlt if amlt is None else round(amlt, 2)}  truth {fmt(tr)}  '
              f'ours {fmt(our)}{flag}')
    if args.bars_json:
        bar_parity(model, manifest, args)


def check_songs(args):
    """The check on a songs.py-format set's maps, from one `tools/bench/composed --json` run (its maps
    must still be on disk): by the set's own split where it has one (Freedoom), else by even and odd
    song numbers (the composed songs)."""
    with open(os.path.join(set_dir(args.set), 'model.pkl'), 'rb') as fh:
        model = pickle.load(fh)
    with open(args.composed_json) as fh:
        tracks = json.load(fh)['tracks']
    folder = os.path.abspath(args.songs)
    groups = {}
    for t in tracks:
        path = (t['ours'] or {}).get('map')
        if not path or not os.path.exists(path):
            continue
        with open(path) as fh:
            ours = json.load(fh)['beats']
        if len(ours) < 8:
            continue
        a = corpus_activation(model, args.set, os.path.join(folder, t['path']))
        truth = cl.read_times(os.path.join(folder, t['song'] + '.beats'))
        before = bench.score(truth, ours)['F']
        new, moved_by, t_value = checked(a[0] + a[1], ours, args.t_min)
        after = bench.score(truth, new)['F'] if moved_by is not None else before
        group = t.get('split') or ('even' if int(t['song'][-4:]) % 2 == 0 else 'odd')
        groups.setdefault(group, []).append((t['song'], t.get('style'), before, after, moved_by, t_value))
    print(f'The check (move the beats where a shift wins at paired t >= {args.t_min}) on {args.songs}:')
    for group, rows in sorted(groups.items()):
        print(f'  {group:10s} n={len(rows):3d}  F {np.mean([r[2] for r in rows]):.3f} -> '
              f'{np.mean([r[3] for r in rows]):.3f}')
        for song, style, before, after, moved_by, t_value in rows:
            if moved_by is not None:
                print(f'    moved by {moved_by:.2f} (t {t_value:.1f}): {song} ({style})  F {before:.2f} -> {after:.2f}')


def export(args):
    """Writes the set's network as Swift source (Sources/BeatAnalysis/Drums/DrumDetectorWeights.swift):
    float literals that round-trip to the network's float32 values, so the analyzer needs no resource
    file beside it, and the arrays are constant data in the binary rather than decoded into the heap."""
    with open(os.path.join(set_dir(args.set), 'model.pkl'), 'rb') as fh:
        model = pickle.load(fh)
    assert model.activation == 'relu' and model.out_activation_ == 'logistic' and len(model.coefs_) == 2
    hidden = model.coefs_[0].shape[1]
    assert model.coefs_[0].shape[0] == len(OFFSETS) * 2 * BANDS and model.coefs_[1].shape == (hidden, 2)

    def literal(array):
        array = np.asarray(array, dtype=np.float32).ravel()
        # Subnormal weights (under 1.2e-38, from units training left unused) are written as 0: Swift
        # warns that such literals lose precision, and none of them can move an output.
        array = np.where(np.abs(array) < np.finfo(np.float32).tiny, np.float32(0), array)
        values = [str(v) for v in array]  # shortest float32 round trip
        return ',\n'.join('        ' + ', '.join(values[i:i + 8]) for i in range(0, len(values), 8))

    arrays = (('firstWeights', model.coefs_[0], 'inputs × hidden, row-major'),
              ('firstBiases', model.intercepts_[0], 'hidden'),
              ('secondWeights', model.coefs_[1], 'hidden × 2 (kick, snare), row-major'),
              ('secondBiases', model.intercepts_[1], 'kick, snare'))
    lines = ['// SPDX-License-Identifier: GPL-3.0-or-later',
             f'// Generated by `tools/learned/drums.py export --set {args.set}` from the network',
             f'// `drums.py train {getattr(model, "trained_with", "--set " + args.set)}` fitted on rendered clips',
             '// (tools/learned/README.md, "Which sound is the kick"). Do not edit.',
             '// swift-format-ignore-file',
             '',
             'extension DrumDetector {',
             '    /// Hidden units of the network.',
             f'    static let hiddenCount = {hidden}',
             '']
    for name, array, shape in arrays:
        lines += [f'    /// The network\'s {shape}.', f'    static let {name}: [Float] = [', literal(array), '    ]', '']
    lines[-1:] = ['}']
    path = os.path.join(ROOT, 'Sources', 'BeatAnalysis', 'Drums', 'DrumDetectorWeights.swift')
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, 'w') as fh:
        fh.write('\n'.join(lines) + '\n')
    print(f'{path}: {sum(a.size for _, a, _ in arrays)} weights')


def reference(args):
    """Kick plus snare of one WAV at 22.05 kHz (so no resampler stands between this and the analyzer)
    at the first 48 frames above 0.05 and every 50th frame, as Swift source for
    DrumDetectorTests.reference: what the port is held to."""
    import scipy.io.wavfile as wavfile
    with open(os.path.join(set_dir(args.set), 'model.pkl'), 'rb') as fh:
        model = pickle.load(fh)
    rate, audio = wavfile.read(args.wav)
    assert rate == SR, rate
    audio = audio.astype(np.float32)
    if audio.ndim == 2:
        audio = audio.mean(axis=1)
    audio /= 32768.0
    k, s = activation(model, audio)
    drum = k + s
    frames = sorted(set(np.flatnonzero(drum > 0.05)[:48].tolist()) | set(range(0, len(drum), 50)))
    print(',\n'.join(f'        ({i}, {drum[i]:.4f})' for i in frames))


# ---------------------------------------------------------------- the bar phase: a back-beat template

KICK_WEIGHTS = np.array([1.0, -1.0, 0.5, -1.0])  # by bar position: kick on 1 (and 3)
SNARE_WEIGHTS = np.array([-1.0, 1.0, -1.0, 1.0])  # snare on 2 and 4


def per_beat(curve, beats, reach=2):
    rows = np.clip(np.round(np.asarray(beats) * SR / HOP).astype(int), reach, len(curve) - reach - 1)
    return np.max(np.stack([curve[rows + o] for o in range(-reach, reach + 1)]), axis=0)


def template_scores(kick, snare):
    """Per phase p (beat p is bar position 1): the back-beat template's mean over the beats."""
    n = np.arange(len(kick))
    return np.array([np.mean(KICK_WEIGHTS[(n - p) % 4] * kick + SNARE_WEIGHTS[(n - p) % 4] * snare)
                     for p in range(4)])


def truth_phase(beats, downbeats):
    index = [int(np.argmin(np.abs(beats - d))) for d in downbeats]
    return int(np.bincount(np.array(index) % 4, minlength=4).argmax())


def bar_parity(model, manifest, args):
    """4/4 songs with downbeat truth: the template's phase on the truth's beats (the detector's
    activations; and the MIDI truth's own drum hits where there are some, an oracle), and the
    template's parity set against analyze's bar phase on the maps whose beats are right
    (tools/bench/bars --json)."""
    with open(args.bars_json) as fh:
        bars = {t['path']: t['bars']['ours'] for t in json.load(fh)}
    count = right = parity = oracle_n = oracle_right = oracle_parity = 0
    ours_parity = drum_parity = fixes = breaks = compared = 0
    for path, m in manifest.items():
        if m['split'] != args.split or m.get('encoding') or not m.get('downbeats') or m['meter'] != 4:
            continue
        if m['part'] not in ('midi', 'lmms', 'warped'):
            continue
        a = corpus_activation(model, args.set, path)
        beats = np.array(cl.read_times(os.path.join(cl.CORPUS, m['beats'])))
        tp = truth_phase(beats, np.array(cl.read_times(os.path.join(cl.CORPUS, m['downbeats']))))
        p = int(np.argmax(template_scores(per_beat(a[0], beats), per_beat(a[1], beats))))
        count += 1
        right += p == tp
        parity += p % 2 == tp % 2
        if m.get('drums') and not m.get('warp'):
            hits = cl.read_drums(os.path.join(cl.CORPUS, m['drums']))
            present = [np.array([float(np.any(np.abs(np.array([x for x, k in hits if k == kind] or [-1.0]) - b)
                                              <= 0.03)) for b in beats]) for kind in ('kick', 'snare')]
            q = int(np.argmax(template_scores(*present)))
            oracle_n += 1
            oracle_right += q == tp
            oracle_parity += q % 2 == tp % 2
        ours = bars.get(path)
        if not ours or not ours['beatsRight']:
            continue
        with open(os.path.join(ROOT, 'tools', 'bench', 'out', 'accuracy', 'maps',
                               path.replace('.wav', '.beatmap.json'))) as fh:
            mp = json.load(fh)
        segments = [s for s in mp['tempo'] if s.get('beatsPerBar')]
        if len(mp['tempo']) != 1 or not segments or segments[0]['beatsPerBar'] != 4:
            continue
        mb = np.array(mp['beats'])
        first = int(np.argmin(np.abs(mb - segments[0]['time'])))  # analyze's downbeat, in its beats
        op = int(np.argmin(np.abs(beats - mb[first]))) % 4  # ... in the truth's numbering
        sc = template_scores(per_beat(a[0], mb), per_beat(a[1], mb))
        odd = max(sc[(first + 1) % 4], sc[(first + 3) % 4]) > max(sc[first % 4], sc[(first + 2) % 4])
        new = (op + (1 if sc[(first + 1) % 4] >= sc[(first + 3) % 4] else 3)) % 4 if odd else op
        compared += 1
        ours_parity += op % 2 == tp % 2
        drum_parity += (op + odd) % 2 == tp % 2
        fixes += op != tp and new == tp
        breaks += op == tp and new != tp
    print(f'\nBar phase, back-beat template, 4/4 songs of the {args.split} split on their truth beats: '
          f'{right} of {count} right, parity {parity} of {count}; with the MIDI truth\'s own drum hits '
          f'(oracle): {oracle_right} of {oracle_n} right, parity {oracle_parity} of {oracle_n}.')
    print(f'On analyze\'s maps with right beats (one segment, 4/4): parity right, analyze {ours_parity} of '
          f'{compared}, template {drum_parity} of {compared}; the template\'s parity put over analyze\'s phase '
          f'fixes {fixes} and breaks {breaks}.')


if __name__ == '__main__':
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest='command', required=True)
    m = sub.add_parser('make')
    m.add_argument('--clips', type=int, default=300)
    m.add_argument('--start', type=int, default=0)
    t = sub.add_parser('train')
    t.add_argument('--hidden', type=int, default=32)
    t.add_argument('--modules-kicks-only', action='store_true',
                   help='learn only the kicks from the modules\' clips (their snares are left out of training)')
    e = sub.add_parser('evaluate')
    e.add_argument('--accuracy-json', required=True)
    e.add_argument('--split', default='train')
    e.add_argument('--t-min', type=float, default=5.0)
    e.add_argument('--bars-json', help='tools/bench/bars --json output: also the bar-phase template')
    c = sub.add_parser('check-songs', help='the check on the maps of a tools/bench/composed --json run')
    c.add_argument('--composed-json', required=True)
    c.add_argument('--songs', default=os.path.join(ROOT, 'tools', 'learned', 'out', 'songs'),
                   help='the songs folder that run scored (default: songs.py\'s)')
    c.add_argument('--t-min', type=float, default=5.0)
    x = sub.add_parser('export', help='the network as Swift source for the analyzer')
    r = sub.add_parser('reference', help='kick plus snare of one 22.05 kHz WAV at some frames, as Swift source')
    r.add_argument('wav')
    for p in (m, t, e, c, x, r):
        p.add_argument('--set', choices=SETS, default='gm',
                       help='gm: the GM soundfonts\' kits (session 25); electronic: Hydrogen kits too, and an '
                            'electronic bass and stabs (session 30); both: trained on both sets\' clips; synth: '
                            'a synthesised kit instead of Hydrogen\'s (session 33); gmsynth: trained on gm\'s and '
                            'synth\'s clips; modules: the train split\'s tracker modules (session 39); gmmodules: '
                            'trained on gm\'s and the modules\' clips (the analyzer\'s, with --modules-kicks-only)')
    args = parser.parse_args()
    {'make': make, 'train': train, 'evaluate': evaluate, 'check-songs': check_songs, 'export': export,
     'reference': reference}[args.command](args)
