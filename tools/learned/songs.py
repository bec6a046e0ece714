#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""More training songs for the learned activation (experiment.py --extra): whole General-MIDI songs
composed at random by the corpus's own composer (tools/corpus/make-midi.py), with exact beat truth.

Session 16's activation learned from the train split's 58 songs and its 32 warped copies; its
"next" was more and more varied songs than that. These are ours, so they may be made in any number.
Each song draws a style (its grooves, bass and comp patterns, instruments and tempo range), a tempo
from that range, a chord loop and a form of four to seven sections: some without drums (an intro, a
breakdown), some with fills, and now and then a swung feel or a human's timing jitter. It is rendered
by fluidsynth with one of two soundfonts other than the corpus's FluidR3 (MuseScore_General_Lite and
sf_GMbank, the fonts drums.py's clips use), so the corpus's own sounds are not what the network
learns. The truth is make-midi.py's (fluidsynth's event timing, to the frame).

The songs are not corpus songs and belong to no split. They share a composer with the corpus's gm-*
songs, of both splits, so experiment.py reports the gm-* songs apart from the others: a gain there
may be the composer's style learned, not the beat.

    tools/learned/out/venv/bin/python3 tools/learned/songs.py [--count N] [--jobs J]
    tools/learned/out/venv/bin/python3 tools/learned/songs.py --first 240 --count 90 --out /tmp/fresh-songs

`--first` starts at another index: songs 240 on were never made before session 62, so a folder of
them is music no rule was shaped on (a held-out set for tools/bench/trial --scratch-validation).

Writes tools/learned/out/songs/NAME.wav (44.1 kHz stereo, 16 bit), NAME.beats, NAME.downbeats (the beats at
bar position 1, from the MIDI file's bars) and index.json. Needs fluidsynth and the soundfonts of drums.py
(musescore-general-soundfont-small, csound-soundfont).
"""
import argparse
import importlib.util
import json
import os
import random
import sys
from concurrent.futures import ThreadPoolExecutor

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..'))
sys.path.insert(0, os.path.join(ROOT, 'tools', 'corpus'))
import corpuslib as cl  # noqa: E402

_spec = importlib.util.spec_from_file_location('make_midi', os.path.join(ROOT, 'tools', 'corpus', 'make-midi.py'))
mm = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(mm)

OUT = os.path.join(ROOT, 'tools', 'learned', 'out', 'songs')
FONTS = ('/usr/share/sounds/sf3/MuseScore_General_Lite.sf3', '/usr/share/sounds/sf2/sf_GMbank.sf2')
SEED = 31000

# style: (tempo range in BPM, beats per bar, grooves, bass styles, comp styles, lead chance,
#         programs: bass, comp, lead, drum kit; chord loops)
ROCK, POP, MINOR, BLUES = (["E5", "G5", "A5", "D5"], ["C", "G", "Am", "F"], ["Am", "F", "C", "G"],
                           ["A7", "D7", "A7", "E7"])
STYLES = {
    'rock': ((84, 184), 4, ['rock', 'rock-busy', 'rock-ride', 'halftime', 'punk'], ['root8', 'rock', 'octave'],
             ['power8', 'powerhold', 'strum'], 0.6, ([33, 34], [29, 30, 27], [30, 29, 81], [0, 16]), [ROCK, POP]),
    'metal': ((140, 196), 4, ['metal', 'metal-gallop', 'halftime', 'halftime-2'], ['root16', 'gallop', 'half'],
              ['power16', 'powerhold'], 0.4, ([33, 34], [30], [30, 29], [16, 0]), [ROCK, ["D5", "C5", "Bb5", "C5"]]),
    'funk': ((90, 118), 4, ['funk', 'funk-2'], ['funk', 'octave'], ['clav', 'stab', 'offstab'], 0.6,
             ([36, 37, 33], [7, 28, 4], [65, 61, 81], [0, 8]), [["Em7", "A7"], ["Dm7", "G7"]]),
    'edm': ((118, 132), 4, ['edm', 'disco'], ['offbeat', 'octave', 'root8'], ['arp16', 'arp8', 'stab', 'pad'], 0.5,
            ([38, 39, 87], [81, 90, 50], [80, 81], [24, 16, 25]), [MINOR, ["Fm", "Db", "Ab", "Eb"]]),
    'disco': ((108, 126), 4, ['disco'], ['octave', 'funk'], ['offstab', 'strum', 'brass'], 0.5,
              ([33, 36], [27, 61, 48], [61, 56], [0, 8]), [POP, ["Am7", "D7", "Gmaj7", "Cmaj7"]]),
    'hiphop': ((78, 100), 4, ['hiphop', 'trap', 'trap-roll'], ['808', 'sustain', 'root8'], ['pad', 'stab', 'comp'], 0.4,
               ([38, 87, 33], [4, 0, 89], [80, 73], [25, 24]), [MINOR, ["Cm", "Ab", "Eb", "Bb"]]),
    'dnb': ((160, 178), 4, ['dnb', 'dnb-2'], ['dnb', 'sustain'], ['pad', 'arp8'], 0.4,
            ([38, 39], [89, 90, 81], [81, 80], [24, 16]), [MINOR]),
    'reggae': ((66, 92), 4, ['reggae'], ['reggae'], ['skank'], 0.4, ([33, 32], [16, 27, 4], [65, 56], [0, 8]),
               [["C", "F", "G", "F"], ["Am", "D", "Am", "D"]]),
    'ballad': ((60, 88), 4, ['ballad', 'ballad-full'], ['sustain', 'root8'], ['ballad-piano', 'pad', 'strum'], 0.6,
               ([33, 32], [0, 1, 24], [73, 40, 71], [0, 8]), [POP, ["C", "Am", "F", "G"]]),
    'bossa': ((120, 150), 4, ['bossa'], ['bossa'], ['bossa-guitar', 'comp'], 0.5, ([32, 33], [24, 0], [73, 65], [0, 25]),
              [["Dm7", "G7", "Cmaj7", "Cmaj7"]]),
    'shuffle': ((80, 140), 4, ['shuffle'], ['boogie', 'walk'], ['shuffle-piano', 'organ'], 0.5,
                ([32, 33], [0, 16, 17], [65, 26, 22], [0, 8]), [BLUES]),
    'swing': ((110, 200), 4, ['swing'], ['walk'], ['comp', 'brass'], 0.6, ([32], [0, 26], [65, 56, 66], [32, 0]),
              [["Dm7", "G7", "Cmaj7", "A7"]]),
    'waltz': ((96, 180), 3, ['waltz', 'waltz-rock', 'jazzwaltz'], ['waltz'], ['waltz', 'arp8'], 0.6,
              ([32, 33], [0, 24, 48], [73, 40, 68], [0, 8]), [POP, ["F", "C", "Dm", "Bb"]]),
}


def compose(index):
    """Song `index`: (Song, style, soundfont), the same for the same index on every run."""
    rng = random.Random(SEED + index)
    style = sorted(STYLES)[rng.randrange(len(STYLES))]
    (lo, hi), per_bar, grooves, basses, comps, lead_p, (pb, pc, pl, kits), loops = STYLES[style]
    bpm = rng.randint(lo, hi)
    song = mm.Song(f'song-{index:04d}', SEED + index, bpm, num=per_bar, den=4)
    song.program(mm.BASS, rng.choice(pb)), song.program(mm.COMP, rng.choice(pc), rng.randint(75, 95))
    song.program(mm.LEAD, rng.choice(pl), rng.randint(70, 90)), song.program(mm.DRUMS, rng.choice(kits))
    song.program(mm.PAD, rng.choice([48, 49, 89, 91]), 60)
    if per_bar == 4 and style not in ('shuffle', 'swing') and rng.random() < 0.15:
        song.swing = rng.choice([0.2, 0.33])
    if rng.random() < 0.3:
        song.jitter = {mm.COMP: 6, mm.LEAD: 8, mm.BASS: 4}
    chords = rng.choice(loops)
    sections = rng.randint(4, 7)
    for k in range(sections):
        bars = rng.choice([4, 8, 8])
        drums = not ((k == 0 and rng.random() < 0.35) or (0 < k < sections - 1 and rng.random() < 0.12))
        layers = {'bass': rng.choice(basses) if drums else rng.choice(['sustain', None]),
                  'comp': rng.choice(comps)}
        if drums:
            layers['drums'] = (rng.choice(grooves), rng.choice([0, 4, 8]))
        else:
            layers['pad'], layers['pad_vel'] = True, 60
        if rng.random() < lead_p:
            layers['lead'] = rng.choice([True, True, 'busy'])
        if drums and per_bar == 4 and rng.random() < 0.08:
            mm.fill_section(song, 2, chords, groove=layers['drums'][0], comp=layers['comp'], bass=layers['bass'])
        else:
            song.section(bars, chords, **layers)
    song.ending(chords[0].rstrip('5') or 'C', drums=True)
    return song, style, FONTS[index % len(FONTS)]


def make(index, out=OUT):
    song, style, font = compose(index)
    name = song.name
    mid = os.path.join(out, name + '.mid')
    wav = os.path.join(out, name + '.wav')
    song.save(mid)
    if not os.path.exists(wav):
        mm.render(mid, wav, font)
    truth = mm.midi_truth(mid, {key: 0.0 for key in mm.DRUM_KEYS})  # beats only: no drum attack delays
    duration = cl.wav_duration(wav)
    beats = [b for b in truth['beats'] if b < duration]
    cl.write_times(os.path.join(out, name + '.beats'), beats)
    cl.write_times(os.path.join(out, name + '.downbeats'), [b for b in truth['downbeats'] if b < duration])
    return {'path': name + '.wav', 'beats': name + '.beats', 'downbeats': name + '.downbeats', 'song': name,
            'style': style,
            'font': os.path.basename(font), 'bpm': round(truth['bpm'], 3), 'meter': truth['meter'],
            'seconds': round(duration, 2)}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--count', type=int, default=240, help='songs to make (default 240)')
    parser.add_argument('--jobs', type=int, default=2, help='renders at once (default 2)')
    parser.add_argument('--first', type=int, default=0, help='the first song index (default 0)')
    parser.add_argument('--out', default=OUT, help='the folder to write to (default tools/learned/out/songs)')
    args = parser.parse_args()
    for font in FONTS:
        if not os.path.exists(font):
            sys.exit(f'songs.py: {font} is missing (apt-get install musescore-general-soundfont-small csound-soundfont)')
    os.makedirs(args.out, exist_ok=True)
    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
        entries = list(pool.map(lambda index: make(index, args.out), range(args.first, args.first + args.count)))
    with open(os.path.join(args.out, 'index.json'), 'w') as f:
        json.dump({'songs': entries}, f, indent=1)
    minutes = sum(e['seconds'] for e in entries) / 60
    styles = {s: sum(e['style'] == s for e in entries) for s in sorted(STYLES)}
    print(f'{len(entries)} songs, {minutes:.0f} minutes, in {args.out}: {styles}')


if __name__ == '__main__':
    main()
