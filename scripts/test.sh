#!/usr/bin/env bash
# The test command (README, "Test it"; .ci/run runs it word for word).
# Every part runs whatever the parts before it did, so one failure hides
# no other result; the script fails at the end, naming each part that
# failed.
set -uo pipefail
cd "$(dirname "$0")/.."

failed=()
part() {
  echo "==> $*"
  if ! "$@"; then
    failed+=("$*")
  fi
}

part go vet ./...
part go test -race -count=1 -timeout 25m ./...
part go test -run '^$' -fuzz '^FuzzPolicy$' -fuzztime 3m -fuzzminimizetime 5s ./test/attack
part go test -run '^$' -fuzz '^FuzzFrames$' -fuzztime 45s -fuzzminimizetime 5s ./adapters/mcpserver/frame

if ((${#failed[@]})); then
  printf 'FAILED: %s\n' "${failed[@]}" >&2
  exit 1
fi
echo "==> every part passed"
