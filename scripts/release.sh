#!/usr/bin/env bash
# Release builds: one archive per OS and architecture holding the two static
# binaries (the server and its replication sidecar), with SHA-256 checksums,
# from one command and without network access (the module cache must
# already hold the dependencies: `go mod download` once).
#
#   scripts/release.sh [VERSION] [OUTDIR]
#
# VERSION defaults to `git describe --tags --always --dirty`; OUTDIR to
# dist/. Set TARGETS="linux/amd64 ..." to build a subset (CI compiles all).
# Each archive is mcp-sqlite-memory_<version>_<os>_<arch>.tar.gz, a folder of
# that name holding mcp-sqlite-memory and mcp-sqlite-memory-replicate (.exe
# on Windows, whose tar unpacks it too); the server finds the sidecar beside
# itself, so keep the two together. SHA256SUMS lists the archives in
# `sha256sum -c` format. The build is reproducible: no VCS stamp or local
# path, fixed archive times and owners, so the same source and VERSION give
# the same bytes (GNU tar).
set -euo pipefail
cd "$(dirname "$0")/.."

version="${1:-$(git describe --tags --always --dirty 2>/dev/null || echo dev)}"
out="${2:-dist}"
targets="${TARGETS:-linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64}"

case "$version" in
  *[!A-Za-z0-9._+-]*) echo "release.sh: version $version may hold only letters, digits and . _ + -" >&2; exit 2 ;;
esac

mkdir -p "$out"
rm -f "$out"/mcp-sqlite-memory_* "$out"/SHA256SUMS
export CGO_ENABLED=0 GOFLAGS=-mod=readonly GOPROXY=off GOTOOLCHAIN=local
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
for target in $targets; do
  goos="${target%/*}" goarch="${target#*/}"
  name="mcp-sqlite-memory_${version}_${goos}_${goarch}"
  exe=""
  [ "$goos" = windows ] && exe=".exe"
  mkdir "$work/$name"
  for cmd in mcp-sqlite-memory mcp-sqlite-memory-replicate; do
    GOOS="$goos" GOARCH="$goarch" go build -trimpath -buildvcs=false -ldflags "-s -w -X main.version=$version" \
      -o "$work/$name/$cmd$exe" "./cmd/$cmd"
  done
  tar --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner -C "$work" -cf - "$name" | gzip -n -9 > "$out/$name.tar.gz"
  echo "built $out/$name.tar.gz"
done
(cd "$out" && sha256sum mcp-sqlite-memory_*.tar.gz > SHA256SUMS)
echo "checksums in $out/SHA256SUMS"
