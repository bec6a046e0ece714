# SPDX-License-Identifier: GPL-3.0-or-later
# Sourced by tools/test.sh, tools/ci/docs.sh, tools/ci/sanitizers.sh and tools/install-shell-support.sh
# --check. With BEATMAP_TEST_SANITIZER set to a SwiftPM sanitizer (address, thread), the build goes to
# .build/sanitize-NAME with --sanitize=NAME and the sanitizer's run-time options are set; unset, the
# default .build and no flags. Sets SCRATCH (the build folder) and SWIFTPM_FLAGS (for swift build,
# swift test and swift package; expand it as ${SWIFTPM_FLAGS[@]+"${SWIFTPM_FLAGS[@]}"}, which bash 3.2
# accepts when it is empty).
SCRATCH=.build
SWIFTPM_FLAGS=()
if [ -n "${BEATMAP_TEST_SANITIZER:-}" ]; then
  SCRATCH=".build/sanitize-$BEATMAP_TEST_SANITIZER"
  SWIFTPM_FLAGS=(--sanitize="$BEATMAP_TEST_SANITIZER" --scratch-path "$SCRATCH")
  # Leak checking at exit reports the Swift runtime's and Foundation's process-lifetime caches; memory
  # errors are what the pass is for. halt_on_error makes the first report fail the run.
  export ASAN_OPTIONS="${ASAN_OPTIONS-detect_leaks=0:halt_on_error=1}"
  export TSAN_OPTIONS="${TSAN_OPTIONS-halt_on_error=1}"
  export SWIFT_BACKTRACE="${SWIFT_BACKTRACE-enable=no}"
fi
