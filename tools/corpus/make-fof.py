#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Recorded music with a rhythm game's own beat truth: the songs Debian packages for Frets on Fire
(`fretsonfire-songs-muldjord`, `fretsonfire-songs-sectoid`; CC-BY-SA 3.0 and MIT-style: their
copyright files), mixed here and never committed.

Every other part with truth is rendered from a score. These eight songs are recordings: two bands'
metal and rock, played and mixed by people, 95 to 190 BPM. Each song folder holds the backing track
(`song.ogg`), the guitar stem (`guitar.ogg`) and the game's chart (`notes.mid`), whose tempo map is
the beat grid the game scrolls its notes on, set by the song's charter against the recording (no
`delay` is set in any `song.ini`, so the chart's 0 s is the audio's). That is the truth a rhythm
game itself uses.

- **Audio**: the backing track and the guitar stem mixed as the game plays them together
  (`sox -m`, which halves each so the sum does not clip), 44.1 kHz stereo WAV, in corpus/fof. And the
  backing track alone (`song.ogg` decoded to WAV), in corpus/fof-backing: that is the file a tool
  that maps a song library sees, since such libraries keep the guitar as a stem beside `song.ogg`
  (`beatmap analyze` leaves stems out, docs/scale.md), and its truth is the same.
- **Beats**: the chart's quarter notes through its tempo map (mido), from 0 s, kept where the mix
  sounds: from the first to the last second whose level (RMS over 1 s) is within 40 dB of the
  loudest second's. A beat in a silent lead-in or a faded tail is not one a game asks a player to hit.
- **Bars**: every 4th beat from 0 s (the charts' time signature, where one is given, is 4/4 at tick 0;
  the others carry none, which MIDI reads as 4/4). The bar truth is weaker than the beat truth: a
  chart only has to put its notes on the beat.

The split is the corpus's rule (tools/corpus/build.py), written before any score was computed: sorted
by name, every third one from the first is validation. (One `beatmap analyze` run over all eight mixes
came before this file was written; its maps were seen, not scored. Nothing is tuned on validation.)

    python3 tools/corpus/make-fof.py

- **Copies**: each mix at 22.05 kHz mono FLAC, 48 kHz stereo MP3, 48 kHz stereo Ogg and 44.1 kHz mono
  Ogg (make-variants.py's `encode`), in corpus/fof/copies, listed under `copies` in index.json with
  their source: `tools/bench/composed` checks that each gives its source's map, as the accuracy bench
  checks the corpus's variants (issue 11's "same music, same map", on recordings).

Writes corpus/fof/NAME.wav, NAME.beats, NAME.downbeats, the copies and index.json
(tools/learned/songs.py's format), for `tools/bench/composed --songs corpus/fof`, and the same but the
copies for the backing tracks in corpus/fof-backing (`--songs corpus/fof-backing`). Needs the two
packages above, sox, vorbis-tools, flac and lame (Debian), mido and numpy (PyPI).
"""
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import wave

import mido
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import corpuslib as cl  # noqa: E402

_spec = importlib.util.spec_from_file_location(
    'make_variants', os.path.join(os.path.dirname(os.path.abspath(__file__)), 'make-variants.py'))
mv = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(mv)

# (rate, channels, codec) of each mix's copies.
COPIES = [(22050, 1, 'flac'), (48000, 2, 'mp3'), (48000, 2, 'ogg'), (44100, 1, 'ogg')]

ROOT = '/usr/share/games/fretsonfire/data/songs'
PACKAGES = {'muldjord': 'fretsonfire-songs-muldjord', 'sectoid': 'fretsonfire-songs-sectoid'}
STEMS = ('song.ogg', 'guitar.ogg', 'rhythm.ogg')
FLOOR_DB = 40.0


def chart_beats(path, end):
    """The quarter notes of `path`'s tempo map, in seconds from 0, up to `end` seconds."""
    mid = mido.MidiFile(path)
    ppq = mid.ticks_per_beat
    tempos = cl.tempo_events(mid)
    beats, tick, seconds, index = [], 0, 0.0, 0
    while seconds <= end:
        beats.append(seconds)
        # Advance one quarter note through the tempo map (a change may fall inside it).
        remaining, tempo_tick, t = ppq, tick, seconds
        while remaining > 0:
            while index + 1 < len(tempos) and tempos[index + 1][0] <= tempo_tick:
                index += 1
            next_change = tempos[index + 1][0] if index + 1 < len(tempos) else None
            step = remaining if next_change is None else min(remaining, next_change - tempo_tick)
            t += step * tempos[index][1] / 1e6 / ppq
            tempo_tick += step
            remaining -= step
        tick, seconds = tempo_tick, t
    return beats, 60e6 / tempos[0][1], len({us for _, us in tempos}) > 1


def sounding_span(path):
    """(first, last) second of `path` whose RMS lies within FLOOR_DB of the loudest second's."""
    with wave.open(path) as w:
        rate, channels, frames = w.getframerate(), w.getnchannels(), w.getnframes()
        data = np.frombuffer(w.readframes(frames), dtype='<i2').astype(np.float64).reshape(-1, channels)
    mono = data.mean(axis=1)
    seconds = len(mono) // rate
    rms = np.sqrt(np.array([np.mean(mono[i * rate:(i + 1) * rate] ** 2) for i in range(seconds)]) + 1e-9)
    loud = np.flatnonzero(20 * np.log10(rms / rms.max()) > -FLOOR_DB)
    return float(loud[0]), float(loud[-1] + 1), len(mono) / rate


def main():
    if not os.path.isdir(ROOT):
        sys.exit(f'make-fof: {ROOT} is missing (apt-get install {" ".join(PACKAGES.values())})')
    folder = cl.part_dir('fof')
    backing_folder = cl.part_dir('fof-backing')
    os.makedirs(folder, exist_ok=True)
    os.makedirs(backing_folder, exist_ok=True)
    songs = []
    for band in sorted(PACKAGES):
        for title in sorted(os.listdir(os.path.join(ROOT, band))):
            source = os.path.join(ROOT, band, title)
            if os.path.isfile(os.path.join(source, 'notes.mid')):
                songs.append((f'{band}-{title.lower().replace(" ", "-").replace("_", "-")}', band, source))
    songs.sort()
    validation = {name for name, _, _ in songs[0::3]}
    entries, backing_entries = [], []
    for name, band, source in songs:
        wav = os.path.join(folder, name + '.wav')
        stems = [os.path.join(source, s) for s in STEMS if os.path.isfile(os.path.join(source, s))]
        if not os.path.exists(wav):
            with tempfile.TemporaryDirectory(dir=folder) as scratch:
                part = os.path.join(scratch, 'mix.wav')
                command = ['sox', '-m'] + stems + [part] if len(stems) > 1 else ['sox'] + stems + [part]
                subprocess.run(command + ['rate', '-v', '44100'], check=True, stderr=subprocess.DEVNULL)
                os.replace(part, wav)
        backing = os.path.join(backing_folder, name + '.wav')
        if not os.path.exists(backing):
            with tempfile.TemporaryDirectory(dir=backing_folder) as scratch:
                part = os.path.join(scratch, 'backing.wav')
                subprocess.run(['sox', os.path.join(source, 'song.ogg'), part, 'rate', '-v', '44100'], check=True,
                               stderr=subprocess.DEVNULL)
                os.replace(part, backing)
        first, last, duration = sounding_span(wav)
        beats, bpm, changes = chart_beats(os.path.join(source, 'notes.mid'), duration)
        kept = [(i, b) for i, b in enumerate(beats) if first - 1e-9 <= b <= last]
        for where, listed, mixed in ((folder, entries, stems), (backing_folder, backing_entries, stems[:1])):
            # The mix's sounding span for both: the backing track's truth is the song's.
            cl.write_times(os.path.join(where, name + '.beats'), [b for _, b in kept])
            cl.write_times(os.path.join(where, name + '.downbeats'), [b for i, b in kept if i % 4 == 0])
            listed.append({'path': name + '.wav', 'beats': name + '.beats', 'downbeats': name + '.downbeats',
                           'song': name, 'style': 'tempo-change' if changes else 'constant',
                           'split': 'validation' if name in validation else 'train', 'bpm': round(bpm, 3),
                           'meter': 4, 'seconds': round(duration, 2), 'package': PACKAGES[band],
                           'stems': [os.path.basename(s) for s in mixed]})
    copies = []
    os.makedirs(os.path.join(folder, 'copies'), exist_ok=True)
    for entry in entries:
        name = entry['song']
        for rate, channels, codec in COPIES:
            path = f'copies/{name}-{codec}-{rate // 1000 if rate % 1000 == 0 else rate / 1000:g}k-' \
                f'{"mono" if channels == 1 else "stereo"}.{codec}'
            if not os.path.exists(os.path.join(folder, path)):
                mv.encode(os.path.join(folder, entry['path']), os.path.join(folder, path), rate, channels, codec)
            copies.append({'path': path, 'source': entry['path'], 'split': entry['split'],
                           'encoding': {'codec': codec, 'rate': rate, 'channels': channels}})
    for where, listed, copied in ((folder, entries, copies), (backing_folder, backing_entries, [])):
        with open(os.path.join(where, 'index.json.tmp'), 'w') as f:
            json.dump({'songs': listed, 'copies': copied} if copied else {'songs': listed}, f, indent=1)
            f.write('\n')
        os.replace(os.path.join(where, 'index.json.tmp'), os.path.join(where, 'index.json'))
    minutes = sum(e['seconds'] for e in entries) / 60
    print(f'{len(entries)} songs ({len(validation)} validation), {minutes:.0f} minutes, in {folder} (mixes) '
          f'and {backing_folder} (backing tracks)')


if __name__ == '__main__':
    main()
