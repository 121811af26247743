#!/usr/bin/env bash
# Measures the performance budgets of docs/performance.md and rewrites the summary at
# the top of docs/performance.md (between the bench markers).
#
#   bash bench/run.sh            full run: 5 repetitions, < 15 min on 2 cores,
#                                plus 10-20 min for the eval stage (3 repetitions)
#   bash bench/run.sh --smoke    small inputs, 1 repetition, < 1 min; leaves the doc alone
#   bash bench/run.sh --count 5  more repetitions
#   bash bench/run.sh --only compile,verify
#   bash bench/run.sh --only eval   agentlab eval next to promptfoo (bench/eval.sh)
#
# It builds agentlab and the benchmark driver (bench/cmd/agentlab-bench),
# generates every input under bench/out/work (nothing is downloaded but
# the eval stage's peer, promptfoo, which a full run installs once from npm
# into ~/.cache/agentlab-bench; the inputs are removed at the end), runs
# each measurement next to its floor, each side in its own process, and
# prints the table. CPU profiles and the table are kept in bench/out/
# (gitignored). The eval stage (bench/eval.sh) writes its own table between
# the bench-eval markers of docs/performance.md.
set -euo pipefail
cd "$(dirname "$0")/.."

smoke=0
count=""
only=""
args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --smoke) smoke=1; args+=(-smoke) ;;
    --count) count=$2; args+=(-count "$2"); shift ;;
    --only) only=$2; shift ;;
    --profiles) args+=(-profiles "$2"); shift ;;
    -h|--help) sed -n '2,19p' "$0"; exit 0 ;;
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
# The eval stage is bench/eval.sh (it measures whole commands, next to a
# peer from npm); every other stage is the driver's.
eval_stage=1
rest=()
if [ -n "$only" ]; then
  eval_stage=0
  rest=()
  IFS=, read -ra names <<<"$only"
  for s in "${names[@]}"; do
    if [ "$s" = eval ]; then eval_stage=1; else rest+=("$s"); fi
  done
  if [ "${#rest[@]}" -gt 0 ]; then
    args+=(-only "$(IFS=,; echo "${rest[*]}")")
  fi
fi
if [ -z "$only" ] || [ "${#rest[@]}" -gt 0 ]; then
  AGENTLAB_BIN="$PWD/$out/agentlab" "$out/agentlab-bench" -out "$out" "${doc[@]}" "${args[@]}"
fi
if [ "$eval_stage" = 1 ]; then
  eargs=()
  if [ "$smoke" = 1 ]; then eargs+=(--smoke); else eargs+=(--doc docs/performance.md); fi
  if [ -n "$count" ]; then eargs+=(--count "$count"); fi
  bash bench/eval.sh "$out" "$PWD/$out/agentlab" "${eargs[@]}"
fi
