#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Benchmark: `beatmap plot` on a 60-minute track must not hold the track's samples in memory.
# The peer, measured in the same run, is the same command on a 1-minute cut of the same audio: a
# streaming plot's peak memory (max RSS) barely grows with the track, so the 60:1 ratio of the inputs
# should give a memory ratio near 1 (target <= 1.5), far below 60. Also printed: the size the decoded
# mono samples would take (the 60-minute track as 32-bit floats) and the wall-clock time per minute of audio.
#   bash tools/bench/plot.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
swift build -c release --product beatmap >/dev/null
BIN=$(swift build -c release --show-bin-path)/beatmap
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

# Audio: a kick every 0.5 s over pink noise (sox), 60 minutes and its first minute, FLAC stereo 44.1 kHz.
sox -n -r 44100 -c 1 "$WORK/kick.wav" synth 0.5 sine 60:40 fade 0 0.5 0.45 gain -3
sox "$WORK/kick.wav" "$WORK/bar.wav" repeat 119
sox -n -r 44100 -c 1 "$WORK/noise.wav" synth 60 pinknoise gain -24
sox -m "$WORK/bar.wav" "$WORK/noise.wav" -c 2 "$WORK/minute.flac"
sox "$WORK/minute.flac" "$WORK/hour.flac" repeat 59

python3 - "$WORK" <<'PY'
import sys
work = sys.argv[1]
for name, minutes in (("minute", 1), ("hour", 60)):
    beats = [i * 0.5 for i in range(minutes * 120)]
    with open(f"{work}/{name}.beatmap.json", "w") as f:
        f.write('{"version": 1, "audio": {"duration": %d}, "tempo": [{"time": 0, "bpm": 120, "beatsPerBar": 4}],\n' % (minutes * 60))
        f.write(' "beats": [' + ", ".join("%.1f" % b for b in beats) + "]}\n")
PY

measure() {  # prints "max_rss_kib wall_seconds"
  /usr/bin/time -f "%M %e" -o "$WORK/time.txt" "$BIN" plot "$WORK/$1.flac" "$WORK/$1.beatmap.json" -o "$WORK/$1.svg" --force >/dev/null
  cat "$WORK/time.txt"
}
read -r minute_rss minute_wall < <(measure minute)
read -r hour_rss hour_wall < <(measure hour)
decoded_mib=$(python3 -c "print(round(3600 * 44100 * 4 / 2**20))")
python3 - "$minute_rss" "$minute_wall" "$hour_rss" "$hour_wall" "$decoded_mib" <<'PY'
import sys
m_rss, m_wall, h_rss, h_wall, decoded = map(float, sys.argv[1:])
print(f"{'input':<12}{'max RSS':>12}{'wall':>10}")
print(f"{'1 minute':<12}{m_rss / 1024:>9.1f} MiB{m_wall:>9.2f}s")
print(f"{'60 minutes':<12}{h_rss / 1024:>9.1f} MiB{h_wall:>9.2f}s")
print(f"memory ratio 60 min / 1 min: {h_rss / m_rss:.2f} (target <= 1.5; input ratio 60)")
print(f"60-minute RSS / its decoded mono samples ({decoded:.0f} MiB): {h_rss / 1024 / decoded:.3f}")
print(f"time per audio minute, 60 min vs 1 min: {h_wall / 60:.2f}s vs {m_wall:.2f}s")
sys.exit(0 if h_rss / m_rss <= 1.5 else 1)
PY
