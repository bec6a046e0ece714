#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Game music made by other people from recorded samples, with exact truth: the tracker modules
(MOD, S3M, XM, IT) that Debian's games ship, rendered here with libopenmpt and never committed.

Every other song the corpus holds was synthesised from a General-MIDI soundfont, from LMMS's
instruments, or by our own code; most were written by one composer (ours). Tracker modules were
written by many people, for games, and play recorded samples: drum kits and breakbeats, basses,
pianos, strings, chiptune waves. They are the nearest thing to real recorded mixes that Debian ships
with timing one can trust:
- **The rows are the clock.** A module plays a grid of rows; each row lasts `speed` ticks of
  2.5 / `tempo` seconds, both set by the file and changeable on any row (swing by alternating
  speeds, pattern delays, tempo slides). libopenmpt's own playback (the renderer) reports the row it
  plays, so the truth is the render's own row times, whatever the effects did, read every 16 frames
  (±0.18 ms).
- **The notated beat is a number of rows.** A tracker shows a beat every 4 rows and a bar every 16
  by default (Impulse Tracker and OpenMPT store the composer's own choice in the file, read here
  where set); MOD's tempo is defined so that 4 rows at speed 6 make one beat. The beats are the
  played rows whose number in their pattern is a multiple of the rows per beat; the downbeats those
  that are a multiple of the rows per bar (a weaker truth where the file does not say).
  Composers do not always follow the convention (a song written at speed 3 has its beat every 8
  rows), so the tempo the convention gives is written in index.json and a song outside the
  analysis's default 60–200 BPM is marked `"level": "unsure"`. A song whose rows do not keep a beat
  under the convention (a section at double speed, patterns cut at odd rows) is left out.

The modules come from these Debian packages (`apt-get download`, unpacked here, never installed):
PACKAGES and MORE_PACKAGES below. Jingles under 20 s and copies (the same bytes, or the same music
saved in another format) are left out; songs are cut at five minutes. The split is made by the
corpus's rule (tools/corpus/build.py) before anything was measured on these songs: the songs kept,
sorted by name, every third one from the first is validation, in each batch on its own (the second
batch, MORE_PACKAGES, was added after the first was measured, and leaves its split as it was).
Rebuilt, the audio is byte-identical but for three Impulse Tracker songs whose instruments swing
volume or panning at random (libopenmpt seeds its generator from the system and offers no seed);
their truth is the same on every build.

    python3 tools/corpus/make-modules.py [--check]

Writes corpus/modules/NAME.wav, NAME.beats, NAME.downbeats and index.json (tools/learned/songs.py's
format, with each song's split), for `tools/bench/composed --songs corpus/modules`. `--check` first
renders a module of our own (a click on every beat, speed and tempo changes, a swing by alternating
speeds) and measures its clicks against the truth read from the rows. Needs libopenmpt0 (Debian)
and numpy (PyPI).
"""
import argparse
import ctypes
import glob
import hashlib
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import corpuslib as cl  # noqa: E402

np = cl.np

# Debian packages whose data holds tracker modules (checked on Debian 12: 64 modules in all, and 45
# more in MORE_PACKAGES).
PACKAGES = ('bugsquish', 'circuslinux-data', 'madbomber-data', 'pachi-data', 'penguin-command',
            'pingus-data', 'ri-li-data', 'solarwolf', 'tecnoballz-data', 'tuxmath-data')
# Added in session 38 after the first figures were measured on the songs of PACKAGES: their songs are
# split among themselves by the same rule, so that every song of the first batch keeps its split.
MORE_PACKAGES = ('bomberclone-data', 'ceferino-data', 'criticalmass-data', 'freedroid-data', 'gemdropx',
                 'heroes-sound-tracks', 'njam-data', 'open-invaders-data', 'rockdodger', 'tuxtype-data')
BATCHES = (PACKAGES, MORE_PACKAGES)
EXTENSIONS = ('.mod', '.s3m', '.xm', '.it')
SHORTEST = 20.0     # seconds: shorter modules are jingles
LONGEST = 300.0     # seconds rendered at most
CHUNK = 16          # frames read between two looks at the row being played
DEFAULT_ROWS_PER_BEAT = 4
DEFAULT_ROWS_PER_BAR = 16


class Openmpt:
    """The few calls of libopenmpt's C API this needs, through ctypes."""

    def __init__(self):
        try:
            self.lib = ctypes.CDLL('libopenmpt.so.0')
        except OSError:
            sys.exit('make-modules: libopenmpt.so.0 is missing (apt-get install libopenmpt0)')
        lib = self.lib
        lib.openmpt_module_create_from_memory2.restype = ctypes.c_void_p
        lib.openmpt_module_create_from_memory2.argtypes = [
            ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p,
            ctypes.c_void_p, ctypes.POINTER(ctypes.c_int), ctypes.POINTER(ctypes.c_char_p), ctypes.c_void_p]
        lib.openmpt_module_destroy.argtypes = [ctypes.c_void_p]
        lib.openmpt_module_read_float_stereo.restype = ctypes.c_size_t
        lib.openmpt_module_read_float_stereo.argtypes = [
            ctypes.c_void_p, ctypes.c_int32, ctypes.c_size_t, ctypes.c_void_p, ctypes.c_void_p]
        for name in ('openmpt_module_get_current_order', 'openmpt_module_get_current_row',
                     'openmpt_module_get_current_speed'):
            getattr(lib, name).restype = ctypes.c_int32
            getattr(lib, name).argtypes = [ctypes.c_void_p]
        lib.openmpt_module_get_current_tempo.restype = ctypes.c_double
        lib.openmpt_module_get_current_tempo.argtypes = [ctypes.c_void_p]
        lib.openmpt_module_get_duration_seconds.restype = ctypes.c_double
        lib.openmpt_module_get_duration_seconds.argtypes = [ctypes.c_void_p]
        self.silent = ctypes.cast(lib.openmpt_log_func_silent, ctypes.c_void_p)

    def render(self, data, seconds):
        """(stereo float32 frames, [(frame, order, row)] for each row as it starts) of the module
        `data`, played once from the start, at most `seconds` long."""
        lib = self.lib
        error = ctypes.c_int(0)
        buffer = ctypes.create_string_buffer(data, len(data))
        module = lib.openmpt_module_create_from_memory2(
            buffer, len(data), self.silent, None, None, None, ctypes.byref(error), None, None)
        if not module:
            raise ValueError(f'libopenmpt cannot read it (error {error.value})')
        try:
            total = int(min(seconds, lib.openmpt_module_get_duration_seconds(module)) * cl.RATE) + CHUNK
            left = np.zeros(total, dtype=np.float32)
            right = np.zeros(total, dtype=np.float32)
            rows, position, last = [], 0, None
            read = lib.openmpt_module_read_float_stereo
            get_order, get_row = lib.openmpt_module_get_current_order, lib.openmpt_module_get_current_row
            left_pointer, right_pointer = left.ctypes.data, right.ctypes.data
            while position + CHUNK <= total:
                count = read(module, cl.RATE, CHUNK, left_pointer + 4 * position, right_pointer + 4 * position)
                if count == 0:
                    break
                now = (get_order(module), get_row(module))
                if now != last:
                    # The row's first tick was read in this chunk: its start lies in it.
                    rows.append((position + (CHUNK / 2 if position > 0 else 0), now[0], now[1]))
                    last = now
                position += count
            return np.stack([left[:position], right[:position]], axis=1), rows
        finally:
            lib.openmpt_module_destroy(module)


def it_highlight(data):
    """(rows per beat, rows per bar) an Impulse Tracker (or OpenMPT) file stores, or None when unset."""
    if data[:4] != b'IMPM' or len(data) < 0x20:
        return None
    beat, bar = data[0x1E], data[0x1F]
    return (beat, bar) if beat > 0 and bar > 0 and bar % beat == 0 else None


def truth(rows, rows_per_beat, rows_per_bar, duration):
    """Beats and downbeats (seconds): the played rows whose number in their pattern is a multiple of
    the rows per beat, and of the rows per bar."""
    beats = [frame / cl.RATE for frame, _, row in rows if row % rows_per_beat == 0 and frame / cl.RATE < duration]
    downbeats = [frame / cl.RATE for frame, _, row in rows if row % rows_per_bar == 0 and frame / cl.RATE < duration]
    return beats, downbeats


def irregular_beats(beats):
    """How many intervals between `beats` lie more than 1.5× from their median either way. A speed
    doubled for a section, a pattern cut short or a jump to an odd row breaks the rows-per-beat
    convention, and the truth with it: such songs are left out rather than guessed at. A tempo that
    slides (a ritardando by tempo effects) changes each interval a little and stays."""
    intervals = np.diff(beats)
    median = float(np.median(intervals))
    return int(np.sum((intervals > 1.5 * median) | (intervals < median / 1.5)))


def loudness_envelope(audio):
    """The RMS of `audio` in frames of 10 ms, in dB."""
    frame = cl.RATE // 100
    mono = audio.mean(axis=1)
    count = len(mono) // frame
    power = (mono[:count * frame].reshape(count, frame) ** 2).mean(axis=1)
    return 10 * np.log10(power + 1e-10)


def same_music(a, b):
    """Whether two loudness envelopes are one song's (a module saved again in another format: the
    same rows, samples and effects, so the same loudness over time): as long within 1 %, and
    correlated at 0.95 or more."""
    if abs(len(a) - len(b)) > 0.01 * max(len(a), len(b)):
        return False
    count = min(len(a), len(b))
    return float(np.corrcoef(a[:count], b[:count])[0, 1]) >= 0.95


def fetch_modules(folder):
    """(batch, name, bytes) of every module in BATCHES, downloaded into folder/debs and unpacked there,
    batch by batch and sorted by name within each (a copy of an earlier batch's song is left out)."""
    debs = os.path.join(folder, 'debs')
    os.makedirs(debs, exist_ok=True)
    found, seen = [], set()
    for batch, packages in enumerate(BATCHES):
        modules = []
        for package in sorted(packages):
            debs_found = sorted(glob.glob(os.path.join(debs, f'{package}_*.deb')))
            if not debs_found:
                result = subprocess.run(['apt-get', 'download', package], cwd=debs, capture_output=True, text=True)
                if result.returncode != 0:
                    sys.exit(f'make-modules: apt-get download {package} failed: {result.stderr.strip()}')
                debs_found = sorted(glob.glob(os.path.join(debs, f'{package}_*.deb')))
            for deb in debs_found:
                with tempfile.TemporaryDirectory() as unpacked:
                    subprocess.run(['dpkg-deb', '-x', deb, unpacked], check=True)
                    for root, _, files in sorted(os.walk(unpacked)):
                        for file in sorted(files):
                            stem, extension = os.path.splitext(file)
                            if extension.lower() not in EXTENSIONS:
                                continue
                            with open(os.path.join(root, file), 'rb') as f:
                                data = f.read()
                            digest = hashlib.sha256(data).hexdigest()
                            if digest in seen:
                                continue
                            seen.add(digest)
                            name = f'{package.removesuffix("-data")}-{stem.lower().replace("_", "-")}'
                            modules.append((batch, name, data))
        found += sorted(modules)
    return found


def write_check_module(path):
    """A ProTracker module of our own: one 4-channel pattern order of three patterns, a click on every
    fourth row (the notated beat) and a softer one on the rows between; pattern 0 at speed 6 and tempo
    125, pattern 1 at speed 3 and tempo 140 (a beat every 4 rows still), pattern 2 swung by speeds 7
    and 5 on alternate rows, with a pattern delay (EE2) on row 40."""
    click = np.zeros(512)
    click[:64] = np.sin(np.arange(64) * 0.9) * np.exp(-np.arange(64) / 12.0)
    sample = np.clip(np.round(click * 127), -128, 127).astype(np.int8).tobytes()
    header = b'beatmapkit check'.ljust(20, b'\0')
    header += b'click'.ljust(22, b'\0') + struct.pack('>HBBHH', len(sample) // 2, 0, 64, 0, 1)
    header += (b'\0' * 22 + struct.pack('>HBBHH', 0, 0, 0, 0, 1)) * 30
    header += bytes([3, 127]) + bytes([0, 1, 2] + [0] * 125) + b'M.K.'

    def cell(period=0, instrument=0, effect=0, parameter=0):
        return bytes([(instrument & 0xF0) | (period >> 8), period & 0xFF,
                      ((instrument & 0x0F) << 4) | effect, parameter])

    patterns = b''
    for number in range(3):
        for row in range(64):
            note = cell(214, 1, 0xC, 64 if row % 4 == 0 else 16)  # C-3, volume: beats louder
            control = cell()
            if row == 0:
                control = cell(effect=0xF, parameter=[6, 3, 7][number])
            elif row == 1 and number < 2:
                control = cell(effect=0xF, parameter=[125, 140][number])
            elif number == 2 and row % 2 == 0 and row > 0:
                control = cell(effect=0xF, parameter=7)
            elif number == 2 and row % 2 == 1:
                control = cell(effect=0xF, parameter=5)
            if number == 2 and row == 40:
                control = cell(effect=0xE, parameter=0xE2)
            patterns += note + control + cell() + cell()
    with open(path, 'wb') as f:
        f.write(header + patterns + sample)


def check(openmpt):
    """Renders write_check_module's module and measures each beat's click against the truth."""
    with tempfile.TemporaryDirectory() as scratch:
        path = os.path.join(scratch, 'check.mod')
        write_check_module(path)
        with open(path, 'rb') as f:
            audio, rows = openmpt.render(f.read(), LONGEST)
    mono = np.abs(audio).max(axis=1)
    beats, _ = truth(rows, DEFAULT_ROWS_PER_BEAT, DEFAULT_ROWS_PER_BAR, len(mono) / cl.RATE)
    errors = []
    for beat in beats:
        start = int(beat * cl.RATE) - 200
        window = mono[max(0, start):start + 600]
        above = np.nonzero(window > 0.1 * window.max())[0]
        if len(above):
            errors.append((max(0, start) + above[0]) / cl.RATE - beat)
    errors = np.array(errors) * 1000
    intervals = np.diff(beats)
    cl.log(f'check: {len(beats)} beats, intervals {intervals.min() * 1000:.1f}–{intervals.max() * 1000:.1f} ms; '
           f'click − truth: median {np.median(errors):+.2f} ms, max |e| {np.abs(errors).max():.2f} ms')
    if np.abs(errors).max() > 1.0:
        sys.exit('make-modules: the rows read from libopenmpt do not match its clicks within 1 ms')


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--check', action='store_true', help='check the row timing on a module of our own first')
    args = parser.parse_args()
    if shutil.which('apt-get') is None or shutil.which('dpkg-deb') is None:
        sys.exit('make-modules: needs apt-get and dpkg-deb (Debian)')
    openmpt = Openmpt()
    if args.check:
        check(openmpt)
    folder = cl.part_dir('modules')
    modules = fetch_modules(folder)
    entries, envelopes = [], {}
    for batch, name, data in modules:
        try:
            audio, rows = openmpt.render(data, LONGEST)
        except ValueError as error:
            cl.log(f'{name}: left out: {error}')
            continue
        duration = len(audio) / cl.RATE
        if duration < SHORTEST:
            cl.log(f'{name}: left out: a jingle ({duration:.1f} s)')
            continue
        highlight = it_highlight(data)
        rows_per_beat, rows_per_bar = highlight or (DEFAULT_ROWS_PER_BEAT, DEFAULT_ROWS_PER_BAR)
        beats, downbeats = truth(rows, rows_per_beat, rows_per_bar, duration)
        if len(beats) < 16:
            cl.log(f'{name}: left out: {len(beats)} beats')
            continue
        irregular = irregular_beats(beats)
        if irregular:
            cl.log(f'{name}: left out: the rows do not keep a beat ({irregular} intervals off the median by 1.5×)')
            continue
        envelope = loudness_envelope(audio)
        copy = next((other for other, seen in envelopes.items() if same_music(envelope, seen)), None)
        if copy:
            cl.log(f'{name}: left out: the same music as {copy} (another format of it)')
            continue
        envelopes[name] = envelope
        peak = np.abs(audio).max()
        if peak > 0:
            audio = audio * (0.89 / peak)
        cl.write_wav16(os.path.join(folder, name + '.wav'), audio)
        cl.write_times(os.path.join(folder, name + '.beats'), beats)
        cl.write_times(os.path.join(folder, name + '.downbeats'), downbeats)
        bpm = 60 / float(np.median(np.diff(beats)))
        entries.append({'path': name + '.wav', 'beats': name + '.beats', 'downbeats': name + '.downbeats',
                        'song': name, 'style': 'module', 'batch': batch + 1,
                        'bpm': round(bpm, 3), 'meter': rows_per_bar // rows_per_beat,
                        'rowsPerBeat': rows_per_beat, 'highlight': highlight is not None,
                        'level': 'notated' if 60 <= bpm <= 200 else 'unsure', 'seconds': round(duration, 2)})
        cl.log(f'{name}: {duration:.1f} s, {bpm:.1f} BPM, {len(beats)} beats')
    # The split, over each batch's songs kept (sorted by name, as fetch_modules returns them).
    for batch in range(len(BATCHES)):
        for index, entry in enumerate(e for e in entries if e['batch'] == batch + 1):
            entry['split'] = 'validation' if index % 3 == 0 else 'train'
    with open(os.path.join(folder, 'index.json'), 'w') as f:
        json.dump({'songs': entries}, f, indent=1)
        f.write('\n')
    minutes = sum(e['seconds'] for e in entries) / 60
    count = sum(1 for e in entries if e['split'] == 'validation')
    print(f'{len(entries)} songs ({count} validation), {minutes:.0f} minutes, in {folder}')


if __name__ == '__main__':
    main()
