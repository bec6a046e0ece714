#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Builds and runs BeatMapKit's libFuzzer targets (swiftc -sanitize=fuzzer,address).
#
#   tools/fuzz/fuzz.sh list                      the targets
#   tools/fuzz/fuzz.sh build [TARGET…]           build targets (default: all) into .build/fuzz/
#   tools/fuzz/fuzz.sh run TARGET [--time S] [--runs N] [--jobs J] [-- LIBFUZZER-ARGS…]
#                                                fuzz; new inputs go to .build/fuzz/corpus/TARGET,
#                                                crashes to .build/fuzz/artifacts/TARGET/
#   tools/fuzz/fuzz.sh regress [TARGET…]         run every committed seed and regression input once
#
# A target is tools/fuzz/targets/NAME.swift with an @_cdecl("LLVMFuzzerTestOneInput") function and a
# line `// fuzz-modules: MODULE…` naming the package modules it imports (and optionally a line
# `// fuzz-options: -flag=value…` of libFuzzer options it needs). Its seed corpus is
# tools/fuzz/corpus/NAME/ (plus tools/fuzz/corpus/NAME-generated/ if tools/fuzz/make-seeds.sh makes
# one), and inputs that once crashed it are kept in tools/fuzz/regressions/NAME/ and replayed by
# `regress` and by the Swift tests. To add a target for a new module: add its
# line to MODULES below, write targets/NAME.swift, and put a few valid and nasty seeds in corpus/NAME/.
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
FUZZ="$ROOT/tools/fuzz"
OUT="${FUZZ_OUT:-$ROOT/.build/fuzz}"
SWIFTC="${SWIFTC:-swiftc}"
# Swift's own backtracer would hold the output pipe open after a crash; libFuzzer and ASan report.
export SWIFT_BACKTRACE=enable=no
# Shallower allocation stacks: about twice the executions per second (rerun a crash input with
# ASAN_OPTIONS= for full stacks).
export ASAN_OPTIONS="${ASAN_OPTIONS-malloc_context_size=3}"
# Leaks inside the system decoders are not ours to fix (see lsan.supp); ours still fail the run.
export LSAN_OPTIONS="${LSAN_OPTIONS-suppressions=$FUZZ/lsan.supp:print_suppressions=0}"
# The package's name and upcoming features, as Package.swift gives them (`package` declarations are
# shared between its modules; imports are internal unless a file says `public import`).
FLAGS=(-sanitize=fuzzer,address -parse-as-library -O -g -swift-version 6 -package-name beatmapkit
  -enable-upcoming-feature ExistentialAny -enable-upcoming-feature MemberImportVisibility
  -enable-upcoming-feature InternalImportsByDefault)

# Package modules a target may import, in dependency order:
#   NAME|package modules it imports|C system-library modules (folders under Sources/)|pkg-config names
MODULES=(
  "BeatMapKit|||"
  "BeatAudio|BeatMapKit|CSndfile CSoxr CCrypto|sndfile soxr libcrypto"
  "BeatAnalysis|BeatMapKit BeatAudio|CAubio|aubio"
)

die() { echo "fuzz.sh: $*" >&2; exit 2; }

module_line() {
  local m
  for m in "${MODULES[@]}"; do [ "${m%%|*}" = "$1" ] && { echo "$m"; return; }; done
  die "unknown module $1 (add it to MODULES in $0)"
}

# Every module $1 needs, dependencies first.
closure() {
  local line deps d
  line="$(module_line "$1")"
  IFS='|' read -r _ deps _ _ <<<"$line"
  for d in $deps; do closure "$d"; done
  echo "$1"
}

targets() { for f in "$FUZZ"/targets/*.swift; do basename "$f" .swift; done; }

# Extra libFuzzer options a target asks for with a `// fuzz-options: …` line.
target_options() { sed -n 's|^// fuzz-options:||p' "$FUZZ/targets/$1.swift" | head -1; }

target_modules() {
  local file="$FUZZ/targets/$1.swift"
  [ -f "$file" ] || die "no target $1 (have: $(targets | tr '\n' ' '))"
  sed -n 's|^// fuzz-modules:||p' "$file" | head -1
}

# Builds module $1 as a static library with its .swiftmodule, unless it is newer than its sources.
build_module() {
  local name="$1" line deps cmods pkgs lib sources inc=() c d
  line="$(module_line "$name")"
  IFS='|' read -r _ deps cmods pkgs <<<"$line"
  lib="$OUT/lib/lib$name.a"
  mapfile -t sources < <(find "$ROOT/Sources/$name" -name '*.swift' | sort)
  [ "${#sources[@]}" -gt 0 ] || die "no sources in Sources/$name"
  # Up to date: newer than its sources and than the modules it imports.
  local stale=""
  [ -f "$lib" ] || stale=1
  [ -n "$stale" ] || [ -z "$(find "$ROOT/Sources/$name" -newer "$lib" -name '*.swift' | head -1)" ] || stale=1
  for d in $deps; do [ -n "$stale" ] || [ ! "$OUT/lib/lib$d.a" -nt "$lib" ] || stale=1; done
  [ -n "$stale" ] || return 0
  for c in $cmods; do inc+=(-I "$ROOT/Sources/$c"); done
  # shellcheck disable=SC2086
  [ -n "$pkgs" ] && inc+=($(pkg-config --cflags-only-I $pkgs | sed 's/-I/-Xcc -I/g'))
  echo "fuzz.sh: building module $name" >&2
  mkdir -p "$OUT/lib" "$OUT/obj/$name"
  (cd "$OUT/obj/$name" && "$SWIFTC" "${FLAGS[@]}" -module-name "$name" -I "$OUT/lib" "${inc[@]}" \
    -emit-module -emit-module-path "$OUT/lib/$name.swiftmodule" -emit-library -static -o "$lib" "${sources[@]}")
}

build_target() {
  local target="$1" mods m all=() line cmods pkgs inc=() libs=() c
  mods="$(target_modules "$target")"
  [ -n "$mods" ] || die "targets/$target.swift has no '// fuzz-modules:' line"
  for m in $mods; do while read -r d; do [[ " ${all[*]} " == *" $d "* ]] || all+=("$d"); done < <(closure "$m"); done
  for m in "${all[@]}"; do
    build_module "$m"
    line="$(module_line "$m")"
    IFS='|' read -r _ _ cmods pkgs <<<"$line"
    for c in $cmods; do inc+=(-I "$ROOT/Sources/$c"); done
    # shellcheck disable=SC2086
    [ -n "$pkgs" ] && libs+=($(pkg-config --libs $pkgs))
  done
  # Static libraries: dependents before their dependencies, then the system libraries.
  for m in "${all[@]}"; do libs=("$OUT/lib/lib$m.a" "${libs[@]}"); done
  local binary="$OUT/bin/fuzz-$target"
  if [ -f "$binary" ] && [ "$binary" -nt "$FUZZ/targets/$target.swift" ] \
    && [ -z "$(for m in "${all[@]}"; do find "$OUT/lib/lib$m.a" -newer "$binary"; done)" ]; then return; fi
  echo "fuzz.sh: building target $target" >&2
  mkdir -p "$OUT/bin" "$OUT/obj/fuzz-$target"
  (cd "$OUT/obj/fuzz-$target" && "$SWIFTC" "${FLAGS[@]}" -use-ld=lld -module-name "Fuzz_$target" -I "$OUT/lib" "${inc[@]}" \
    "$FUZZ/targets/$target.swift" "${libs[@]}" -o "$binary")
}

seed_dirs() {
  local d
  for d in "$FUZZ/corpus/$1" "$FUZZ/corpus/$1-generated" "$FUZZ/regressions/$1"; do [ -d "$d" ] && echo "$d"; done
  return 0
}

cmd="${1:-}"
[ -n "$cmd" ] && shift
case "$cmd" in
  list) targets ;;
  build)
    [ "$#" -gt 0 ] || set -- $(targets)
    for t in "$@"; do build_target "$t"; done
    ;;
  run)
    target="${1:-}"
    [ -n "$target" ] || die "usage: fuzz.sh run TARGET [--time S] [--runs N] [--jobs J] [-- ARGS…]"
    shift
    time=60 runs=-1 jobs=1 extra=()
    while [ "$#" -gt 0 ]; do
      case "$1" in
        --time) time="$2"; shift 2 ;;
        --runs) runs="$2"; shift 2 ;;
        --jobs) jobs="$2"; shift 2 ;;
        --) shift; extra=("$@"); break ;;
        *) die "unknown option $1" ;;
      esac
    done
    build_target "$target"
    mkdir -p "$OUT/corpus/$target" "$OUT/artifacts/$target"
    mapfile -t seeds < <(seed_dirs "$target")
    dict=()
    [ -f "$FUZZ/dictionaries/$target.dict" ] && dict=(-dict="$FUZZ/dictionaries/$target.dict")
    parallel=()
    [ "$jobs" -gt 1 ] && parallel=(-fork="$jobs" -ignore_crashes=0)
    # shellcheck disable=SC2207
    options=($(target_options "$target"))
    # -rss_limit_mb bounds memory per input; -timeout flags any input that takes over 10 s as a hang.
    exec "$OUT/bin/fuzz-$target" "$OUT/corpus/$target" "${seeds[@]}" \
      -max_total_time="$time" -runs="$runs" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
      -artifact_prefix="$OUT/artifacts/$target/" -print_final_stats=1 "${dict[@]}" "${parallel[@]}" \
      "${options[@]}" "${extra[@]}"
    ;;
  regress)
    [ "$#" -gt 0 ] || set -- $(targets)
    for t in "$@"; do
      build_target "$t"
      mapfile -t files < <(for d in $(seed_dirs "$t"); do find "$d" -type f ! -name 'README*'; done | sort)
      echo "fuzz.sh: $t: replaying ${#files[@]} inputs" >&2
      # Artifacts of a failing input go under .build, not into the current folder.
      mkdir -p "$OUT/artifacts/$t"
      [ "${#files[@]}" -eq 0 ] || "$OUT/bin/fuzz-$t" -timeout=10 -rss_limit_mb=2048 -artifact_prefix="$OUT/artifacts/$t/" \
        "${files[@]}" 2>"$OUT/regress-$t.log" \
        || { cat "$OUT/regress-$t.log" >&2; die "$t: an input failed"; }
    done
    ;;
  *) sed -n '3,17p' "$0" | sed 's/^# \{0,1\}//'; [ -z "$cmd" ] || exit 2 ;;
esac
