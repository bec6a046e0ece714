#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Audition benchmarks (issue 4), all on a generated 5-minute 44.1 kHz stereo track with a 128 BPM map:
#   1. render speed of `beatmap render` in × real time, beside sox mixing the same music with a
#      pre-rendered click track (the peer, measured in the same run);
#   2. time to first sound of `beatmap preview` for the 5-minute track (decoded ahead of playback);
#   3. the realtime callback's CPU load at 44.1 kHz with 256-frame buffers, on JACK's dummy backend
#      (paced like a sound card): PortAudio's Pa_GetStreamCpuLoad and our own render time ÷ audio time.
# Needs sox and jackd (tools/setup.sh). Usage: tools/bench/audition.sh [debug|release] (default release).
set -euo pipefail
cd "$(dirname "$0")/../.."
CONFIG="${1:-release}"
swift build -c "$CONFIG" --product beatmap >/dev/null
BIN="$(swift build -c "$CONFIG" --show-bin-path)/beatmap"
OUT=tools/bench/out/audition
rm -rf "$OUT" && mkdir -p "$OUT"
SECONDS_LONG=300

# A 5-minute track: two detuned tones with a slow tremolo, and a 128 BPM map in 4/4.
sox -n -r 44100 -c 2 -b 16 "$OUT/track.wav" synth "$SECONDS_LONG" sine 220 sine 331 tremolo 2 40 vol 0.5
python3 - "$OUT/track.beatmap.json" "$SECONDS_LONG" <<'PY'
import json, sys
path, duration = sys.argv[1], float(sys.argv[2])
beats, t = [], 0.25
while t < duration - 0.1:
    beats.append(round(t, 6)); t += 60 / 128
json.dump({"version": 1, "audio": {"path": "track.wav", "duration": duration},
           "tempo": [{"time": 0.25, "bpm": 128, "beatsPerBar": 4}], "beats": beats}, open(path, "w"))
PY

best() { # best wall time of 3 runs of a command, in seconds
  local best=999999
  for _ in 1 2 3; do
    local start end
    start=$(date +%s.%N); "$@" >/dev/null 2>&1; end=$(date +%s.%N)
    best=$(python3 -c "print(min($best, $end - $start))")
  done
  echo "$best"
}

echo "== 1. render speed (5:00 of 44.1 kHz stereo, 640 clicks) =="
"$BIN" render "$OUT/track.wav" "$OUT/track.beatmap.json" -o "$OUT/clicks.wav" --no-music --force >/dev/null
ours=$(best "$BIN" render "$OUT/track.wav" "$OUT/track.beatmap.json" -o "$OUT/render.wav" --force)
peer=$(best sox -m "$OUT/track.wav" "$OUT/clicks.wav" "$OUT/sox-mix.wav")
python3 - "$ours" "$peer" "$SECONDS_LONG" <<'PY'
import sys
ours, peer, length = map(float, sys.argv[1:])
print(f"beatmap render: {ours:.3f} s = {length / ours:.0f}x real time (decode + mix + limiter + 16-bit WAV)")
print(f"sox -m (peer, mixing the music with a ready click track): {peer:.3f} s = {length / peer:.0f}x real time")
print(f"ratio beatmap/sox time: {ours / peer:.2f}")
PY

echo "== 2. first sound of preview for the 5-minute track (virtual ALSA device, unpaced) =="
cat > "$OUT/asound.conf" <<CONF
</usr/share/alsa/alsa.conf>
pcm.!default { type file slave.pcm "null" file "/dev/null" format "raw" }
CONF
for _ in 1 2 3; do
  ALSA_CONFIG_PATH="$PWD/$OUT/asound.conf" "$BIN" preview "$OUT/track.wav" "$OUT/track.beatmap.json" --no-ui --to 1 | grep -o "first sound after [0-9]* ms"
done

echo "== 3. callback CPU load at 44.1 kHz, 256-frame buffers (JACK dummy backend, 30 s of playback) =="
SERVER="beatmap-bench-$$"
jackd -n "$SERVER" -d dummy -r 44100 -p 256 >/dev/null 2>&1 &
JACK_PID=$!
trap 'kill $JACK_PID 2>/dev/null || true' EXIT
JACK_DEFAULT_SERVER="$SERVER" jack_wait -w -t 10 >/dev/null 2>&1
JACK_DEFAULT_SERVER="$SERVER" "$BIN" preview "$OUT/track.wav" "$OUT/track.beatmap.json" --no-ui --from 60 --to 90 \
  --device system --buffer-frames 256 --verbose 2>/dev/null | grep -E "played|callbacks"
echo "target: callback CPU load <= 5 % of a core"
