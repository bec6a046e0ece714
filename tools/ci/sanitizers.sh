#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Runs the test suite under ThreadSanitizer, then AddressSanitizer, each in its own build folder
# (.build/sanitize-thread, .build/sanitize-address) so the normal build is not invalidated. The CLI
# tests run the `beatmap` binary of the same sanitized build, so its C interop and task groups are
# checked too. Prints each pass's wall time. CI runs only the ThreadSanitizer pass here
# (SANITIZERS=thread): its AddressSanitizer pass is tools/test.sh itself, on an ASan build
# (BEATMAP_TEST_SANITIZER=address, see .ci/run), which runs every test.
#
#   SANITIZERS="thread address"    which passes to run
#   SANITIZER_SKIP=REGEX           tests left out of both passes (default: the SIGKILL test, a test of
#                                  files on disk, the slowest suite; CI runs it under ASan in test.sh)
#   SANITIZER_SKIP_THREAD=REGEX    tests left out of the ThreadSanitizer pass only (default: the preview
#                                  session on JACK's dummy device: a thread libjack creates exits inside
#                                  TSan's ignored region for uninstrumented libraries, which TSan reports
#                                  as "finished with ignores enabled" and exits 66 — not a race in our
#                                  code; the preview's other device tests still run under TSan)
#   SANITIZER_REALTIME=REGEX       tests run on their own after the rest of each pass (default: the
#                                  preview tests, which play in real time through JACK's dummy device
#                                  and ALSA loopbacks and compare the capture with the render: run beside
#                                  the suites that compile exported C# and Swift under a sanitizer, the
#                                  2-core machine starved them of CPU and the device underflowed in
#                                  every take — no bug of ours, and not what they measure)
#   SANITIZER_FILTER=REGEX         run only these tests in both passes (default: all; no realtime
#                                  split when set)
#   SANITIZER_FILTER_THREAD=REGEX  run only these tests under ThreadSanitizer (default: the targets and
#                                  suites with threads, tasks or C callbacks — BeatAnalysis's analyzer,
#                                  batch, decoding and C-library suites (the pipeline, the background
#                                  hash, aubio, libsndfile, libsoxr), BeatPreview (PortAudio, transport), the
#                                  validator's task group, the playback clock, and the CLI suites that run
#                                  analyze/preview/validate; the pure parsing and formatting suites run
#                                  under ASan only, which keeps the TSan pass at a few minutes)
set -euo pipefail
cd "$(dirname "$0")/../.."

SKIP="${SANITIZER_SKIP-CrashSafeWriteTests}"
FILTER="${SANITIZER_FILTER-}"

SKIP_THREAD="${SANITIZER_SKIP_THREAD-PreviewCommandTests/interactive}"
REALTIME="${SANITIZER_REALTIME-PreviewCommandTests}"
# BeatAnalysis: the suites that run the analyzer's threads (decoding ahead, the background hash, the
# batch) or its C libraries (libsndfile, aubio, libsoxr). Its grid-fitting, tracking and bar suites
# run single-threaded code on arrays, already reached through these; they run under ASan.
CONCURRENT='^BeatAnalysisTests\.(AnalysisRateTests|AudioFileReaderTests|BackgroundHashTests|BatchPlanTests'
CONCURRENT+='|FileDigestTests|GridFitTests|AnalyzerErrorTests|HostileAudioTests|OnsetDetectorTests'
CONCURRENT+='|PlotSeriesReaderTests|ResamplerTests)'
CONCURRENT+='|^BeatPreviewTests\.'
CONCURRENT+='|^BeatMapKitTests\.(ValidatorTests|PlaybackClockTests)'
CONCURRENT+='|^BeatStudioTests\.'
CONCURRENT+='|^beatmapTests\.(AnalyzeCommandTests|PreviewCommandTests|RenderCommandTests|ValidateCommandTests|ValidateAudioTests|HostileAudioValidateTests)'
FILTER_THREAD="${SANITIZER_FILTER_THREAD-$CONCURRENT}"

for sanitizer in ${SANITIZERS-thread address}; do
  selection=()
  skip="$SKIP"
  [ "$sanitizer" = thread ] && [ -n "$SKIP_THREAD" ] && skip="${skip:+$skip|}$SKIP_THREAD"
  [ -n "$skip" ] && selection+=(--skip "$skip")
  filter="$FILTER"
  [ "$sanitizer" = thread ] && [ -z "$filter" ] && filter="$FILTER_THREAD"
  [ -n "$filter" ] && selection+=(--filter "$filter")
  start=$(date +%s)
  # The build folder, the flags and the sanitizer's run-time options (leaks off, halt on the first
  # report): the same as tools/test.sh's with BEATMAP_TEST_SANITIZER set.
  BEATMAP_TEST_SANITIZER="$sanitizer"
  source tools/ci/build-flags.sh
  echo "sanitizers.sh: building with --sanitize=$sanitizer" >&2
  swift build --build-tests "${SWIFTPM_FLAGS[@]}"
  echo "sanitizers.sh: testing with --sanitize=$sanitizer" >&2
  if [ -z "$FILTER" ] && [ -n "$REALTIME" ]; then
    # The realtime tests on their own, after everything else.
    swift test --skip-build "${SWIFTPM_FLAGS[@]}" \
      --skip "${skip:+$skip|}$REALTIME" ${filter:+--filter "$filter"}
    echo "sanitizers.sh: $sanitizer: the realtime tests on their own ($REALTIME)" >&2
    swift test --skip-build "${SWIFTPM_FLAGS[@]}" \
      ${skip:+--skip "$skip"} --filter "$REALTIME"
  else
    swift test --skip-build "${SWIFTPM_FLAGS[@]}" ${selection[@]+"${selection[@]}"}
  fi
  echo "sanitizers.sh: $sanitizer: passed in $(($(date +%s) - start)) s" >&2
done
