#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Audition benchmarks (issue 4), all on a generated 5-minute 44.1 kHz stereo track with a 128 BPM map:
#   1. render speed of `beatmap render` in × real time, beside sox mixing the same music with a
#      pre-rendered click track (the peer, measured in the same run);
#   2. time to first sound of `beatmap preview` for the 5-minute track (decoded ahead of playback);
#   3. the realtime callback's CPU load at 44.1 kHz with 256-frame buffers, on JACK's dummy backend
#      (paced like a sound card): PortAudio's Pa_GetStreamCpuLoad and our own render time ÷ audio time;
#   4. memory (issue 14): peak RSS of `beatmap render` for a 1-minute and a 60-minute track (the render
#      streams, so the two must be within 10 %), and of `beatmap preview` of the 60-minute track — all of
#      it on a virtual ALSA device (unpaced, so the hour plays in seconds), and 10 s of it on JACK's dummy
#      backend at 48 kHz (paced; the music resampled from 44.1 kHz).
# Needs sox, jackd and GNU time (tools/setup.sh). The long tracks are generated here (sox), never committed.
# Usage: tools/bench/audition.sh [debug|release] [all|memory] (default: release all).
set -euo pipefail
cd "$(dirname "$0")/../.."
CONFIG="${1:-release}"
ONLY="${2:-all}"
swift build -c "$CONFIG" --product beatmap >/dev/null
BIN="$(swift build -c "$CONFIG" --show-bin-path)/beatmap"
OUT=tools/bench/out/audition
rm -rf "$OUT" && mkdir -p "$OUT"
SECONDS_LONG=300

# Peak resident memory in MB of a command (GNU time's maximum resident set size).
peak_rss() {
  /usr/bin/time -f "%M" -o "$OUT/rss.txt" "$@" >/dev/null 2>&1 || { echo "failed: $*" >&2; exit 1; }
  python3 -c "print(round(int(open('$OUT/rss.txt').read().split()[-1]) / 1024, 1))"
}

memory() {
  echo "== 4. memory: render of a 1-minute and a 60-minute track, preview of the 60-minute track =="
  for minutes in 1 60; do
    sox -n -r 44100 -c 2 -b 16 "$OUT/m$minutes.wav" synth $((minutes * 60)) sine 220 sine 331 tremolo 2 40 vol 0.5
    python3 - "$OUT/m$minutes.beatmap.json" $((minutes * 60)) "m$minutes.wav" <<'PY'
import json, sys
path, duration, audio = sys.argv[1], float(sys.argv[2]), sys.argv[3]
beats = [round(0.25 + k * 60 / 128, 6) for k in range(int((duration - 0.35) * 128 / 60) + 1)]
json.dump({"version": 1, "audio": {"path": audio, "duration": duration},
           "tempo": [{"time": 0.25, "bpm": 128, "beatsPerBar": 4}], "beats": beats}, open(path, "w"))
PY
  done
  short=$(peak_rss "$BIN" render "$OUT/m1.beatmap.json" -o "$OUT/m1-render.wav" --force)
  long=$(peak_rss "$BIN" render "$OUT/m60.beatmap.json" -o "$OUT/m60-render.wav" --force)
  rm -f "$OUT/m60-render.wav"
  python3 - "$short" "$long" <<'PY'
import sys
short, long = map(float, sys.argv[1:])
print(f"render peak RSS: 1-minute track {short} MB, 60-minute track {long} MB, ratio {long / short:.3f} (target <= 1.10)")
PY
  cat > "$OUT/asound.conf" <<CONF
</usr/share/alsa/alsa.conf>
pcm.!default { type file slave.pcm "null" file "/dev/null" format "raw" }
CONF
  whole=$(ALSA_CONFIG_PATH="$PWD/$OUT/asound.conf" peak_rss "$BIN" preview "$OUT/m60.beatmap.json" --no-ui)
  echo "preview peak RSS, the whole 60-minute track on a virtual ALSA device (unpaced): $whole MB (target <= 300)"
  local server="beatmap-bench-mem-$$"
  jackd -n "$server" -d dummy -r 48000 -p 256 >/dev/null 2>&1 &
  local jack=$!
  JACK_DEFAULT_SERVER="$server" jack_wait -w -t 10 >/dev/null 2>&1
  paced=$(JACK_DEFAULT_SERVER="$server" peak_rss "$BIN" preview "$OUT/m60.beatmap.json" --no-ui --device system \
    --from 1800 --to 1810)
  kill "$jack" 2>/dev/null || true
  wait "$jack" 2>/dev/null || true
  echo "preview peak RSS, 10 s in the middle of the 60-minute track on JACK's dummy backend at 48 kHz: $paced MB"
  rm -f "$OUT/m60.wav"
}

if [ "$ONLY" = memory ]; then memory; exit 0; fi

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

memory
