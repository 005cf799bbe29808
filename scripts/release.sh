#!/usr/bin/env bash
# Release builds, from one command: per OS and architecture an archive
# holding the two static binaries (the server and its replication sidecar)
# with LICENSE and README.md, an npm package carrying the binaries, and an
# MCP Bundle for Claude Desktop; the mcp-sqlite-memory npm package, whose
# launcher runs the platform's binary; server.json for the MCP registry; and
# SHA-256 checksums of it all.
#
#   scripts/release.sh [VERSION] [OUTDIR]
#
# VERSION defaults to `git describe --tags --always --dirty`; OUTDIR to
# dist/. Set TARGETS="linux/amd64 ..." to build a subset (CI builds all).
# Each archive is mcp-sqlite-memory_<version>_<os>_<arch>.tar.gz, a folder of
# that name holding mcp-sqlite-memory and mcp-sqlite-memory-replicate (.exe
# on Windows, whose tar unpacks it too), LICENSE and README.md; the server
# finds the sidecar beside itself, so keep the two together. Beside it,
# mcp-sqlite-memory_<version>_<os>_<arch>.mcpb is the bundle and
# mcp-sqlite-memory-<platform>-<arch>-<npm version>.tgz the npm package
# (Node.js names: linux, darwin, win32; x64, arm64), and
# mcp-sqlite-memory-<npm version>.tgz is the package to install
# (scripts/packaging writes them; npm pack packs them). The npm version is
# VERSION without its leading v, or 0.0.0-VERSION when VERSION is not a
# semantic version. SHA256SUMS lists every file in `sha256sum -c` format.
#
# The build is reproducible: no VCS stamp or local path, fixed file times
# and owners, so the same source and VERSION give the same bytes (GNU tar,
# and the same npm). It needs the Go module cache to hold the dependencies,
# which it fetches first (`go mod download`), and npm; then it runs offline.
set -euo pipefail
cd "$(dirname "$0")/.."

version="${1:-$(git describe --tags --always --dirty 2>/dev/null || echo dev)}"
out="${2:-dist}"
targets="${TARGETS:-linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64}"

case "$version" in
  *[!A-Za-z0-9._+-]*) echo "release.sh: version $version may hold only letters, digits and . _ + -" >&2; exit 2 ;;
esac

# Everything the build needs, before building anything: the modules (with
# network access once; offline after that) and npm.
if ! go mod download >/dev/null; then
  echo "release.sh: the Go module cache lacks modules this build needs and they could not be fetched;" >&2
  echo "  run \`go mod download\` where the module proxy is reachable, then run release.sh again" >&2
  exit 1
fi
if ! command -v npm >/dev/null 2>&1; then
  echo "release.sh: npm packs the npm packages: install Node.js 18 or later with npm (Debian: apt-get install -y npm), then run release.sh again" >&2
  exit 1
fi

mkdir -p "$out"
out_abs="$(cd "$out" && pwd)"
rm -f "$out"/mcp-sqlite-memory_* "$out"/mcp-sqlite-memory-*.tgz "$out"/server.json "$out"/SHA256SUMS
export CGO_ENABLED=0 GOFLAGS=-mod=readonly GOPROXY=off GOTOOLCHAIN=local
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir "$work/stage"
for target in $targets; do
  goos="${target%/*}" goarch="${target#*/}"
  name="mcp-sqlite-memory_${version}_${goos}_${goarch}"
  exe=""
  [ "$goos" = windows ] && exe=".exe"
  mkdir "$work/stage/$name"
  for cmd in mcp-sqlite-memory mcp-sqlite-memory-replicate; do
    GOOS="$goos" GOARCH="$goarch" go build -trimpath -buildvcs=false -ldflags "-s -w -X main.version=$version" \
      -o "$work/stage/$name/$cmd$exe" "./cmd/$cmd"
  done
  cp LICENSE README.md "$work/stage/$name/"
  chmod 644 "$work/stage/$name/LICENSE" "$work/stage/$name/README.md"
  tar --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner -C "$work/stage" -cf - "$name" | gzip -n -9 > "$out/$name.tar.gz"
  echo "built $out/$name.tar.gz"
done

# The npm packages, the bundles and server.json, from the same binaries.
go run ./scripts/packaging -version "$version" -stage "$work/stage" -npm "$work/npm" -out "$out"
for pkg in "$work"/npm/*/; do
  (cd "$pkg" && npm pack --ignore-scripts --silent --pack-destination "$out_abs" >/dev/null)
done
echo "packed $(cd "$out" && ls mcp-sqlite-memory-*.tgz | wc -l) npm packages into $out"

(cd "$out" && sha256sum mcp-sqlite-memory_* mcp-sqlite-memory-*.tgz server.json > SHA256SUMS)
echo "checksums in $out/SHA256SUMS"
