#!/usr/bin/env bash
# Prints the path of a FerretDB v1 binary (MongoDB wire protocol over SQLite), building it once from
# the Go module proxy into a cache outside the work tree. FerretDB refuses to start unless
# build/version/version.txt holds its version at build time, so the module is copied and that file
# written before `go build`. Progress goes to stderr; only the path goes to stdout.
#
# One line of FerretDB is patched: its SQLite backend indexes `_id` as `_ferretdb_sjson->"_id"` but
# queries it as `_ferretdb_sjson->'$._id'`; SQLite uses an expression index only for the identical
# expression, so every lookup and update by `_id` scanned the whole table (minutes per benchmark run
# instead of seconds). The patch makes the query use the index's expression; the results are the
# same (both take the `_id` member of the document). docs/decisions.md has the measurements.
set -euo pipefail
FERRETDB_VERSION="${FERRETDB_VERSION:-v1.24.2}"
CACHE="${AGENT_PLATFORM_CACHE:-$HOME/.cache/agent-platform}"
BIN_DIR="$CACHE/ferretdb-$FERRETDB_VERSION-idindex"
BIN="$BIN_DIR/ferretdb"

if [ -x "$BIN" ]; then echo "$BIN"; exit 0; fi
if ! command -v go >/dev/null 2>&1; then
  echo "[infra] FerretDB must be built with Go: install Go (https://go.dev/dl) and run again," >&2
  echo "        or set MONGO_URL to an existing MongoDB." >&2
  exit 1
fi
echo "[infra] building FerretDB $FERRETDB_VERSION with Go (first run only, ~3-5 min)..." >&2
WORK="$(mktemp -d)"
trap 'chmod -R u+w "$WORK" 2>/dev/null; rm -rf "$WORK"' EXIT
cd "$WORK"
DIR="$(GOFLAGS=-mod=mod go mod download -json "github.com/FerretDB/FerretDB@$FERRETDB_VERSION" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",\{0,1\}$/\1/p')"
if [ -z "$DIR" ] || [ ! -d "$DIR" ]; then echo "[infra] could not download the FerretDB module" >&2; exit 1; fi
cp -R "$DIR" src
chmod -R u+w src
cd src
printf '%s' "$FERRETDB_VERSION" > build/version/version.txt
METADATA=internal/backends/sqlite/metadata/metadata.go
sed -i "s|IDColumn = DefaultColumn + \"->'\$._id'\"|IDColumn = DefaultColumn + \"->\\\\\"_id\\\\\"\"|" "$METADATA"
if ! grep -q 'IDColumn = DefaultColumn + "->\\"_id\\""' "$METADATA"; then
  echo "[infra] could not patch FerretDB's _id lookup in $METADATA (FerretDB version changed?)" >&2
  exit 1
fi
mkdir -p "$BIN_DIR"
# -checklinkname=0: FerretDB's dependencies use go:linkname references newer Go linkers reject.
CGO_ENABLED=0 go build -trimpath -ldflags=-checklinkname=0 -o "$BIN.tmp" ./cmd/ferretdb >&2
mv "$BIN.tmp" "$BIN"
echo "[infra] FerretDB ready at $BIN" >&2
echo "$BIN"
