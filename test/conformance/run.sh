#!/usr/bin/env bash
# Runs the official MCP conformance suite (npm @modelcontextprotocol/conformance)
# against the built server over Streamable HTTP: its latest release (npm tag
# latest) and its newest release, whose scenarios cover the 2026-07-28
# revision (stateless, no initialize), run for both revisions on the same
# /mcp. Then the TypeScript SDK's clients, 1.x and 2.x, connect in each
# protocol era (clients.mjs). Node >= 22, the suites and the SDKs are
# installed from npm into a temporary folder (no global installs). Scenarios
# that call the suite's own fixture tools, resources and prompts do not apply
# and are listed in expected-failures.yml (latest) and
# expected-failures-next.yml (newest); any other failing scenario, or a
# listed one that starts passing, fails the run.
set -euo pipefail
cd "$(dirname "$0")/../.."

SUITE_VERSION="${CONFORMANCE_VERSION:-0.1.16}"
# The newest release (a prerelease: the first with 2026-07-28 scenarios).
NEXT_VERSION="${CONFORMANCE_NEXT_VERSION:-0.2.0-alpha.12}"
TS_SDK1_VERSION="${TS_SDK1_VERSION:-1.32.2}"
TS_SDK2_VERSION="${TS_SDK2_VERSION:-2.4.0}"
NODE_VERSION="${CONFORMANCE_NODE_VERSION:-22}"
t0=$(date +%s)
stamp() { echo "conformance: $1 ($(( $(date +%s) - t0 )) s)"; }

if ! command -v npm >/dev/null 2>&1; then
  apt-get update && apt-get install -y npm
fi
work=$(mktemp -d)
server_pid=""
cleanup() {
  if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

# The Inspector version the README's check command pins, so npx finds it
# installed below and runs the command as written.
readme_inspector=$(sed -n 's/^npx -y @modelcontextprotocol\/inspector@\([0-9.]*\) --cli mcp-sqlite-memory.*/\1/p' README.md | head -n 1)
INSPECTOR_VERSION="${INSPECTOR_VERSION:-${readme_inspector:-2.12.0}}"
(cd "$work" && npm init -y >/dev/null && npm install --no-audit --no-fund --loglevel=error \
  "node@$NODE_VERSION" "@modelcontextprotocol/conformance@$SUITE_VERSION" \
  "@modelcontextprotocol/inspector@$INSPECTOR_VERSION" \
  "@modelcontextprotocol/sdk@$TS_SDK1_VERSION" "@modelcontextprotocol/client@$TS_SDK2_VERSION" >/dev/null)
# The newest suite in a folder of its own: both releases name their command
# "conformance".
mkdir "$work/next"
(cd "$work/next" && npm init -y >/dev/null && npm install --no-audit --no-fund --loglevel=error \
  "@modelcontextprotocol/conformance@$NEXT_VERSION" >/dev/null)
export PATH="$work/node_modules/.bin:$PATH"
stamp "installed node $(node --version), @modelcontextprotocol/conformance@$SUITE_VERSION and @$NEXT_VERSION, the TypeScript SDK $TS_SDK1_VERSION and client $TS_SDK2_VERSION"

go build -o "$work/mcp-sqlite-memory" ./cmd/mcp-sqlite-memory
stamp "built the server"

"$work/mcp-sqlite-memory" --db "$work/conformance.db" --http 127.0.0.1:0 2>"$work/server.log" &
server_pid=$!
addr=""
for _ in $(seq 1 200); do
  addr=$(sed -n 's/.*msg="serving over HTTP" addr=\([^ ]*\).*/\1/p' "$work/server.log" | head -n 1)
  [ -n "$addr" ] && break
  kill -0 "$server_pid" 2>/dev/null || { cat "$work/server.log"; echo "conformance: the server did not start" >&2; exit 1; }
  sleep 0.05
done
[ -n "$addr" ] || { cat "$work/server.log"; echo "conformance: the server did not report its address" >&2; exit 1; }
stamp "server listening on $addr"

status=0
conformance server --url "http://$addr/mcp" --expected-failures test/conformance/expected-failures.yml \
  -o "$work/results" || status=$?
stamp "suite $SUITE_VERSION finished with status $status"
for revision in 2026-07-28 2025-11-25; do
  [ "$status" -eq 0 ] || break
  "$work/next/node_modules/.bin/conformance" server --url "http://$addr/mcp" --requirements "$revision" \
    --expected-failures test/conformance/expected-failures-next.yml -o "$work/results-$revision" || status=$?
  stamp "suite $NEXT_VERSION, revision $revision, finished with status $status"
done
if [ "$status" -eq 0 ]; then
  # Module resolution starts at the script's folder: run a copy in $work.
  cp test/conformance/clients.mjs "$work/clients.mjs"
  # The tools the server declares: the constants of domain/tool.go, where
  # every tool name is spelled once.
  want_tools=$(grep -cE '^\s+Tool[A-Za-z]+\s*= "' domain/tool.go)
  WANT_TOOLS="$want_tools" node "$work/clients.mjs" "http://$addr/mcp" || status=$?
  stamp "the TypeScript SDK clients finished with status $status"
fi
if [ "$status" -ne 0 ]; then
  echo "--- server log ---"; cat "$work/server.log"
  exit "$status"
fi

# README's Inspector command (under Install), word for word but for its
# database path, over stdio:
# the Inspector's CLI (installed above, so npx finds it offline) must list
# every tool of the server on PATH.
check=$(grep -m1 '^npx -y @modelcontextprotocol/inspector@[0-9.]* --cli mcp-sqlite-memory' README.md)
[ -n "$check" ] || { echo "conformance: README has no Inspector check command" >&2; exit 1; }
check=${check//\/tmp\/x.db/$work\/inspector.db}
out=$(cd "$work" && PATH="$work:$PATH" bash -c "$check")
tools=$(printf '%s' "$out" | grep -c '"name": "' || true)
stamp "README's Inspector check listed $tools tool names"
for tool in read_query write_query destructive_query list_tables describe_table get_schema create_view \
  append_event checkpoint get_resume_context verify_chain search_text snapshot; do
  printf '%s' "$out" | grep -q "\"name\": \"$tool\"" || { echo "conformance: the Inspector check did not list $tool" >&2; exit 1; }
done
