#!/usr/bin/env bash
# Installs the npm peers the side-by-side benchmark compares with into a
# temporary folder (nothing is kept in the repository) and runs the stdio
# and HTTP figures with them: mcp-sqlite (its command is
# mcp-sqlite-server) and mcp-server-sqlite-npx (both use the sqlite3 npm
# package, whose native build npm 11 runs only when approved), and dbhub
# (@bytebase/dbhub, on Node's own node:sqlite, which needs Node 22: it
# gets a folder of its own with the node@22 package and runs on that;
# it is also the HTTP peer, in both protocol eras, through
# MCP_SQLITE_BENCH_HTTP_PEERS); then the memory rows against the official
# memory server (@modelcontextprotocol/server-memory). Needs Node.js and npm.
# Usage: scripts/bench-peers.sh [bench flags, e.g. -short]
set -euo pipefail
cd "$(dirname "$0")/.."
peers=$(mktemp -d)
trap 'rm -rf "$peers"' EXIT
(
	cd "$peers"
	npm init -y >/dev/null
	npm install --no-fund --no-audit mcp-sqlite@1.0.9 mcp-server-sqlite-npx@0.8.0 @modelcontextprotocol/server-memory@2026.8.31 >/dev/null
	# npm 11 skips install scripts until approved; older npm runs them.
	npm install-scripts approve sqlite3 >/dev/null 2>&1 || true
	npm rebuild sqlite3 >/dev/null
)
dbhub="$peers/dbhub"
mkdir "$dbhub"
(
	cd "$dbhub"
	npm init -y >/dev/null
	npm install --no-fund --no-audit node@22.23.3 @bytebase/dbhub@1.4.0 >/dev/null
	# The node package fetches its platform's build (an npm package) in
	# an install script.
	npm install-scripts approve node >/dev/null 2>&1 || true
	npm rebuild node >/dev/null
)
export PATH="$peers/node_modules/.bin:$PATH"
dbhub_cmd="$dbhub/node_modules/.bin/node $dbhub/node_modules/@bytebase/dbhub/dist/index.js"
export MCP_SQLITE_BENCH_PEERS="mcp-sqlite=mcp-sqlite-server {db};mcp-server-sqlite-npx=mcp-server-sqlite-npx {db};dbhub=$dbhub_cmd --transport stdio --dsn sqlite://{db}"
# dbhub listens on 0.0.0.0 unless told; its endpoint is /mcp.
export MCP_SQLITE_BENCH_HTTP_PEERS="dbhub=$dbhub_cmd --transport http --host 127.0.0.1 --port {port} --dsn sqlite://{db}"
go run ./cmd/mcp-sqlite-memory-bench -stdio-only "$@"
# The memory rows: this server against the official memory server.
MCP_SQLITE_BENCH_MEMORY_PEER="$peers/node_modules/.bin/mcp-server-memory" go run ./cmd/mcp-sqlite-memory-bench -memory-only "$@"
