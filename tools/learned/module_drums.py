# SPDX-License-Identifier: GPL-3.0-or-later
"""Kick and snare truth from tracker modules, for `drums.py make --set modules` (session 39).

The drum detector of `drums.py` learned the drums from our own General-MIDI clips. On the tracker
modules of tools/corpus/make-modules.py (recorded kits, breakbeats, basses played between the beats)
it takes an off-beat bass or open hi-hat for the kick in some songs, and the beats follow it there.
A module says which instrument plays which note on which row; the instrument's own sound says what
it is. So:

- every instrument the song plays is rendered alone (libopenmpt's "interactive" extension mutes the
  others) and each of its notes is measured in the 100 ms after it starts: the share of its energy
  under 150 Hz and over 5 kHz, its spectral centroid, and how much of it is left 100-250 ms on;
- an instrument played on three notes or more, none of them four times in five, is a bass line, a
  melody or chords, however it sounds: surely not a drum. That is what tells an off-beat bass from
  a kick. One played on one note four times in five whose sound dies away (the energy 100-250 ms on
  under 0.6 of the first 100 ms's) is a drum: a kick if at least 30 % of its energy lies under
  150 Hz and its centroid under 400 Hz; a hi-hat (surely not a kick or a snare) if half lies over
  5 kHz; a snare (or a clap) if under 20 % lies under 150 Hz and under 35 % over 5 kHz, with its
  centroid at 600 Hz-5 kHz. Any other instrument is not known;
- the truth is the time each kick or snare note starts: the render's own row clock (read every 16
  frames, as make-modules.py reads it) at the rows that hold the note. A note delayed within its row
  (the S/E Dx effect) starts later than its row, so it is counted as not known: neither a hit nor a
  negative.

Only the modules of the corpus's train split are used: the validation split stays unseen.
"""
import collections
import ctypes
import importlib.util
import json
import os

import numpy as np

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..'))
_spec = importlib.util.spec_from_file_location('make_modules', os.path.join(ROOT, 'tools', 'corpus', 'make-modules.py'))
make_modules = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(make_modules)

SR = 22050
CHUNK = make_modules.CHUNK       # frames read between two looks at the row, as make-modules.py reads
CLIP_SECONDS = 32
NOTE_MAX = 120                  # pattern note values 1...120 are notes; above are note off/cut/fade
SOLO_SECONDS = 150              # an instrument is rendered alone for at most this long

_P = ctypes.c_void_p


class _Interactive(ctypes.Structure):
    """libopenmpt_ext.h's openmpt_module_ext_interface_interactive, the members this needs first."""
    _fields_ = [(name, _P) for name in (
        'set_current_speed', 'set_current_tempo', 'set_tempo_factor', 'get_tempo_factor', 'set_pitch_factor',
        'get_pitch_factor', 'set_global_volume', 'get_global_volume', 'set_channel_volume', 'get_channel_volume',
        'set_channel_mute_status', 'get_channel_mute_status', 'set_instrument_mute_status',
        'get_instrument_mute_status', 'play_note', 'stop_note')]


class Module:
    """One module opened through libopenmpt's extended C API."""

    def __init__(self, data):
        lib = ctypes.CDLL('libopenmpt.so.0')
        self.lib = lib
        lib.openmpt_module_ext_create_from_memory.restype = _P
        lib.openmpt_module_ext_create_from_memory.argtypes = [
            _P, ctypes.c_size_t, _P, _P, _P, _P, ctypes.POINTER(ctypes.c_int), ctypes.POINTER(ctypes.c_char_p), _P]
        lib.openmpt_module_ext_get_module.restype = _P
        lib.openmpt_module_ext_get_module.argtypes = [_P]
        lib.openmpt_module_ext_get_interface.restype = ctypes.c_int
        lib.openmpt_module_ext_get_interface.argtypes = [_P, ctypes.c_char_p, _P, ctypes.c_size_t]
        lib.openmpt_module_ext_destroy.argtypes = [_P]
        for name in ('get_num_orders', 'get_num_channels', 'get_num_instruments', 'get_num_samples',
                     'get_current_order', 'get_current_row'):
            getattr(lib, 'openmpt_module_' + name).restype = ctypes.c_int32
            getattr(lib, 'openmpt_module_' + name).argtypes = [_P]
        lib.openmpt_module_get_order_pattern.restype = ctypes.c_int32
        lib.openmpt_module_get_order_pattern.argtypes = [_P, ctypes.c_int32]
        lib.openmpt_module_get_pattern_num_rows.restype = ctypes.c_int32
        lib.openmpt_module_get_pattern_num_rows.argtypes = [_P, ctypes.c_int32]
        lib.openmpt_module_get_pattern_row_channel_command.restype = ctypes.c_uint8
        lib.openmpt_module_get_pattern_row_channel_command.argtypes = [_P, ctypes.c_int32, ctypes.c_int32,
                                                                       ctypes.c_int32, ctypes.c_int]
        lib.openmpt_module_read_float_mono.restype = ctypes.c_size_t
        lib.openmpt_module_read_float_mono.argtypes = [_P, ctypes.c_int32, ctypes.c_size_t, _P]
        lib.openmpt_module_get_duration_seconds.restype = ctypes.c_double
        lib.openmpt_module_get_duration_seconds.argtypes = [_P]
        self.data = data
        self.silent = ctypes.cast(lib.openmpt_log_func_silent, _P)

    def _open(self):
        error = ctypes.c_int(0)
        buffer = ctypes.create_string_buffer(self.data, len(self.data))
        ext = self.lib.openmpt_module_ext_create_from_memory(
            buffer, len(self.data), self.silent, None, None, None, ctypes.byref(error), None, None)
        if not ext:
            raise ValueError(f'libopenmpt cannot read it (error {error.value})')
        return ext, buffer

    def cells(self):
        """{(pattern, row): [(channel, note, instrument, delayed)]} of every note in the patterns the
        order list plays; `instrument` is the channel's last one where the cell names none."""
        lib = self.lib
        ext, _buffer = self._open()
        try:
            module = lib.openmpt_module_ext_get_module(ext)
            channels = lib.openmpt_module_get_num_channels(module)
            get = lib.openmpt_module_get_pattern_row_channel_command
            found, read = {}, set()
            last = [0] * channels
            for order in range(lib.openmpt_module_get_num_orders(module)):
                pattern = lib.openmpt_module_get_order_pattern(module, order)
                if pattern < 0 or pattern >= 65534 or pattern in read:
                    continue
                read.add(pattern)
                for row in range(lib.openmpt_module_get_pattern_num_rows(module, pattern)):
                    notes = []
                    for channel in range(channels):
                        note, instrument = get(module, pattern, row, channel, 0), get(module, pattern, row, channel, 1)
                        effect, parameter = get(module, pattern, row, channel, 3), get(module, pattern, row, channel, 5)
                        if instrument:
                            last[channel] = instrument
                        if 1 <= note <= NOTE_MAX and last[channel]:
                            # libopenmpt's effect numbers for "extended" commands carrying a note delay:
                            # S (S3M/IT) and E (MOD/XM), parameter 0xDx.
                            delayed = effect in (19, 20) and parameter >> 4 == 0xD and parameter & 0xF > 0
                            notes.append((channel, note, last[channel], delayed))
                    found[(pattern, row)] = notes
            return found
        finally:
            lib.openmpt_module_ext_destroy(ext)

    def render(self, seconds, solo=None):
        """(mono float32 at SR, [(frame, pattern, row)] for each row as it starts), played once from
        the start for at most `seconds`; with `solo` (an instrument number, 1-based as in the patterns)
        every other instrument is muted."""
        lib = self.lib
        ext, _buffer = self._open()
        try:
            module = lib.openmpt_module_ext_get_module(ext)
            if solo is not None:
                interactive = _Interactive()
                if not lib.openmpt_module_ext_get_interface(ext, b'interactive', ctypes.byref(interactive),
                                                            ctypes.sizeof(interactive)):
                    raise ValueError('libopenmpt has no interactive interface')
                mute = ctypes.CFUNCTYPE(ctypes.c_int, _P, ctypes.c_int32, ctypes.c_int)(
                    interactive.set_instrument_mute_status)
                count = lib.openmpt_module_get_num_instruments(module) or lib.openmpt_module_get_num_samples(module)
                for index in range(count):
                    mute(ext, index, 0 if index == solo - 1 else 1)
            total = int(min(seconds, lib.openmpt_module_get_duration_seconds(module)) * SR) + CHUNK
            out = np.zeros(total, dtype=np.float32)
            rows, position, last = [], 0, None
            while position + CHUNK <= total:
                count = lib.openmpt_module_read_float_mono(module, SR, CHUNK, out.ctypes.data + 4 * position)
                if count == 0:
                    break
                order = lib.openmpt_module_get_current_order(module)
                now = (order, lib.openmpt_module_get_current_row(module))
                if now != last:
                    pattern = lib.openmpt_module_get_order_pattern(module, order)
                    rows.append((position + (CHUNK / 2 if position > 0 else 0), pattern, now[1]))
                    last = now
                position += count
            return out[:position], rows
        finally:
            lib.openmpt_module_ext_destroy(ext)


def note_starts(rows, cells):
    """{instrument: [(seconds, note, delayed)]} of every note as the rows were played."""
    starts = collections.defaultdict(list)
    for frame, pattern, row in rows:
        for _, note, instrument, delayed in cells.get((pattern, row), ()):
            starts[instrument].append((frame / SR, note, delayed))
    return starts


def sound(audio, times):
    """Median over the notes of (share under 150 Hz, share over 5 kHz, centroid in Hz, energy
    100-250 ms after the start over that of its first 100 ms)."""
    n = int(0.1 * SR)
    window = np.hanning(2 * n)[n:]
    freqs = np.fft.rfftfreq(n, 1 / SR)
    rows = []
    for t in times:
        i = int(round(t * SR))
        head, tail = audio[i:i + n], audio[i + n:i + int(0.25 * SR)]
        if len(head) < n:
            continue
        power = np.abs(np.fft.rfft(head * window)) ** 2
        total = power.sum()
        if total < 1e-9:
            continue
        rows.append((power[freqs < 150].sum() / total, power[freqs > 5000].sum() / total,
                     (freqs * power).sum() / total, (np.mean(tail ** 2) if len(tail) else 0) / np.mean(head ** 2)))
    return tuple(np.median(np.array(rows), axis=0)) if rows else None


def role(notes, measured):
    """'kick', 'snare', 'other' (surely not a kick or a snare: a melody, a bass line, chords, a
    hi-hat) or None (not known) for an instrument's notes [(seconds, note, delayed)] and its sound."""
    if measured is None or len(notes) < 8:
        return None
    low, high, centroid, left = measured
    counts = collections.Counter(note for _, note, _ in notes)
    share = counts.most_common(1)[0][1] / len(notes)
    if share < 0.8 and len(counts) >= 3:
        return 'other'  # played as a melody, a bass line or chords
    if share < 0.8 or left > 0.6:
        return None     # a few notes, or a sound that rings on: a tom, a pad, a crash
    if high >= 0.5:
        return 'other'  # a hi-hat or a shaker
    if low >= 0.3 and centroid < 400:
        return 'kick'
    if low < 0.2 and high < 0.35 and 600 <= centroid <= 5000:
        return 'snare'
    return None


def describe(data):
    """(full mix at SR, {role: [seconds]} for 'kick', 'snare', 'other' and None, and
    [(instrument, role, notes, measured)]) of one module."""
    module = Module(data)
    cells = module.cells()
    audio, rows = module.render(make_modules.LONGEST)
    starts = note_starts(rows, cells)
    table, truth = [], {'kick': [], 'snare': [], 'other': [], None: []}
    for instrument, notes in sorted(starts.items()):
        # Alone until its sixteenth note has sounded: enough notes to measure, at a fraction of the cost.
        plain = [t for t, _, delayed in notes if not delayed]
        solo, solo_rows = module.render(min(SOLO_SECONDS, plain[min(15, len(plain) - 1)] + 0.3) if plain else 0,
                                        solo=instrument)
        solo_starts = note_starts(solo_rows, cells).get(instrument, [])
        measured = sound(solo, [t for t, _, delayed in solo_starts if not delayed])
        kind = role(notes, measured)
        table.append((instrument, kind, len(notes), measured))
        truth[kind] += [t for t, _, delayed in notes if not delayed]
        truth[None] += [t for t, _, delayed in notes if delayed]
    return audio, {k: np.unique(np.array(v)) for k, v in truth.items()}, table


def train_modules():
    """(name, bytes) of the modules in the corpus's train split (corpus/modules/index.json)."""
    folder = os.path.join(os.environ.get('BEATMAP_CORPUS_DIR') or os.path.join(ROOT, 'corpus'), 'modules')
    with open(os.path.join(folder, 'index.json')) as fh:
        split = {s['song']: s['split'] for s in json.load(fh)['songs']}
    return [(name, data) for _, name, data in make_modules.fetch_modules(folder) if split.get(name) == 'train']
