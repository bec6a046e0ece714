#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Non-music part of the analyzer's corpus: audio with no beat at all, which the analyzer must refuse
(truth: none, so the manifest's beats is null and no .beats file is written).

  silence          60 s of digital silence
  noise-white      60 s of white noise (seeded), -15 dBFS RMS
  noise-pink       60 s of pink noise (white noise shaped 1/f in the frequency domain, seeded)
  drone            90 s: a held A-major sine chord with slow, incommensurate vibrato (0.13-0.29 Hz,
                   +-0.4 %) and a slow swell: no attacks, no period in the beat range
  speech-en        about a minute of English read by espeak-ng (default voice), 44.1 kHz stereo via sox
  speech-en-us     the same text, faster, by espeak-ng's en-us voice
  applause         60 s of applause-like claps: noise bursts at Poisson times, 18 a second
  bursts-sparse    60 s of noise bursts at Poisson times, 2.5 a second: no regular period

Everything is seeded or deterministic (espeak-ng and sox -D give the same file on every run).

    python3 tools/corpus/make-nonmusic.py [--force]

Writes corpus/nonmusic/NAME.wav (44.1 kHz 16-bit stereo) and corpus/nonmusic/index.json. Needs
espeak-ng and sox.
"""
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import corpuslib as cl  # noqa: E402
import numpy as np  # noqa: E402

RATE = cl.RATE
TEXT = (
    "This is a reading with no music in it. It is here so that a beat tracker can be asked to find a beat "
    "where there is none, and be seen to refuse. Speech has a rhythm of its own: syllables come and go a few "
    "times a second, words are grouped into phrases, and phrases end in pauses. But none of it keeps a steady "
    "pulse for long, and no listener would tap a foot to it. The weather today was mild, with a light wind "
    "from the west and a few clouds in the afternoon. In the evening the rain came back, first as a drizzle, "
    "then as a steady shower that lasted until midnight. Tomorrow should be brighter, though the mornings are "
    "getting colder now, and the first frost may come before the end of the month. The trains ran on time, "
    "the shops were busy, and the market closed an hour early for the holiday. At the harbour, the last ferry "
    "left a little late, and the fishing boats stayed in because of the swell. That is all the news there is. "
    "Thank you for listening, and good night."
)


def stereo(x):
    return np.stack([x, x], 1)


def silence(rng):
    return np.zeros((60 * RATE, 2))


def noise_white(rng):
    x = rng.standard_normal((60 * RATE, 2))
    return x * (10 ** (-15 / 20))


def noise_pink(rng):
    n = 60 * RATE
    out = []
    for _ in range(2):
        spec = np.fft.rfft(rng.standard_normal(n))
        f = np.fft.rfftfreq(n, 1 / RATE)
        f[0] = f[1]
        x = np.fft.irfft(spec / np.sqrt(f), n)
        out.append(x / np.sqrt(np.mean(x ** 2)) * 10 ** (-15 / 20))
    return np.stack(out, 1)


def drone(rng):
    n = 90 * RATE
    t = np.arange(n) / RATE
    x = np.zeros(n)
    for freq, rate, phase in ((110.0, 0.13, 0.0), (164.81, 0.17, 1.0), (220.0, 0.23, 2.0), (277.18, 0.29, 3.0)):
        inst = freq * (1 + 0.004 * np.sin(2 * np.pi * rate * t + phase))
        x += np.sin(2 * np.pi * np.cumsum(inst) / RATE)
    swell = 0.6 + 0.4 * np.sin(2 * np.pi * 0.021 * t - np.pi / 2)
    fade = np.minimum(1, np.minimum(t / 4.0, (t[-1] - t) / 4.0))
    return stereo(x * swell * fade / 4 * 0.7)


def bursts(rng, per_second, seconds=60):
    n = seconds * RATE
    out = np.zeros((n, 2))
    t = rng.exponential(1 / per_second)
    while t < seconds - 0.1:
        length = int(rng.uniform(0.004, 0.02) * RATE)
        env = np.exp(-np.arange(length) / (length / 4))
        burst = np.diff(rng.standard_normal((length + 1, 2)), axis=0) * env[:, None]
        pan = rng.uniform(0.2, 0.8)
        a = int(t * RATE)
        out[a:a + length] += burst[:n - a] * np.array([1 - pan, pan]) * rng.uniform(0.3, 1.0)
        t += rng.exponential(1 / per_second)
    return out


def speech(voice, speed):
    def make(rng):
        with tempfile.TemporaryDirectory() as tmp:
            raw = os.path.join(tmp, "speech.wav")
            wav = os.path.join(tmp, "speech44.wav")
            cmd = ["espeak-ng", "-w", raw, "-s", str(speed)]
            if voice:
                cmd += ["-v", voice]
            subprocess.run(cmd + [TEXT], check=True, stdout=subprocess.DEVNULL)
            subprocess.run(["sox", "-D", raw, "-r", str(RATE), "-c", "2", wav], check=True)
            return cl.read_wav(wav)[1]
    return make


TRACKS = {
    "silence": silence,
    "noise-white": noise_white,
    "noise-pink": noise_pink,
    "drone": drone,
    "speech-en": speech(None, 150),
    "speech-en-us": speech("en-us", 170),
    "applause": lambda rng: bursts(rng, 18),
    "bursts-sparse": lambda rng: bursts(rng, 2.5),
}


def main(argv):
    force = "--force" in argv
    folder = cl.part_dir("nonmusic")
    entries = []
    for i, (name, make) in enumerate(sorted(TRACKS.items())):
        out = os.path.join(folder, name + ".wav")
        if force or not os.path.exists(out):
            x = make(np.random.default_rng(1000 + i))
            peak = np.max(np.abs(x))
            if peak > 0.89:
                x = x * (0.89 / peak)
            cl.write_wav16(out, x)
        entries.append(cl.entry(f"nonmusic/{name}.wav", "nonmusic", f"nonmusic/{name}", "nonmusic", None, None, None, None))
        cl.log(f"nonmusic [{i + 1}/{len(TRACKS)}] {name}: {cl.wav_duration(out):.1f} s")
    cl.write_index("nonmusic", entries)


if __name__ == "__main__":
    main(sys.argv[1:])
