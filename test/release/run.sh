#!/usr/bin/env bash
# Checks a release (the output folder of scripts/release.sh, the first
# argument) with the tools its users have:
# - the official MCP Bundle CLI (npm @anthropic-ai/mcpb, installed with
#   Node 22 into a temporary folder) unpacks every bundle, validates its
#   manifest and packs the unpacked folder again;
# - this machine's npm packages are installed from their tarballs into a
#   clean folder, offline (our packages are not on the registry), and
#   TestNpxHandshake completes an MCP handshake through npx;
# - TestReleaseAgrees and TestServerJSONValidates check the release itself:
#   every package, bundle and archive against the others and release.sh.
set -euo pipefail
cd "$(dirname "$0")/../.."
[ $# -eq 1 ] && [ -d "$1" ] || { echo "usage: test/release/run.sh DIST (the output folder of scripts/release.sh)" >&2; exit 2; }
dist="$(cd "$1" && pwd)"

MCPB_VERSION="${MCPB_VERSION:-2.1.2}"
NODE_VERSION="${RELEASE_NODE_VERSION:-22}"
t0=$(date +%s)
stamp() { echo "release check: $1 ($(( $(date +%s) - t0 )) s)"; }

if ! command -v npm >/dev/null 2>&1; then
  apt-get update && apt-get install -y npm
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

mkdir "$work/tools"
(cd "$work/tools" && npm init -y >/dev/null && npm install --no-audit --no-fund --loglevel=error \
  "node@$NODE_VERSION" "@anthropic-ai/mcpb@$MCPB_VERSION" >/dev/null)
export PATH="$work/tools/node_modules/.bin:$PATH"
stamp "installed node $(node --version) and @anthropic-ai/mcpb@$(mcpb --version)"

bundles=0
for bundle in "$dist"/*.mcpb; do
  base=$(basename "$bundle" .mcpb)
  mcpb unpack "$bundle" "$work/bundles/$base" >/dev/null
  mcpb validate "$work/bundles/$base/manifest.json" >/dev/null || {
    mcpb validate "$work/bundles/$base/manifest.json"; echo "release check: $base's manifest is invalid" >&2; exit 1; }
  mcpb pack "$work/bundles/$base" "$work/repacked/$base.mcpb" >/dev/null || {
    echo "release check: mcpb cannot pack $base's contents" >&2; exit 1; }
  bundles=$((bundles + 1))
done
[ "$bundles" -gt 0 ] || { echo "release check: no .mcpb in $dist" >&2; exit 1; }
stamp "mcpb unpacked, validated and packed $bundles bundles"

platform=$(node -p 'process.platform + "-" + process.arch')
main=$(ls "$dist"/mcp-sqlite-memory-[0-9]*.tgz)
own=$(ls "$dist"/mcp-sqlite-memory-"$platform"-[0-9]*.tgz)
mkdir "$work/install"
(cd "$work/install" && npm init -y >/dev/null && npm install --offline --no-audit --no-fund --loglevel=error "$main" "$own" >/dev/null)
stamp "installed $(basename "$main") and $(basename "$own") from their tarballs"

# README's npm install command, word for word but for the version and
# platform (and a prefix, so that it installs into the temporary folder):
# the command it puts on PATH runs the server.
check=$(grep -o 'npm install -g --offline [^`]*' README.md | head -n 1)
[ -n "$check" ] || { echo "release check: README has no npm install -g --offline command" >&2; exit 1; }
readme_version=$(printf '%s' "$check" | sed -n 's/.*mcp-sqlite-memory-\([0-9][^ ]*\)\.tgz.*/\1/p' | head -n 1)
version=$(basename "$main" .tgz); version=${version#mcp-sqlite-memory-}
check=${check//$readme_version/$version}
check=${check//linux-x64/$platform}
(cd "$dist" && bash -c "$check --prefix '$work/global' --no-audit --no-fund --loglevel=error" >/dev/null)
"$work/global/bin/mcp-sqlite-memory" --version | grep -q '^mcp-sqlite-memory ' || {
  echo "release check: README's npm install did not put a working mcp-sqlite-memory on PATH" >&2; exit 1; }
stamp "README's npm install command works: $check"

RELEASE_DIST="$dist" RELEASE_NPM_PREFIX="$work/install" \
  go test -count=1 -run '^(TestReleaseAgrees|TestServerJSONValidates|TestNpxHandshake)$' ./test/release/
stamp "the release agrees with itself and serves MCP through npx"
