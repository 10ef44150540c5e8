#!/usr/bin/env bash
# Prints the path of the gateway benchmark's load generator (bench/gateway/loadgen, Go, standard
# library only), building it once into a cache outside the work tree. The folder is named after the
# sources' hash, so a change of main.go or go.mod builds a new binary. Progress goes to stderr; only
# the path goes to stdout.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
SRC="$ROOT/bench/gateway/loadgen"
CACHE="${AGENT_PLATFORM_CACHE:-$HOME/.cache/agent-platform}"
HASH="$(cat "$SRC/main.go" "$SRC/go.mod" | sha256sum | cut -c1-12)"
BIN_DIR="$CACHE/loadgen-$HASH"
BIN="$BIN_DIR/loadgen"

if [ -x "$BIN" ]; then echo "$BIN"; exit 0; fi
if ! command -v go >/dev/null 2>&1; then
  echo "[bench] no Go toolchain to build the load generator: install Go 1.22 or newer" \
    "(https://go.dev/dl, or 'apt-get install golang-go'), put 'go' on PATH, then run again" >&2
  exit 1
fi
echo "[bench] building the load generator with $(go version | cut -d' ' -f3) (once per change of its source)..." >&2
mkdir -p "$BIN_DIR"
TMP="$(mktemp "$BIN_DIR/loadgen.XXXXXX")"
trap 'rm -f "$TMP"' EXIT
# Outside any go.work, no toolchain switch, no VCS stamp (the hash names the version); no modules.
if ! (cd "$SRC" && GOWORK=off GOFLAGS=-buildvcs=false GOTOOLCHAIN=local CGO_ENABLED=0 go build -trimpath -o "$TMP" . >&2); then
  echo "[bench] building $SRC failed: read the compiler's message above" >&2
  exit 1
fi
mv -f "$TMP" "$BIN"
echo "[bench] load generator ready at $BIN" >&2
echo "$BIN"
