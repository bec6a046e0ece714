#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Runs the test suite under ThreadSanitizer, then AddressSanitizer, each in its own build folder
# (.build/sanitize-thread, .build/sanitize-address) so the normal build is not invalidated. The CLI
# tests run the `beatmap` binary of the same sanitized build, so its C interop and task groups are
# checked too. Prints each pass's wall time.
#
#   SANITIZERS="thread address"    which passes to run
#   SANITIZER_SKIP=REGEX           test suites left out (default: the SIGKILL test, which measures
#                                  nothing more under a sanitizer and is the slowest)
#   SANITIZER_FILTER=REGEX         run only these suites (default: all)
set -euo pipefail
cd "$(dirname "$0")/../.."

SKIP="${SANITIZER_SKIP-CrashSafeWriteTests}"
FILTER="${SANITIZER_FILTER-}"
# Leak checking at exit reports the runtime's and Foundation's process-lifetime caches; memory errors
# are what this pass is for. halt_on_error makes the first report fail the run.
export ASAN_OPTIONS="${ASAN_OPTIONS-detect_leaks=0:halt_on_error=1}"
export TSAN_OPTIONS="${TSAN_OPTIONS-halt_on_error=1}"
export SWIFT_BACKTRACE="${SWIFT_BACKTRACE-enable=no}"

selection=()
[ -n "$SKIP" ] && selection+=(--skip "$SKIP")
[ -n "$FILTER" ] && selection+=(--filter "$FILTER")

for sanitizer in ${SANITIZERS-thread address}; do
  start=$(date +%s)
  scratch=".build/sanitize-$sanitizer"
  echo "sanitizers.sh: building with --sanitize=$sanitizer" >&2
  swift build --build-tests --sanitize="$sanitizer" --scratch-path "$scratch"
  echo "sanitizers.sh: testing with --sanitize=$sanitizer" >&2
  swift test --skip-build --sanitize="$sanitizer" --scratch-path "$scratch" "${selection[@]}"
  echo "sanitizers.sh: $sanitizer: passed in $(($(date +%s) - start)) s" >&2
done
