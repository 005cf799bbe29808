#!/usr/bin/env bash
# Release builds: one static binary per OS and architecture, with SHA-256
# checksums, from one command and without network access (the module cache
# must already hold the dependencies: `go mod download` once).
#
#   scripts/release.sh [VERSION] [OUTDIR]
#
# VERSION defaults to `git describe --tags --always --dirty`; OUTDIR to
# dist/. Set TARGETS="linux/amd64 ..." to build a subset (CI compiles all).
# Each archive-free binary is named mcp-sqlite-memory_<version>_<os>_<arch>
# (.exe on Windows); SHA256SUMS lists them in `sha256sum -c` format. The
# build is reproducible: no VCS stamp or local path, so the same source and
# VERSION give the same bytes.
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
for target in $targets; do
  goos="${target%/*}" goarch="${target#*/}"
  name="mcp-sqlite-memory_${version}_${goos}_${goarch}"
  [ "$goos" = windows ] && name="$name.exe"
  GOOS="$goos" GOARCH="$goarch" go build -trimpath -buildvcs=false -ldflags "-s -w -X main.version=$version" \
    -o "$out/$name" ./cmd/mcp-sqlite-memory
  echo "built $out/$name"
done
(cd "$out" && sha256sum mcp-sqlite-memory_* > SHA256SUMS)
echo "checksums in $out/SHA256SUMS"
