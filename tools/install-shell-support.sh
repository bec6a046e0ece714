#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Installs the `beatmap` tool with its man page and shell completions (bash, zsh, fish).
#
#   bash tools/install-shell-support.sh [PREFIX]   # default PREFIX: ~/.local (use /usr/local as root)
#   bash tools/install-shell-support.sh --check    # CI: generate everything into a temporary prefix and check it
#                                                  # (on the test build: BEATMAP_TEST_SANITIZER is honoured)
#
# The man page comes from swift-argument-parser's generate-manual plugin, the completion scripts from
# `beatmap --generate-completion-script SHELL`; both are generated from the commands' own help, so they
# never drift from the tool. CONFIGURATION=debug builds faster (the default is release).
set -euo pipefail
cd "$(dirname "$0")/.."

CHECK=0
SCRATCH=.build
SWIFTPM_FLAGS=()
if [ "${1:-}" = "--check" ]; then
  CHECK=1
  # The check reuses the build tools/test.sh has just made, sanitized or not; an install never is.
  source tools/ci/build-flags.sh
  PREFIX="$(mktemp -d)"
  trap 'rm -rf "$PREFIX"' EXIT
  CONFIGURATION="${CONFIGURATION:-debug}"
else
  PREFIX="${1:-$HOME/.local}"
  CONFIGURATION="${CONFIGURATION:-release}"
fi

swift build -c "$CONFIGURATION" ${SWIFTPM_FLAGS[@]+"${SWIFTPM_FLAGS[@]}"} --product beatmap
BIN="$(swift build -c "$CONFIGURATION" ${SWIFTPM_FLAGS[@]+"${SWIFTPM_FLAGS[@]}"} --show-bin-path)/beatmap"
DATE="$(git log -1 --format=%cs 2>/dev/null || date +%F)"

mkdir -p "$PREFIX/bin" "$PREFIX/share/man/man1" "$PREFIX/share/bash-completion/completions" \
  "$PREFIX/share/zsh/site-functions" "$PREFIX/share/fish/vendor_completions.d"
install -m 755 "$BIN" "$PREFIX/bin/beatmap"

# The man page: the plugin builds the tool in the same configuration and writes beatmap.1.
swift package ${SWIFTPM_FLAGS[@]+"${SWIFTPM_FLAGS[@]}"} generate-manual --configuration "$CONFIGURATION" --date "$DATE" \
  --authors "BeatMapKit contributors" >/dev/null
install -m 644 "$SCRATCH"/plugins/GenerateManual/outputs/beatmap/beatmap.1 "$PREFIX/share/man/man1/beatmap.1"

"$BIN" --generate-completion-script bash >"$PREFIX/share/bash-completion/completions/beatmap"
"$BIN" --generate-completion-script zsh >"$PREFIX/share/zsh/site-functions/_beatmap"
"$BIN" --generate-completion-script fish >"$PREFIX/share/fish/vendor_completions.d/beatmap.fish"

if [ "$CHECK" = 1 ]; then
  for file in bin/beatmap share/man/man1/beatmap.1 share/bash-completion/completions/beatmap \
    share/zsh/site-functions/_beatmap share/fish/vendor_completions.d/beatmap.fish; do
    [ -s "$PREFIX/$file" ] || { echo "install-shell-support: $file is missing or empty" >&2; exit 1; }
  done
  bash -n "$PREFIX/share/bash-completion/completions/beatmap"
  for command in analyze validate rules info export import plot render preview evaluate format; do
    grep -q "$command" "$PREFIX/share/man/man1/beatmap.1" || { echo "man page lacks $command" >&2; exit 1; }
    grep -q "$command" "$PREFIX/share/bash-completion/completions/beatmap" \
      || { echo "bash completion lacks $command" >&2; exit 1; }
  done
  if command -v groff >/dev/null; then
    groff -mandoc -Tutf8 "$PREFIX/share/man/man1/beatmap.1" >/dev/null 2>&1
  fi
  echo "install-shell-support: the man page and the bash, zsh and fish completions generate"
  exit 0
fi

cat <<DONE
Installed in $PREFIX:
  bin/beatmap, share/man/man1/beatmap.1 (man beatmap),
  completions for bash (share/bash-completion/completions/beatmap), zsh (share/zsh/site-functions/_beatmap)
  and fish (share/fish/vendor_completions.d/beatmap.fish).
Put $PREFIX/bin on PATH and $PREFIX/share/man on MANPATH if they are not; zsh needs
$PREFIX/share/zsh/site-functions on fpath before compinit.
DONE
