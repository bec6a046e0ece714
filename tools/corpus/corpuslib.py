# SPDX-License-Identifier: GPL-3.0-or-later
"""Helpers shared by the corpus scripts in tools/corpus/: paths, WAV reading and writing, truth files,
each part's index.json, fluidsynth's timing model and onset measurement for the timing checks.

A part script writes corpus/<part>/index.json: a list of track entries in the manifest's form, less
"split" (tools/corpus/build.py adds the split and merges the parts into corpus/manifest.json).
"""
import json
import math
import os
import struct
import subprocess
import sys
import tempfile

try:
    import numpy as np
except ImportError:  # PyPI's numpy, into the current Python (tools/bench/setup.sh installs it too)
    print("installing numpy with pip", file=sys.stderr)
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "numpy"], check=True)
    import numpy as np

RATE = 44100
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# corpus/ in the repository; BEATMAP_CORPUS_DIR=DIR builds elsewhere (a scratch build, a bigger disk;
# not BEATMAP_CORPUS, which the Swift calibration test reads as one part's folder).
CORPUS = os.environ.get("BEATMAP_CORPUS_DIR") or os.path.join(ROOT, "corpus")
SOUNDFONT = "/usr/share/sounds/sf2/FluidR3_GM.sf2"


def log(*args):
    print(*args, file=sys.stderr, flush=True)


def part_dir(part):
    path = os.path.join(CORPUS, part)
    os.makedirs(path, exist_ok=True)
    return path


# ---------------------------------------------------------------- WAV files

def read_wav(path):
    """(rate, float64 array of shape (frames, channels) in [-1, 1]) from a PCM 16/24/32-bit or
    IEEE float WAV (WAVE_FORMAT_EXTENSIBLE too)."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:4] != b"RIFF" or data[8:12] != b"WAVE":
        raise ValueError(f"{path}: not a RIFF WAVE file")
    pos = 12
    fmt = None
    samples = None
    while pos + 8 <= len(data):
        cid = data[pos:pos + 4]
        size = struct.unpack("<I", data[pos + 4:pos + 8])[0]
        body = data[pos + 8:pos + 8 + size]
        if cid == b"fmt ":
            tag, channels, rate, _, _, bits = struct.unpack("<HHIIHH", body[:16])
            if tag == 0xFFFE:
                tag = struct.unpack("<H", body[24:26])[0]
            fmt = (tag, channels, rate, bits)
        elif cid == b"data":
            samples = body
        pos += 8 + size + (size & 1)
    tag, channels, rate, bits = fmt
    if tag == 3 and bits == 32:
        x = np.frombuffer(samples[:len(samples) // 4 * 4], dtype="<f4").astype(np.float64)
    elif tag == 3 and bits == 64:
        x = np.frombuffer(samples[:len(samples) // 8 * 8], dtype="<f8").copy()
    elif tag == 1 and bits == 16:
        x = np.frombuffer(samples[:len(samples) // 2 * 2], dtype="<i2") / 32768.0
    elif tag == 1 and bits == 24:
        b = np.frombuffer(samples[:len(samples) // 3 * 3], dtype=np.uint8).reshape(-1, 3).astype(np.int32)
        v = b[:, 0] | (b[:, 1] << 8) | (b[:, 2] << 16)
        x = np.where(v >= 1 << 23, v - (1 << 24), v) / float(1 << 23)
    elif tag == 1 and bits == 32:
        x = np.frombuffer(samples[:len(samples) // 4 * 4], dtype="<i4") / 2147483648.0
    else:
        raise ValueError(f"{path}: unsupported WAV format tag {tag}, {bits} bits")
    frames = len(x) // channels
    return rate, x[:frames * channels].reshape(frames, channels)


def write_wav16(path, x, rate=RATE):
    """Writes float samples (frames, channels) in [-1, 1] as 16-bit PCM (rounded, clipped, no dither)."""
    x = np.asarray(x, dtype=np.float64)
    if x.ndim == 1:
        x = x[:, None]
    pcm = np.clip(np.round(x * 32767.0), -32768, 32767).astype("<i2")
    raw = pcm.tobytes()
    channels = x.shape[1]
    header = b"RIFF" + struct.pack("<I", 36 + len(raw)) + b"WAVE"
    header += b"fmt " + struct.pack("<IHHIIHH", 16, 1, channels, rate, rate * channels * 2, channels * 2, 16)
    header += b"data" + struct.pack("<I", len(raw))
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        f.write(header)
        f.write(raw)
    os.replace(tmp, path)


def normalize(x, peak=0.89):
    """Scales to the given peak (0.89 = -1 dBFS)."""
    top = float(np.max(np.abs(x))) if len(x) else 0.0
    return x * (peak / top) if top > 0 else x


def wav_chunks(f):
    """The chunks of an open RIFF/WAVE file after its 12-byte header, as (id, size); the file is at the
    chunk's body when each is yielded, and is moved past the body (and its pad byte) afterwards unless
    the caller read it."""
    f.seek(12)
    while True:
        header = f.read(8)
        if len(header) < 8:
            return
        cid, size = header[:4], struct.unpack("<I", header[4:])[0]
        body = f.tell()
        yield cid, size
        f.seek(body + size + (size & 1))


def wav_format(path):
    """(format tag, channels, rate, bits) of a WAV file's fmt chunk."""
    with open(path, "rb") as f:
        for cid, _ in wav_chunks(f):
            if cid == b"fmt ":
                tag, channels, rate, _, _, bits = struct.unpack("<HHIIHH", f.read(16))
                return tag, channels, rate, bits
    return None


def repair_wav_header(path):
    """Sets the RIFF and data chunk sizes of a WAV whose writer died before closing it (LMMS can crash
    on exit, leaving sizes of 0) to what the file holds, in whole frames; returns True if it changed."""
    with open(path, "r+b") as f:
        data = f.read(4096)
        pos = 12
        while pos + 8 <= len(data):
            cid, size = data[pos:pos + 4], struct.unpack("<I", data[pos + 4:pos + 8])[0]
            if cid == b"fmt ":
                channels, bits = struct.unpack("<H", data[pos + 10:pos + 12])[0], struct.unpack("<H", data[pos + 22:pos + 24])[0]
            if cid == b"data":
                f.seek(0, 2)
                total = f.tell()
                block = channels * bits // 8
                actual = (total - pos - 8) // block * block
                if size == actual and struct.unpack("<I", data[4:8])[0] == pos + actual:
                    return False
                f.seek(pos + 4)
                f.write(struct.pack("<I", actual))
                f.seek(4)
                f.write(struct.pack("<I", pos + actual))
                f.truncate(pos + 8 + actual)
                return True
            pos += 8 + size + (size & 1)
    raise ValueError(f"{path}: no data chunk")


def wav_duration(path):
    """Seconds of audio in a WAV file, from its header (reads only the chunks' headers)."""
    with open(path, "rb") as f:
        if f.read(12)[:4] != b"RIFF":
            return None
        rate = channels = bits = None
        for cid, size in wav_chunks(f):
            if cid == b"fmt ":
                _, channels, rate, _, _, bits = struct.unpack("<HHIIHH", f.read(16))
            elif cid == b"data":
                return size / (channels * bits // 8) / rate
    return None


# A render has fallen silent where its level stays this far below its loud level (the 95th percentile
# of its 50 ms frames) to the end of the file: a truth beat after that is a beat nobody can hear.
SILENT_BELOW_DB = 60.0
SILENCE_FRAME = 0.05


def sounding_end(path):
    """The end (seconds) of the last 50 ms frame of the WAV file `path` whose level is within
    SILENT_BELOW_DB of its loud level; the file's duration when none is that quiet."""
    rate, x = read_wav(path)
    mono = x.mean(axis=1)
    hop = max(1, int(round(rate * SILENCE_FRAME)))
    count = len(mono) // hop
    if count == 0:
        return len(mono) / rate
    power = (mono[:count * hop].reshape(count, hop) ** 2).mean(axis=1)
    level = 10 * np.log10(power + 1e-30)
    loud = np.percentile(level, 95)
    sounding = np.nonzero(level > loud - SILENT_BELOW_DB)[0]
    if len(sounding) == 0 or sounding[-1] == count - 1:
        return len(mono) / rate
    return (sounding[-1] + 1) * hop / rate


def audio_duration(path):
    """Seconds of audio in any file sox reads (soxi -D)."""
    out = subprocess.run(["soxi", "-D", path], capture_output=True, text=True, check=True).stdout
    return float(out.strip())


def package_versions(packages):
    """{package: version} of the installed Debian packages among `packages` (others are left out)."""
    if not packages:
        return {}
    out = subprocess.run(["dpkg-query", "-W", "-f", "${Package} ${Version} ${db:Status-Abbrev}\\n", *packages],
                         capture_output=True, text=True).stdout
    versions = {}
    for line in out.splitlines():
        fields = line.split()
        if len(fields) >= 3 and fields[2].startswith("ii"):
            versions[fields[0].split(":")[0]] = fields[1]
    return versions


# ---------------------------------------------------------------- truth and index files

def write_text(path, text):
    """Writes `text` to `path` through a temporary file and a rename: a reader never sees half a file,
    and a hard-linked copy of the corpus (cp -al) keeps its own version."""
    with open(path + ".tmp", "w") as f:
        f.write(text)
    os.replace(path + ".tmp", path)


def write_times(path, times):
    write_text(path, "".join(f"{t:.6f}\n" for t in times))


def read_times(path):
    with open(path) as f:
        return [float(line.split()[0]) for line in f if line.strip()]


def write_drums(path, hits):
    """hits: (time, kind) pairs, kind kick|snare."""
    write_text(path, "".join(f"{t:.6f} {k}\n" for t, k in sorted(hits)))


def read_drums(path):
    with open(path) as f:
        return [(float(a), b) for a, b in (line.split() for line in f if line.strip())]


def entry(path, part, song, kind, beats, drums=None, meter=4, bpm=None, source=None, warp=None, encoding=None,
          downbeats=None):
    """A manifest entry (without the split), paths relative to corpus/. `downbeats`: the truth file of
    the beats at bar position 1 (NAME.downbeats), or None where the bars are not known."""
    return {"path": path, "part": part, "song": song, "kind": kind, "beats": beats, "drums": drums,
            "meter": meter, "bpm": None if bpm is None else round(float(bpm), 4), "source": source,
            "warp": warp, "encoding": encoding, "downbeats": downbeats}


def write_index(part, entries):
    path = os.path.join(part_dir(part), "index.json")
    with open(path + ".tmp", "w") as f:
        json.dump(sorted(entries, key=lambda e: e["path"]), f, indent=1)
        f.write("\n")
    os.replace(path + ".tmp", path)


def read_index(part):
    path = os.path.join(CORPUS, part, "index.json")
    if not os.path.exists(path):
        return None
    with open(path) as f:
        return json.load(f)


# ---------------------------------------------------------------- fluidsynth's timing

FLUID_BLOCK = 64  # FLUID_BUFSIZE: fluidsynth renders, and its MIDI player runs, in blocks of 64 frames


def absolute_messages(mid):
    """(tick, message) of every message of a mido.MidiFile `mid`, track by track, each track's ticks
    counted from its own start (as format 1's simultaneous tracks are)."""
    for track in mid.tracks:
        tick = 0
        for msg in track:
            tick += msg.time
            yield tick, msg


def tempo_events(mid):
    """The tempo events [(tick, microseconds per quarter)] of a mido.MidiFile `mid`, sorted, with the
    MIDI default of 120 BPM at tick 0 when the file sets no tempo there."""
    events = sorted((tick, msg.tempo) for tick, msg in absolute_messages(mid) if msg.type == "set_tempo")
    if not events or events[0][0] > 0:
        events.insert(0, (0, 500000))
    return events


def fluid_event_frames(ppq, tempos, ticks, rate=RATE):
    """The frame at which fluidsynth's MIDI file player (sample timer, as in `fluidsynth -F`) starts an
    event at each of `ticks`, given the file's PPQ and tempo map [(tick, microseconds per quarter)].

    A model of fluid_player_callback (fluidsynth 2.x): once per 64-frame block the player gets
    msec = floor(1000 * frame / rate), computes cur_ticks = start_ticks + (int)((msec - start_msec) /
    deltatime + 0.5) with deltatime = tempo / division / 1000 in single precision, and sends every
    event whose tick <= cur_ticks; a tempo event sets start_msec, start_ticks to the current ones.
    So an event sounds from the first block boundary its tick has been reached at: up to 64 frames
    late, and a tempo change slips the grid after it by the same rounding. tools/corpus/check-timing.py
    checks this model against rendered clicks.
    """
    ticks = np.asarray(ticks, dtype=np.int64)
    order = np.argsort(ticks, kind="stable")
    out = np.zeros(len(ticks), dtype=np.int64)
    tempo_list = sorted((int(t), int(us)) for t, us in tempos)
    f32 = np.float32

    def delta(us):
        return float(f32(f32(f32(us) / f32(ppq)) / f32(1000.0)))

    dt = delta(500000)
    start_msec = 0
    start_ticks = 0
    ti = 0
    qi = 0
    block = 0
    n = len(ticks)
    while qi < n:
        frame = block * FLUID_BLOCK
        msec = int(1000.0 * frame / rate)
        cur = start_ticks + int((msec - start_msec) / dt + 0.5)
        # Tempo events due now (the conductor track comes first in the player's track order).
        while ti < len(tempo_list) and tempo_list[ti][0] <= cur:
            dt = delta(tempo_list[ti][1])
            start_msec = msec
            start_ticks = cur
            ti += 1
        while qi < n and ticks[order[qi]] <= cur:
            out[order[qi]] = frame
            qi += 1
        if qi < n:
            # Skip ahead: the blocks before the next due tick (or tempo change) send nothing.
            nxt = ticks[order[qi]]
            if ti < len(tempo_list):
                nxt = min(nxt, tempo_list[ti][0])
            need_msec = start_msec + (nxt - start_ticks - 0.5) * dt
            jump = int(math.floor(max(0.0, need_msec - 2) * rate / 1000.0 / FLUID_BLOCK))
            block = max(block + 1, jump)
    return out


def fluid_drum_attacks(keys, soundfont=SOUNDFONT, rate=RATE):
    """The delay, in seconds, from the frame fluidsynth starts a General-MIDI drum note (channel 10) to
    the start of its sound, for each key in `keys`: rendered alone as `make-midi.py` renders songs, at
    velocities 60, 90 and 120, the first frame reaching 10 % of the hit's peak (click_onsets' rule),
    less the frame fluid_event_frames gives the note-on; the median over the velocities. A drum sample
    starts with a few milliseconds of near silence (FluidR3_GM: kick 36 about 4.6 ms, snare 38 about
    3.9 ms), so a note-on is not where its transient starts."""
    import mido
    ppq, spacing = 480, 960  # a hit every other beat at 120 BPM: 1 s apart, each rings out alone
    velocities = (60, 90, 120)
    hits = [(key, v) for key in keys for v in velocities]
    mid = mido.MidiFile(ticks_per_beat=ppq)
    track = mido.MidiTrack()
    mid.tracks.append(track)
    track.append(mido.MetaMessage("set_tempo", tempo=500000))
    off = ppq // 8
    for i, (key, v) in enumerate(hits):  # note-on i at tick (i + 1) * spacing
        track.append(mido.Message("note_on", channel=9, note=key, velocity=v, time=spacing - (off if i else 0)))
        track.append(mido.Message("note_off", channel=9, note=key, velocity=0, time=off))
    ticks = [(i + 1) * spacing for i in range(len(hits))]
    with tempfile.TemporaryDirectory() as tmp:
        mid_path, wav_path = os.path.join(tmp, "hits.mid"), os.path.join(tmp, "hits.wav")
        mid.save(mid_path)
        subprocess.run(["fluidsynth", "-ni", "-q", "-g", "0.5", "-O", "float", "-T", "wav", "-F", wav_path,
                        "-r", str(rate), soundfont, mid_path],
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=300)
        got_rate, x = read_wav(wav_path)
    assert got_rate == rate, got_rate
    frames = fluid_event_frames(ppq, [(0, 500000)], ticks, rate)
    starts = frames / rate
    # Search from the note-on only (a window of 30 ms after it), the previous hit has rung out.
    onsets = click_onsets(x.mean(axis=1), rate, starts + 0.03, window=0.03)
    delays = {}
    for key in keys:
        d = [onsets[i] - starts[i] for i, (k, _) in enumerate(hits) if k == key and np.isfinite(onsets[i])]
        delays[key] = float(np.median(d)) if d else 0.0
    return delays


# ---------------------------------------------------------------- onset measurement (timing checks)

def click_onsets(x, rate, expected, window=0.03, threshold=0.1):
    """For each expected time, the first frame within +-window where |x| reaches `threshold` of the
    local peak (x mono). Returns onset times in seconds (nan where nothing sounded)."""
    out = []
    for t in expected:
        a = max(0, int((t - window) * rate))
        b = min(len(x), int((t + window) * rate))
        seg = np.abs(x[a:b])
        if len(seg) == 0 or seg.max() <= 1e-4:
            out.append(float("nan"))
            continue
        out.append((a + int(np.argmax(seg >= threshold * seg.max()))) / rate)
    return np.array(out)


def ensure_python_packages(*names):
    """Installs missing PyPI packages into the current Python (pip), e.g. mido."""
    import importlib
    missing = []
    for name in names:
        try:
            importlib.import_module(name)
        except ImportError:
            missing.append(name)
    if missing:
        log("installing", " ".join(missing), "with pip")
        subprocess.run([sys.executable, "-m", "pip", "install", "-q", *missing], check=True)


def song_split(song):
    """A song index entry's split (an index.json `songs` entry: Freedoom's, the modules', songs.py's):
    its own, else by its number (songs.py's songs have none: even train, odd validation, as
    tools/bench/composed reads them)."""
    split = song.get("split")
    if split is None:
        digits = song["song"][-4:]
        split = "train" if digits.isdigit() and int(digits) % 2 == 0 else "validation"
    return split


# ---------------------------------------------------------------- time warps (rubberband key-frame maps)

WARPS = ("drift", "ramp", "step")
STEP_FACTOR = 1.09


def warp_factor(kind, at, seconds, step_at=None):
    """The tempo factor of warp `kind` at the source's times `at` (seconds, a number or an array) of a
    `seconds`-long source: drift 1 + 0.03 sin(2 pi s / 30 s), ramp 1 + 0.08 s / `seconds`, step 1 before
    `step_at` (default: halfway) and STEP_FACTOR from it."""
    if kind == "drift":
        return 1 + 0.03 * np.sin(2 * np.pi * at / 30.0)
    if kind == "ramp":
        return 1 + 0.08 * at / seconds
    if kind == "step":
        return np.where(at >= (seconds / 2 if step_at is None else step_at), STEP_FACTOR, 1.0)
    raise ValueError(kind)


def warp_keyframes(kind, seconds, step_at=None):
    """Key frames [(source s, target s)] of a smooth tempo warp of a `seconds`-long source:
    drift: tempo x (1 + 0.03 sin(2 pi s / 30 s)), a +-3 % wobble with a 30 s period;
    ramp:  tempo rising linearly from x1 to x1.08 over the song;
    step:  tempo x1 up to `step_at` (default: halfway), then x1.09.
    Target time is the integral of 1 / tempo factor over source time; key frames every 0.25 s
    (every 1 ms near nothing: between them rubberband stretches linearly, and so does map_times)."""
    if kind == "step":
        at = seconds / 2 if step_at is None else step_at
        return [(0.0, 0.0), (at, at), (seconds, at + (seconds - at) / STEP_FACTOR)]
    if kind not in WARPS:
        raise ValueError(kind)
    src = np.arange(0.0, seconds, 0.25)
    src = np.append(src, seconds)
    fine = np.linspace(0.0, seconds, int(seconds * 1000) + 1)
    inv = 1.0 / warp_factor(kind, fine, seconds)
    dst_fine = np.concatenate([[0.0], np.cumsum((inv[1:] + inv[:-1]) / 2 * np.diff(fine))])
    dst = np.interp(src, fine, dst_fine)
    return list(zip(src.tolist(), dst.tolist()))


def keyframes_to_frames(keys, rate=RATE):
    """The key frames as whole sample frames, as written to rubberband's map; the truth is carried
    through these same rounded frames."""
    out = []
    for s, d in keys:
        pair = (int(round(s * rate)), int(round(d * rate)))
        if not out or (pair[0] > out[-1][0] and pair[1] > out[-1][1]):
            out.append(pair)
    return out


def map_times(frame_keys, times, rate=RATE):
    """Source times -> target times through the piecewise-linear map of key frames."""
    src = np.array([a for a, _ in frame_keys], dtype=np.float64) / rate
    dst = np.array([b for _, b in frame_keys], dtype=np.float64) / rate
    times = np.asarray(times, dtype=np.float64)
    out = np.interp(times, src, dst)
    # Past the last key frame: the last segment's slope.
    slope = (dst[-1] - dst[-2]) / (src[-1] - src[-2])
    late = times > src[-1]
    out[late] = dst[-1] + (times[late] - src[-1]) * slope
    return out


def warp_file(src_wav, dst_wav, frame_keys, total_frames):
    """rubberband (below) into a temporary name beside `dst_wav`, renamed onto it when complete, so
    that an interrupted run leaves no half-written copy."""
    partial = dst_wav + ".part.wav"
    rubberband(src_wav, partial, frame_keys, total_frames)
    os.replace(partial, dst_wav)


def rubberband(src_wav, dst_wav, frame_keys, total_frames, rate=RATE):
    """Warps src_wav through the key frames with rubberband's R3 engine and its short window (-3
    --window-short, offline): its onsets land within about 2 ms of the mapped times, where the R2
    engine's (the default) are up to 13 ms off; R3's standard window is as exact but 3x slower;
    the overall ratio given by -t is the map's own (last target frame / last source frame), so the
    output is as long as the map says."""
    import tempfile as _tf
    with _tf.TemporaryDirectory() as tmp:
        mapfile = os.path.join(tmp, "map.txt")
        with open(mapfile, "w") as f:
            # rubberband wants the key frames inside the audio: the first (0, 0) and the end are implied.
            for a, b in frame_keys:
                if 0 < a < total_frames:
                    f.write(f"{a} {b}\n")
        last_src, last_dst = frame_keys[-1]
        ratio = last_dst / last_src
        subprocess.run(["rubberband", "-q", "-3", "--window-short", "-t", f"{ratio:.12f}", "-M", mapfile, src_wav, dst_wav],
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=3600)
