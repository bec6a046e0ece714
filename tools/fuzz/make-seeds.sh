#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Regenerates the committed seed corpora of tools/fuzz/corpus/ from scratch: tiny audio files
# synthesised with sox (so we own them) in every container libsndfile reads, plus nasty variants
# (truncated, header-only, wrong extension); and beat maps, valid and hostile.
# Needs sox (tools/setup.sh installs it). Output is deterministic for a given sox version.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
AUDIO="$ROOT/tools/fuzz/corpus/audio"
MAP="$ROOT/tools/fuzz/corpus/map"
mkdir -p "$AUDIO" "$MAP"
rm -f "$AUDIO"/* "$MAP"/*

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
echo "seeds: $(ls "$AUDIO" | wc -l) audio, $(ls "$MAP" | wc -l) map" >&2
