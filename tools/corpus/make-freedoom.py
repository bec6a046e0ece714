#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Game music composed by people, with exact truth: the General-MIDI soundtrack of Freedoom (Debian
package freedoom, BSD-style licence), rendered here and never committed.

Every song of the corpus's midi part is either ours (one composer, tools/corpus/make-midi.py) or one
of Debian's OpenMSX songs. Freedoom's two games carry 67 different MIDI songs written for a game by
about a dozen composers: rock and metal, electronic, ambient, a few in 3/4, 6/8, 7/4 or changing
meters, a few with tempo changes. Their MIDI files are the truth, as for the OpenMSX songs: beats and
bars from each file's tempo map and time signatures (make-midi.py's midi_truth), rendered by the same
fluidsynth and FluidR3 soundfont (make-midi.py's render).

Left out: the ten songs stored with 89 ticks per quarter note at 95 BPM. That is the 140 Hz tick of
Doom's MUS format carried into MIDI, not a tempo anyone wrote, so their quarter notes are not the
music's beats. Songs without a time signature are read as 4/4 from their first tick (MIDI's default),
so their bar truth is weaker than their beat truth.

The split is made by the corpus's rule (tools/corpus/build.py), before anything was measured on
these songs: sorted by name, every third one from the first is validation.

    python3 tools/corpus/make-freedoom.py [--jobs N]

Writes corpus/freedoom/NAME.wav, NAME.beats, NAME.downbeats and index.json (tools/learned/songs.py's
format, with each song's split and kind), for `tools/bench/composed --songs corpus/freedoom`. Needs
freedoom, fluidsynth and fluid-soundfont-gm (Debian), mido and numpy (PyPI).
"""
import argparse
import hashlib
import importlib.util
import json
import os
import struct
import sys
from concurrent.futures import ThreadPoolExecutor

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import corpuslib as cl  # noqa: E402

_spec = importlib.util.spec_from_file_location(
    'make_midi', os.path.join(os.path.dirname(os.path.abspath(__file__)), 'make-midi.py'))
mm = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(mm)

WADS = ('/usr/share/games/doom/freedoom1.wad', '/usr/share/games/doom/freedoom2.wad')
MUS_TICKS_PER_QUARTER = 89  # a MUS song converted to MIDI: 140 ticks a second at 95 BPM


def midi_lumps(wad):
    """(lump name, bytes) of the music lumps (D_*) of `wad` stored as MIDI files."""
    with open(wad, 'rb') as f:
        data = f.read()
    kind, count, offset = struct.unpack('<4sii', data[:12])
    if kind not in (b'IWAD', b'PWAD'):
        sys.exit(f'make-freedoom: {wad} is not a WAD file')
    for index in range(count):
        position, size, name = struct.unpack('<ii8s', data[offset + 16 * index:offset + 16 * index + 16])
        name = name.rstrip(b'\0').decode('ascii', 'replace')
        blob = data[position:position + size]
        if name.startswith('D_') and blob[:4] == b'MThd':
            yield name, blob


def ticks_per_quarter(blob):
    return struct.unpack('>H', blob[12:14])[0]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--jobs', type=int, default=2, help='renders at once (default 2)')
    args = parser.parse_args()
    for wad in WADS:
        if not os.path.exists(wad):
            sys.exit(f'make-freedoom: {wad} is missing (apt-get install freedoom)')
    folder = cl.part_dir('freedoom')
    mids = os.path.join(folder, 'mid')
    os.makedirs(mids, exist_ok=True)
    songs, seen = [], set()
    for wad in WADS:
        game = os.path.basename(wad)[:-4]
        for lump, blob in midi_lumps(wad):
            digest = hashlib.sha256(blob).hexdigest()
            if digest in seen or ticks_per_quarter(blob) == MUS_TICKS_PER_QUARTER:
                continue
            seen.add(digest)
            name = f'{game}-{lump[2:].lower().replace("_", "-")}'
            path = os.path.join(mids, name + '.mid')
            with open(path, 'wb') as f:
                f.write(blob)
            songs.append(name)
    songs.sort()
    validation = set(songs[0::3])

    def make(name):
        mid = os.path.join(mids, name + '.mid')
        wav = os.path.join(folder, name + '.wav')
        if not os.path.exists(wav):
            mm.render(mid, wav)
        truth = mm.midi_truth(mid, {key: 0.0 for key in mm.DRUM_KEYS})  # beats and bars only
        duration = cl.wav_duration(wav)
        cl.write_times(os.path.join(folder, name + '.beats'), [b for b in truth['beats'] if b < duration])
        cl.write_times(os.path.join(folder, name + '.downbeats'), [b for b in truth['downbeats'] if b < duration])
        return {'path': name + '.wav', 'beats': name + '.beats', 'downbeats': name + '.downbeats', 'song': name,
                'style': truth['kind'], 'split': 'validation' if name in validation else 'train',
                'bpm': round(truth['bpm'], 3), 'meter': truth['meter'], 'seconds': round(duration, 2)}

    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
        entries = list(pool.map(make, songs))
    with open(os.path.join(folder, 'index.json'), 'w') as f:
        json.dump({'songs': entries}, f, indent=1)
        f.write('\n')
    minutes = sum(e['seconds'] for e in entries) / 60
    print(f'{len(entries)} songs ({len(validation)} validation), {minutes:.0f} minutes, in {folder}')


if __name__ == '__main__':
    main()
