#!/usr/bin/env bash
# Prints the path of a nats-server binary with JetStream, building it once through the Go module
# proxy into a cache outside the work tree. Falls back to Debian's nats-server when Go cannot build it.
# Progress goes to stderr; only the path goes to stdout.
set -euo pipefail
NATS_SERVER_VERSION="${NATS_SERVER_VERSION:-v2.12.15}"
CACHE="${AGENT_PLATFORM_CACHE:-$HOME/.cache/agent-platform}"
BIN_DIR="$CACHE/nats-server-$NATS_SERVER_VERSION"
BIN="$BIN_DIR/nats-server"

if [ -x "$BIN" ]; then echo "$BIN"; exit 0; fi
if command -v go >/dev/null 2>&1; then
  echo "[infra] building nats-server $NATS_SERVER_VERSION with Go (first run only, ~1-2 min)..." >&2
  mkdir -p "$BIN_DIR"
  if GOBIN="$BIN_DIR" GOFLAGS=-mod=mod CGO_ENABLED=0 go install "github.com/nats-io/nats-server/v2@$NATS_SERVER_VERSION" >&2; then
    echo "[infra] nats-server ready at $BIN" >&2
    echo "$BIN"; exit 0
  fi
  echo "[infra] building nats-server failed; looking for an installed one" >&2
fi
for candidate in "$(command -v nats-server 2>/dev/null || true)" /usr/sbin/nats-server /usr/bin/nats-server; do
  if [ -n "$candidate" ] && [ -x "$candidate" ]; then echo "$candidate"; exit 0; fi
done
echo "[infra] no nats-server: install Go (https://go.dev/dl) or 'apt-get install nats-server', then run again" >&2
exit 1
