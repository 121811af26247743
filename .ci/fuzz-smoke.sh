#!/usr/bin/env bash
# Runs every fuzz target for a few seconds so none of them rots.
set -euo pipefail
cd "$(dirname "$0")/.."
secs="${FUZZ_SECONDS:-5}"
for pkg in $(go list ./...); do
  dir=$(go list -f '{{.Dir}}' "$pkg")
  for target in $(grep -ho '^func Fuzz[A-Za-z0-9_]*' "$dir"/*_test.go 2>/dev/null | sed 's/^func //' | sort -u); do
    echo "fuzz $pkg $target (${secs}s)"
    go test -run '^$' -fuzz "^${target}\$" -fuzztime "${secs}s" -fuzzminimizetime 2s "$pkg" >/tmp/fuzz.log 2>&1 || { cat /tmp/fuzz.log; exit 1; }
  done
done
