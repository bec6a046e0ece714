#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Regenerates the committed seed corpora of tools/fuzz/corpus/ from scratch: tiny audio files
# synthesised with sox (so we own them) in every container libsndfile reads, plus nasty variants
# (truncated, header-only, wrong extension); beat maps, valid and hostile; and files of every import
# format: the demo maps (BeatMaps/) exported by the built `beatmap` (BEATMAP=path, default
# .build/debug/beatmap, built with `swift build --product beatmap`) plus hand-made hostile variants.
# Needs sox (tools/setup.sh installs it). Output is deterministic for a given sox version.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
AUDIO="$ROOT/tools/fuzz/corpus/audio"
MAP="$ROOT/tools/fuzz/corpus/map"
IMPORT="$ROOT/tools/fuzz/corpus/import"
BEATMAP="${BEATMAP:-$ROOT/.build/debug/beatmap}"
[ -x "$BEATMAP" ] || { echo "make-seeds.sh: no $BEATMAP (run swift build --product beatmap)" >&2; exit 2; }
mkdir -p "$AUDIO" "$MAP" "$IMPORT"
rm -f "$AUDIO"/* "$MAP"/* "$IMPORT"/*

# --- audio: 40 ms of a 440 Hz tone at 8 kHz, so each file is a few hundred bytes. -R -D: no random
# dither, so the bytes are the same on every run.
tone() { # OUT [OUTPUT-FORMAT-OPTIONS…]
  local out="$1"
  shift
  sox -R -D -n -r 8000 -c 1 "$@" "$out" synth 0.04 sine 440 vol 0.5
}
tone "$AUDIO/pcm16.wav" -b 16
tone "$AUDIO/pcm8.wav" -b 8 -e unsigned-integer
tone "$AUDIO/pcm24.aiff" -b 24
tone "$AUDIO/float32.wav" -e floating-point -b 32
tone "$AUDIO/float64.au" -e floating-point -b 64
tone "$AUDIO/tone.flac" -b 16
tone "$AUDIO/tone.caf" -b 16
tone "$AUDIO/ulaw.wav" -e mu-law
tone "$AUDIO/adpcm.wav" -e ima-adpcm
sox -R -D -n -r 8000 -c 2 -b 16 "$AUDIO/stereo.wav" synth 0.04 sine 440 sine 660
sox -R -D -n -r 8000 -c 6 -b 16 "$AUDIO/six-channels.w64" synth 0.02 sine 440
sox -R -D -n -r 8000 -c 1 "$AUDIO/tone.ogg" synth 0.2 sine 440
sox -R -D -n -r 8000 -c 1 -C 8 "$AUDIO/tone.mp3" synth 0.2 sine 440
# Nasty: header only, truncated mid-stream, zero bytes, a WAV named .mp3, a header claiming 8 channels.
head -c 44 "$AUDIO/pcm16.wav" >"$AUDIO/header-only.wav"
for f in tone.flac tone.ogg tone.mp3; do head -c $(($(wc -c <"$AUDIO/$f") / 2)) "$AUDIO/$f" >"$AUDIO/truncated-$f"; done
: >"$AUDIO/empty.wav"
cp "$AUDIO/pcm16.wav" "$AUDIO/wav-named.mp3"
python3 - "$AUDIO" <<'PY'
import struct, sys, os
folder = sys.argv[1]
data = open(os.path.join(folder, "pcm16.wav"), "rb").read()
# channels (offset 22) = 8, sample rate (24) = 4294967295, data size (40) beyond the file.
bad = bytearray(data)
struct.pack_into("<H", bad, 22, 8)
struct.pack_into("<I", bad, 24, 0xFFFFFFFF)
struct.pack_into("<I", bad, 40, 0x7FFFFFF0)
open(os.path.join(folder, "absurd-header.wav"), "wb").write(bytes(bad))
# IEEE float WAV holding NaN, +Inf, -Inf and denormals.
samples = [float("nan"), float("inf"), float("-inf"), 1e-40, 1.0, -1.0] * 10
body = struct.pack("<%df" % len(samples), *samples)
fmt = struct.pack("<HHIIHH", 3, 1, 8000, 32000, 4, 32)
wav = b"RIFF" + struct.pack("<I", 4 + 8 + len(fmt) + 8 + len(body)) + b"WAVE" + b"fmt " + struct.pack("<I", len(fmt)) + fmt + b"data" + struct.pack("<I", len(body)) + body
open(os.path.join(folder, "nan-inf.wav"), "wb").write(wav)
PY

# --- maps
cat >"$MAP/minimal.json" <<'J'
{"version":1,"audio":{"duration":8},"beats":[0.5,1.0,1.5,2.0]}
J
cat >"$MAP/full.json" <<'J'
{
  "version": 1,
  "audio": { "path": "song.ogg", "duration": 32.0, "sampleRate": 44100, "sha256": "abababababababababababababababababababababababababababababababab", "x-codec": "vorbis" },
  "tempo": [ { "time": 0.5, "bpm": 120.0, "beatsPerBar": 4, "x-label": "verse" }, { "time": 8.5, "bpm": 140.0 } ],
  "beats": [0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 3.5, 4.0, 8.5, 8.928571, 9.357143],
  "analysis": { "tool": "aubio", "method": "specflux", "confidence": 0.9 },
  "x-editor": { "zoom": 3, "marks": [1, 2.50, "three", null, true, false] }
}
J
cat >"$MAP/problems.json" <<'J'
{"version":1,"audio":{"duration":4},"tempo":[{"time":0,"bpm":1000},{"time":-1,"bpm":60}],
 "beats":[0.5,0.4,0.4,0.51,9,-1,1e308,NaN,Infinity,-Infinity,0.0000001,3.999999]}
J
printf '\xef\xbb\xbf{"version":1,"audio":{"duration":1e-300},"beats":[1e-300,2e-300,3e-300]}' >"$MAP/bom-tiny.json"
printf '{"version":2,"version":1,"audio":{"duration":"8","sampleRate":-3,"sha256":"XYZ"},"beats":[true,null,"1",{}],"tempo":{}}' >"$MAP/schema.json"
printf '{"a":"\\ud83d\\ude00\\u00e9\\n\\t\\"\\\\\\/","b":"\xc3\xa9\xf0\x9f\x8e\xb5","c":"\\ud800"}' >"$MAP/strings.json"
python3 -c 'print("[" * 300 + "]" * 300)' >"$MAP/deep.json"
printf '{"version":1,"audio":{"duration":8},"beats":[0.5,' >"$MAP/truncated.json"
printf '\x00\x01\x02{}' >"$MAP/binary.json"
: >"$MAP/empty.json"
printf '{"version":1,"audio":{"duration":8e12},"beats":[8.9e12,9.1e12,1e20,-0.0,0.1e-7]}' >"$MAP/big-numbers.json"
printf '{"version":1,"audio":{"duration":8},"beats":[0.5,1,1.5,2,2.5,3,3.5,4,4.5,5,5.5,6,6.5,7,7.5]}\n' >"$MAP/steady.json"
printf '{"version":1,"audio":{"duration":100},"beats":[0,1e-9,2e-9,3e-9]}' >"$MAP/tiny-intervals.json"
# --- import: each seed is the file's bytes plus one selector byte (see targets/import.swift):
# selector = 14 × variant + format index (swift 0, sm 1, ssc 2, osu 3, beatsaber 4, audacity 5,
# sonic-visualiser 6, jams 7, csv 8, txt 9, midi 10, chart 11, csharp 12, gdscript 13); variant bit 0 = note beats (Beat Saber: the file is
# AudioData.dat), (variant >> 1) % 3 = no --duration, 30 s, 0.0002 s. A Beat Saber Info.dat seed is
# Info.dat, a NUL byte, then AudioData.dat.
FORMATS=(swift sm ssc osu beatsaber audacity sonic-visualiser jams csv txt midi chart csharp gdscript)
index_of() { local i; for i in "${!FORMATS[@]}"; do [ "${FORMATS[$i]}" = "$1" ] && { echo "$i"; return; }; done; exit 2; }
# seed NAME FORMAT VARIANT: stdin plus the selector byte → corpus/import/NAME.
seed() {
  local selector=$(($3 * ${#FORMATS[@]} + $(index_of "$2")))
  { cat; printf "\\$(printf '%03o' "$selector")"; } >"$IMPORT/$1"
}
SCRATCH="$(mktemp -d)"
trap 'rm -rf "$SCRATCH"' EXIT
for map in "$ROOT"/BeatMaps/*.beatmap.json; do
  name="$(basename "$map" .beatmap.json)"
  for format in "${FORMATS[@]}"; do
    if [ "$format" = beatsaber ]; then
      "$BEATMAP" export "$map" --format beatsaber -o "$SCRATCH/$name-bs" >/dev/null
      { cat "$SCRATCH/$name-bs/Info.dat"; printf '\0'; cat "$SCRATCH/$name-bs/AudioData.dat"; } | seed "$name.beatsaber" beatsaber 0
      seed "$name.audiodata" beatsaber 1 <"$SCRATCH/$name-bs/AudioData.dat"
    elif [ "$format" = midi ]; then
      "$BEATMAP" export "$map" --format midi -o "$SCRATCH/$name.midi" >/dev/null
      seed "$name.midi" midi 0 <"$SCRATCH/$name.midi"
    else
      "$BEATMAP" export "$map" --format "$format" >"$SCRATCH/$name.$format"
      seed "$name.$format" "$format" 0 <"$SCRATCH/$name.$format"
    fi
  done
  # Note beats from the game formats, and a --duration for the plain lists.
  seed "$name.notes.sm" sm 1 <"$SCRATCH/$name.sm"
  seed "$name.notes.osu" osu 1 <"$SCRATCH/$name.osu"
  seed "$name.duration.csv" csv 2 <"$SCRATCH/$name.csv"
done
# Empty files of every format; truncated exports.
for format in "${FORMATS[@]}"; do seed "empty.$format" "$format" 0 </dev/null; done
for format in swift sm ssc osu jams audacity midi chart csharp gdscript; do
  head -c 300 "$SCRATCH/demo-tempo-change.$format" | seed "truncated.$format" "$format" 0
done
head -c 200 "$SCRATCH/demo-120-bs/Info.dat" | seed truncated.beatsaber beatsaber 0
# StepMania: huge, zero and negative BPMs, far offsets, NaN text, stops, delays, warps, odd notes.
printf '#OFFSET:-1e9;\n#BPMS:0=1e300;\n#STOPS:0=1000;\n' | seed huge-bpm.sm sm 2
printf '#OFFSET:nan;\n#BPMS:0=120;\n' | seed nan-offset.sm sm 0
printf '#OFFSET:0;\n#BPMS:0=120,4=inf,8=-60,12=0;\n' | seed bad-bpms.sm sm 2
printf '#OFFSET:1e300;\n#BPMS:0=120;\n#NOTES:dance-single:x:Beginner:1:0:\n1000\n0000\n,\n0100\n;\n' | seed far-offset.sm sm 1
printf '#BPMS:0=120,1e15=240;\n#STOPS:1=-5,2=1e300;\n#DELAYS:3=0.5;\n#NOTES:a:b:c:d:e:\n1\n2\n4\nL\n,,,,\nM\n;' | seed stops.sm sm 0
printf '#VERSION:0.83;\n#BPMS:0=120;\n#WARPS:4=2;\n#NOTEDATA:;\n#BPMS:0=1e-300;\n#NOTES:\n1000\n;\n' | seed warps.ssc ssc 0
printf '#NOTES:only:three:fields;\n#BPMS:0=120\n#OFFSET:\\;\\\\:1;\n' | seed broken-tags.sm sm 0
# osu!: far, tiny and negative timing points, NaN, inherited points, odd hit objects.
printf 'osu file format v14\n[TimingPoints]\n-1e20,1,4,1,0,100,1,0\n0,1e-300,4,1,0,100,1,0\n' | seed far-timing.osu osu 2
printf 'osu file format v14\n[TimingPoints]\n0,nan,4\n' | seed nan-timing.osu osu 0
printf 'osu file format v14\n[TimingPoints]\n0,500,0,1,0,100,1,0\n100,-50,4,1,0,100,0,0\n[HitObjects]\n1,2,1e308,1\n' | seed meter-zero.osu osu 1
printf 'osu file format v3\r\n[TimingPoints]\r\n1000,333.3333,3\r\n[HitObjects]\r\n0,0,900000,1,0\r\n0,0,-5,1\r\n' | seed crlf.osu osu 0
# Beat Saber: v2 info, absurd regions, a recorded beat range far from 0, NaN text.
printf '{"_version":"2.0.0","_beatsPerMinute":1e300,"_songFilename":"../../x.ogg"}' | seed v2-huge-bpm.beatsaber beatsaber 2
printf '{"version":"4.0.0","audio":{"bpm":120,"songDuration":10},"customData":{"beatmapKit":{"firstBeat":1e20,"lastBeat":1.0000000000000001e20}}}' | seed far-beats.beatsaber beatsaber 0
printf '{"version":"4.0.0","audio":{"audioDataFilename":"AudioData.dat"}}\0{"version":"4.0.0","songFrequency":0.5,"songSampleCount":1e300,"bpmData":[{"si":0,"ei":1e-300,"sb":1e20,"eb":1e21}]}' | seed tiny-rate.beatsaber beatsaber 0
printf '{"_songFrequency":44100,"_regions":[{"_startSampleIndex":-44100,"_endSampleIndex":44100,"_startBeat":-2,"_endBeat":NaN}]}' | seed nan-region.audiodata beatsaber 1
printf '{"version":"4.0.0","audio":{"audioDataFilename":".."}}' | seed dotdot.beatsaber beatsaber 0
# JAMS: dense data, NaN and huge times, no beat annotation.
printf '{"annotations":[{"namespace":"beat","data":{"time":[0.5,1e308,-1],"duration":[0,0,0]}}],"file_metadata":{"duration":1e-9}}' | seed dense.jams jams 0
printf '{"annotations":[{"namespace":"beat","data":[{"time":NaN},{"time":Infinity}]}]}' | seed nan.jams jams 0
printf '{"annotations":[{"namespace":"tempo","data":[]}]}' | seed no-beats.jams jams 4
# Swift: unclosed arrays, nested comments, odd literals.
printf 'let beatMap: [TimeInterval] = [0.5, 1_000.25, 2e-3, /* /* */ */ -0x1p3\n' | seed unclosed.swift swift 0
printf 'static let beatMapDuration: TimeInterval = 1e-300\nstatic let beatMapTempoChanges: [(time: TimeInterval, bpm: Double)] = [(time: 0, bpm: 1e300), (time: nan, bpm: 1)]\nstatic let beatMap: [TimeInterval] = [0.5, 1.0]\n' | seed tempo.swift swift 0
# Plain lists: NaN text, huge and negative times, headers, spectral label lines, Latin-1.
printf 'time\nnan\ninf\n1e308\n-5\n0x10\n' | seed nan.csv csv 0
printf 'beat\n1e300\n-1e300\n' | seed huge.txt txt 2
printf '0.5\t0.5\t1\n\\\t100\t200\n-0.25\t-0.25\t\xe9\n' | seed spectral.audacity audacity 0
printf 'time,label\n0.000001,a\n0.0000004,b\n' | seed tiny.sonic-visualiser sonic-visualiser 4
# MIDI: running status with no status before it, running status after a meta event, a track longer
# than the file, a tempo of 0, a five-byte delta, SMPTE time, format 2, and no tempo at all (2 = --duration 30).
MTHD='MThd\0\0\0\6\0\1\0\1\1\340'
printf "${MTHD}"'MTrk\0\0\0\7\0\74\144\0\377\57\0' | seed running-status.midi midi 0
printf "${MTHD}"'MTrk\0\0\0\22\0\220\74\144\0\377\121\3\7\241\40\10\74\0\0\377\57\0' | seed running-after-meta.midi midi 0
printf "${MTHD}"'MTrk\177\377\377\377\0\377\121\3\7\241\40\0\377\57\0' | seed lying-length.midi midi 2
printf "${MTHD}"'MTrk\0\0\0\14\0\377\121\3\0\0\0\203\140\377\57\0' | seed zero-tempo.midi midi 0
printf "${MTHD}"'MTrk\0\0\0\10\201\201\201\201\1\377\57\0' | seed long-delta.midi midi 0
printf 'MThd\0\0\0\6\0\1\0\1\347\50MTrk\0\0\0\4\0\377\57\0' | seed smpte.midi midi 2
printf 'MThd\0\0\0\6\0\2\0\1\1\340MTrk\0\0\0\4\0\377\57\0' | seed format2.midi midi 2
printf "${MTHD}"'MTrk\0\0\0\5\377\377\177\377\57' | seed no-tempo.midi midi 2
# .chart: tempo 0, a huge tick range, a negative offset, a time signature 0, an unclosed section.
printf '[Song]\n{\n  Resolution = 192\n}\n[SyncTrack]\n{\n  0 = B 0\n}\n' | seed zero-tempo.chart chart 2
printf '[Song]\n{\n  Resolution = 1\n  Offset = -1e9\n}\n[SyncTrack]\n{\n  0 = TS 4 6\n  0 = B 4000000000\n}\n[Events]\n{\n  0 = E "beatmap_first_beat"\n  1099511627776 = E "beatmap_last_beat"\n}\n' | seed far-ticks.chart chart 0
printf '[Song]\n{\n  Resolution = 192\n}\n[SyncTrack]\n{\n  0 = TS 0\n  0 = B 120000\n' | seed unclosed.chart chart 0
# C# and GDScript: unclosed arrays, odd literals.
printf 'public static readonly double[] Beats = { 0.5, 1e308, nan\n' | seed unclosed.csharp csharp 0
printf 'const DURATION: float = 1e-300\nconst BEATS: PackedFloat64Array = PackedFloat64Array([0.5, -1, ])\n' | seed tiny.gdscript gdscript 0
echo "seeds: $(ls "$AUDIO" | wc -l) audio, $(ls "$MAP" | wc -l) map, $(ls "$IMPORT" | wc -l) import" >&2
