#!/usr/bin/env bash
# The figures the layout is kept to, printed with their budgets:
#   - non-test Go lines per package (a package's own folder, not its
#     sub-packages: adapters/sqlite without adapters/sqlite/engine,
#     adapters/mcpserver without adapters/mcpserver/frame);
#   - README.md and ARCHITECTURE.md lines;
#   - back-up arrows: imports from an inner layer to an outer one (domain
#     importing anything of the module, ports importing app, adapters or
#     cmd, app importing adapters or cmd, an engine sub-package
#     (adapters/sqlite/engine, adapters/mcpserver/frame) importing anything
#     of its adapter). A feature sub-package built over its adapter's core
#     (adapters/sqlite/memory over adapters/sqlite, streamhttp over
#     mcpserver) points inward, so it is no arrow
#     (docs/decisions.md#the-sqlite-adapters-packages).
# Line budgets are figures: over budget is printed, never a failure. The
# arrows are fences: any arrow makes the script exit 1. Run it as
# `scripts/measure.sh` (docs/testing.md).
set -euo pipefail
cd "$(dirname "$0")/.."

module="$(go list -m)"

# budget_of PACKAGE prints the package's line budget, or nothing.
budget_of() {
  case "$1" in
    adapters/sqlite) echo 3800 ;;
    adapters/mcpserver) echo 1800 ;;
  esac
}

echo "Non-test lines per package (budgets where set):"
over=0
while read -r dir; do
  rel="${dir#"$PWD"}"
  rel="${rel#/}"
  [ -n "$rel" ] || rel="."
  files=$(find "$dir" -maxdepth 1 -name '*.go' ! -name '*_test.go')
  [ -n "$files" ] || continue
  # shellcheck disable=SC2086 # one word per file name; none has spaces
  n=$(cat $files | wc -l)
  b=$(budget_of "$rel")
  if [ -n "$b" ]; then
    mark="within"
    if [ "$n" -gt "$b" ]; then mark="OVER"; over=$((over + 1)); fi
    printf '  %6d  %-40s budget %d (%s)\n' "$n" "$rel" "$b" "$mark"
  else
    printf '  %6d  %s\n' "$n" "$rel"
  fi
done < <(go list -f '{{.Dir}}' ./...)

echo "Documents:"
for doc in README.md:350 ARCHITECTURE.md:300; do
  f="${doc%%:*}" b="${doc##*:}"
  n=$(wc -l < "$f")
  mark="within"
  if [ "$n" -gt "$b" ]; then mark="OVER"; over=$((over + 1)); fi
  printf '  %6d  %-40s budget %d (%s)\n' "$n" "$f" "$b" "$mark"
done

# arrow FROM TO prints "FROM -> TO" when FROM importing TO points outward.
arrow() {
  local from="$1" to="$2"
  case "$to" in "$module" | "$module"/*) ;; *) return 0 ;; esac
  from="${from#"$module"/}" to="${to#"$module"/}"
  local back=""
  case "$from" in
    domain | domain/*) back=1 ;;
    ports | ports/*) case "$to" in app | app/* | adapters/* | cmd/*) back=1 ;; esac ;;
    app | app/*) case "$to" in adapters/* | cmd/*) back=1 ;; esac ;;
    adapters/sqlite/engine | adapters/mcpserver/frame)
      # an engine under its adapter: the adapter builds on it, never back
      local parent="${from%/*}"
      case "$to" in "$parent" | "$parent"/*) back=1 ;; esac ;;
  esac
  if [ -n "$back" ]; then echo "  $from -> $to"; fi
}

echo "Back-up arrows (imports from an inner layer to an outer one; budget 0):"
arrows=$(go list -f '{{.ImportPath}}{{range .Imports}} {{.}}{{end}}' ./... | while read -r pkg imports; do
  for imp in $imports; do arrow "$pkg" "$imp"; done
done)
count=0
if [ -n "$arrows" ]; then
  echo "$arrows"
  count=$(printf '%s\n' "$arrows" | wc -l)
fi
printf '  %6d  back-up arrows\n' "$count"
printf 'Over a line budget: %d (a figure, not a failure)\n' "$over"
if [ "$count" -gt 0 ]; then
  echo "measure: $count import(s) point from an inner layer outward; invert them through a port" >&2
  exit 1
fi
