#!/usr/bin/env bash
# The linters .ci/run runs: staticcheck and deadcode, pinned, fetched with
# `go run pkg@version` from the Go module proxy (nothing to install first).
# Any finding fails. Run it locally as `scripts/lint.sh`.
set -euo pipefail
cd "$(dirname "$0")/.."

staticcheck="honnef.co/go/tools/cmd/staticcheck@v0.8.2"
# deadcode ships in golang.org/x/tools; the version go.mod already requires.
deadcode="golang.org/x/tools/cmd/deadcode@v0.52.0"
module="$(go list -m)"

# staticcheck with every check (-checks all), as staticcheck.conf says:
# the checks come from that file, not from a -checks flag, which would
# override the file and with it any exception it records with its reason.
# A single deliberate exception is a //lint:ignore or //lint:file-ignore
# directive with its reason, next to the code.
go run "$staticcheck" ./...

# deadcode exits 0 whatever it finds, so its output is the verdict.
fail=0
report() { # report <what> <findings>
  if [ -n "$2" ]; then
    printf 'deadcode (%s):\n%s\n' "$1" "$2" >&2
    fail=1
  fi
}
# 1. What ships: every function in the packages the programs link is
#    reachable from a main. A helper only tests call moves into a _test.go
#    file (export_test.go for an external test package) or goes. Packages
#    no program links (test support, such as fakes) are left to check 2.
shipped="$(go list -deps ./cmd/... | grep -E "^$module(/|\$)" | sed 's/[.]/[.]/g' | paste -sd'|' -)"
report "shipped code only tests use" "$(go run "$deadcode" \
  -filter "^($shipped)\$" ./...)"
# 2. Test support: with the tests as roots, nothing anywhere is unused,
#    the helper packages under test/ included.
report "code nothing uses, tests included" "$(go run "$deadcode" -test \
  -filter "^$module(/|\$)" ./...)"
exit "$fail"
