#!/usr/bin/env bash
# Runs every fuzz target for a few seconds so none of them rots. A target
# fails the smoke when the fuzzer finds an input (it writes it under
# testdata/fuzz/); an end-of-time hiccup of the fuzzing engine itself
# ("context deadline exceeded" with no failing input) is retried once and
# then reported as a warning.
set -euo pipefail
cd "$(dirname "$0")/.."
secs="${FUZZ_SECONDS:-5}"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
run_target() {
  go test -run '^$' -fuzz "^$2\$" -fuzztime "${secs}s" -fuzzminimizetime 2s "$1" >"$log" 2>&1
}
for pkg in $(go list ./...); do
  dir=$(go list -f '{{.Dir}}' "$pkg")
  for target in $(grep -ho '^func Fuzz[A-Za-z0-9_]*' "$dir"/*_test.go 2>/dev/null | sed 's/^func //' | sort -u); do
    echo "fuzz $pkg $target (${secs}s)"
    if run_target "$pkg" "$target"; then continue; fi
    if grep -q 'Failing input written to' "$log"; then cat "$log"; exit 1; fi
    echo "  retrying $target: the fuzzer stopped without a failing input"
    if run_target "$pkg" "$target"; then continue; fi
    if grep -q 'Failing input written to' "$log"; then cat "$log"; exit 1; fi
    if grep -q 'context deadline exceeded' "$log"; then
      echo "  warning: $target: the fuzzing engine timed out twice without a failing input"
      continue
    fi
    cat "$log"; exit 1
  done
done
