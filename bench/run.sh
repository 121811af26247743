#!/usr/bin/env bash
# Measures the performance budgets of docs/performance.md and rewrites the summary at
# the top of docs/performance.md (between the bench markers).
#
#   bash bench/run.sh            full run: 5 repetitions, < 15 min on 2 cores
#   bash bench/run.sh --smoke    small inputs, 1 repetition, < 1 min; leaves the doc alone
#   bash bench/run.sh --count 5  more repetitions
#   bash bench/run.sh --only compile,verify
#
# After the table it measures verify's peak memory against the size of a
# large run directory and of its bundle (agentlab-bench memory).
#
# It builds agentlab and the benchmark driver (bench/cmd/agentlab-bench),
# generates every input under bench/out/work (nothing is downloaded; the
# inputs are removed at the end), runs each measurement next to its floor,
# each side in its own process, and prints the table. CPU profiles and the
# table are kept in bench/out/ (gitignored).
set -euo pipefail
cd "$(dirname "$0")/.."

smoke=0
args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --smoke) smoke=1; args+=(-smoke) ;;
    --count) args+=(-count "$2"); shift ;;
    --only) args+=(-only "$2"); shift ;;
    --profiles) args+=(-profiles "$2"); shift ;;
    -h|--help) sed -n '2,17p' "$0"; exit 0 ;;
    *) echo "bench/run.sh: unknown argument $1 (try --help)" >&2; exit 2 ;;
  esac
  shift
done

export GOFLAGS="${GOFLAGS:--buildvcs=false}"
out=bench/out
mkdir -p "$out"

# b3sum is a reference for the store figure. Installing it needs apt and a
# package index, which takes longer than a smoke run may, so only full runs
# try; without it the table simply has no b3sum line.
if ! command -v b3sum >/dev/null 2>&1; then
  if [ "$smoke" = 0 ] && command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
    echo "installing b3sum (Debian package) for the store reference…"
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq b3sum >/dev/null) \
      || echo "note: could not install b3sum; the store figure is reported without it" >&2
  else
    echo "note: b3sum is not installed; the store figure is reported without it"
  fi
fi

echo "building agentlab and the benchmark driver…"
go build -o "$out/agentlab" ./cmd/agentlab
go build -o "$out/agentlab-bench" ./bench/cmd/agentlab-bench

doc=()
if [ "$smoke" = 0 ]; then
  doc=(-doc docs/performance.md)
fi
AGENTLAB_BIN="$PWD/$out/agentlab" "$out/agentlab-bench" -out "$out" "${doc[@]}" "${args[@]}"

# verify's memory: peak RSS of `agentlab verify` on a 128 MiB run directory
# and on its bundle.html, against their sizes; over 2x fails the run. The
# smoke run's 8 MiB input is smaller than the Go runtime's own footprint,
# so it only shows the figures.
echo "measuring verify's peak memory…"
if [ "$smoke" = 0 ]; then
  AGENTLAB_BIN="$PWD/$out/agentlab" "$out/agentlab-bench" memory -out "$out" -mib 128 -max-ratio 2
else
  AGENTLAB_BIN="$PWD/$out/agentlab" "$out/agentlab-bench" memory -out "$out" -mib 8 -max-ratio 0
fi
