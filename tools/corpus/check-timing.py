#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Measures the renderers' timing on click tracks, to check the corpus's ground truth:

  fluidsynth  woodblock clicks (GM percussion 76) on every beat, in MIDI files at 120 BPM (PPQ 480),
              97.3 BPM (PPQ 96), a step 120 -> 140, and a ritardando 120 -> 73 (a tempo event every
              eighth): the rendered onsets against the tempo map's times and against the model of
              fluidsynth's player (corpuslib.fluid_event_frames) that the midi part's truth uses.
  lmms        a project of AudioFileProcessor clicks on every beat at 102, 120 and 140 BPM (200 beats):
              rendered onsets against the exact tick times.
  rubberband  a 120 BPM click track warped by each warp (drift, ramp, step) as make-warped.py does:
              onsets against the clicks' times carried through the same key-frame map.
  variants    a click track through each codec and rate as make-variants.py makes them, decoded
              back: onsets against the source's.

Onset = first frame within +-30 ms of the expected time that reaches 10 % (woodblock: 5 %) of the
local peak. Prints a report (the numbers README.md quotes).

    python3 tools/corpus/check-timing.py [fluidsynth,lmms,rubberband,variants]
"""
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import corpuslib as cl  # noqa: E402
import numpy as np  # noqa: E402

RATE = cl.RATE


def click(seconds=0.01):
    t = np.arange(int(seconds * RATE)) / RATE
    return 0.9 * np.cos(2 * np.pi * 3000 * t) * np.exp(-t / 0.002)


def click_track(times, seconds):
    x = np.zeros(int(seconds * RATE))
    c = click()
    for t in times:
        a = int(round(t * RATE))
        x[a:a + len(c)] += c[:len(x) - a]
    return np.stack([x, x], 1)


def stats(label, errors_frames):
    e = np.asarray(errors_frames, dtype=float)
    e = e[~np.isnan(e)]
    ms = e / RATE * 1000
    print(f"  {label}: n={len(e)} mean {ms.mean():+.3f} ms, min {ms.min():+.3f}, max {ms.max():+.3f} ms "
          f"({e.min():+.0f}..{e.max():+.0f} frames)")
    return ms


def check_fluidsynth(tmp):
    import mido
    print("fluidsynth (FluidR3_GM, -r 44100, 64-frame blocks):")

    def tick_seconds(tempos, ppq, tick):
        s, prev, us = 0.0, 0, 500000
        for t, u in sorted(tempos):
            if t > tick:
                break
            s += (t - prev) * us / ppq / 1e6
            prev, us = t, u
        return s + (tick - prev) * us / ppq / 1e6

    cases = {
        "120 BPM, PPQ 480": (480, lambda p: [(0, 500000)]),
        "97.3 BPM, PPQ 96": (96, lambda p: [(0, mido.bpm2tempo(97.3))]),
        "step 120->140 at beat 32": (480, lambda p: [(0, 500000), (32 * p, mido.bpm2tempo(140))]),
        "ritardando 120->73 from beat 16": (480, lambda p: [(0, 500000)] + [(16 * p + k * p // 2, mido.bpm2tempo(120 - k)) for k in range(48)]),
    }
    attack = None
    for label, (ppq, fn) in cases.items():
        tempos = fn(ppq)
        mid = mido.MidiFile(ticks_per_beat=ppq)
        track = mido.MidiTrack()
        mid.tracks.append(track)
        events = [(t, 0, mido.MetaMessage("set_tempo", tempo=us)) for t, us in tempos]
        for k in range(80):
            events.append((k * ppq, 1, mido.Message("note_on", channel=9, note=76, velocity=110)))
            events.append((k * ppq + ppq // 8, 1, mido.Message("note_off", channel=9, note=76, velocity=0)))
        last = 0
        for t, _, m in sorted(events, key=lambda e: (e[0], e[1])):
            track.append(m.copy(time=t - last))
            last = t
        path = os.path.join(tmp, "click.mid")
        wav = os.path.join(tmp, "click.wav")
        mid.save(path)
        subprocess.run(["fluidsynth", "-ni", "-q", "-F", wav, "-r", str(RATE), cl.SOUNDFONT, path],
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        rate, x = cl.read_wav(wav)
        ticks = [k * ppq for k in range(80)]
        model = cl.fluid_event_frames(ppq, tempos, ticks)
        ideal = np.array([tick_seconds(tempos, ppq, t) for t in ticks]) * RATE
        onsets = cl.click_onsets(x.mean(1), rate, model / RATE, threshold=0.05) * RATE
        if attack is None:
            attack = onsets[0] - model[0]  # the woodblock sample's own rise to 5 % (the note starts at frame 0)
            print(f"  the woodblock reaches 5 % of its peak {attack:.0f} frames after its note starts "
                  f"(the first note starts at frame 0); subtracted below")
        print(f" {label}:")
        stats("onset - model", onsets - attack - model)
        stats("model - tempo-map time", model - ideal)
        stats("onset - tempo-map time", onsets - attack - ideal)


def check_lmms(tmp):
    print("lmms (AudioFileProcessor clicks, 200 beats):")
    clickwav = os.path.join(tmp, "lclick.wav")
    cl.write_wav16(clickwav, np.stack([click(), click()], 1))
    for bpm in (102, 120, 140):
        notes = "\n".join(f'<note pos="{k * 48}" len="24" key="57" vol="100" pan="0"/>' for k in range(200))
        xml = f"""<?xml version="1.0"?>
<!DOCTYPE lmms-project>
<lmms-project version="1.0" creator="LMMS" creatorversion="1.2.2" type="song">
  <head timesig_numerator="4" bpm="{bpm}" timesig_denominator="4" mastervol="100" masterpitch="0"/>
  <song>
    <trackcontainer type="song">
      <track muted="0" type="0" name="click" solo="0">
        <instrumenttrack vol="100" pan="0" fxch="0" basenote="57" pitch="0" pitchrange="1" usemasterpitch="1">
          <instrument name="audiofileprocessor">
            <audiofileprocessor src="{clickwav}" amp="100" looped="0" reversed="0" sframe="0" eframe="1" lframe="0" stutter="0" interp="1"/>
          </instrument>
          <fxchain enabled="0" numofeffects="0"/>
        </instrumenttrack>
        <pattern pos="0" len="{200 * 48}" name="p" muted="0" steps="16" type="1">
{notes}
        </pattern>
      </track>
    </trackcontainer>
  </song>
</lmms-project>
"""
        project = os.path.join(tmp, f"click{bpm}.mmp")
        with open(project, "w") as f:
            f.write(xml)
        wav = os.path.join(tmp, f"lmms{bpm}.wav")
        subprocess.run(["lmms", "--allowroot", "-r", project, "-o", wav, "-f", "wav"],
                       env=dict(os.environ, QT_QPA_PLATFORM="offscreen"), stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
        rate, x = cl.read_wav(wav)
        expected = np.arange(200) * 60.0 / bpm
        onsets = cl.click_onsets(x[:, 0], rate, expected)
        stats(f"{bpm} BPM: onset - exact tick time", (onsets - expected) * RATE)


def check_rubberband(tmp):
    print("rubberband (R3 engine, short window: -3 --window-short -t ratio -M key frames; 120 BPM clicks, 180 s):")
    seconds = 180.0
    times = np.arange(0.5, seconds - 1, 0.5)
    src = os.path.join(tmp, "rb-src.wav")
    cl.write_wav16(src, click_track(times, seconds))
    total = int(seconds * RATE)
    for kind in cl.WARPS:
        keys = cl.keyframes_to_frames(cl.warp_keyframes(kind, seconds))
        dst = os.path.join(tmp, f"rb-{kind}.wav")
        cl.rubberband(src, dst, keys, total)
        rate, x = cl.read_wav(dst)
        expected = cl.map_times(keys, times)
        onsets = cl.click_onsets(x[:, 0], rate, expected)
        print(f"  {kind}: output {len(x) / rate:.3f} s for a mapped {keys[-1][1] / RATE:.3f} s")
        stats(f"{kind}: onset - mapped time", (onsets - expected) * RATE)


def check_variants(tmp):
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import importlib.util
    spec = importlib.util.spec_from_file_location("variants", os.path.join(os.path.dirname(__file__), "make-variants.py"))
    variants = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(variants)
    print("variants (clicks at 120 BPM, 30 s, encoded as make-variants.py does, decoded with sox / mpg123):")
    seconds = 30.0
    times = np.arange(0.5, seconds - 1, 0.5)
    src = os.path.join(tmp, "var-src.wav")
    cl.write_wav16(src, click_track(times, seconds))
    for rate, channels, codec in variants.COMBOS:
        out = os.path.join(tmp, f"var.{codec}")
        variants.encode(src, out, rate, channels, codec)
        dec = os.path.join(tmp, "var-dec.wav")
        variants.decode(out, dec)
        r, x = cl.read_wav(dec)
        onsets = cl.click_onsets(x[:, 0], r, times)
        stats(f"{codec} {rate} Hz {channels} ch: onset - source time ({len(x) / r:.4f} s long)", (onsets - times) * RATE)


def main(argv):
    which = argv[0].split(",") if argv else ["fluidsynth", "lmms", "rubberband", "variants"]
    cl.ensure_python_packages("mido")
    with tempfile.TemporaryDirectory() as tmp:
        for name in which:
            {"fluidsynth": check_fluidsynth, "lmms": check_lmms, "rubberband": check_rubberband,
             "variants": check_variants}[name](tmp)


if __name__ == "__main__":
    main(sys.argv[1:])
