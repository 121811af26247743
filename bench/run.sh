#!/usr/bin/env bash
# Measures the performance budgets of docs/performance.md and rewrites the summary at
# the top of docs/performance.md (between the bench markers).
#
#   bash bench/run.sh            full run: 5 repetitions, < 15 min on 2 cores,
#                                plus 10-20 min for the eval stage (3 repetitions)
#   bash bench/run.sh --smoke    small inputs, 1 repetition, < 1 min; leaves the doc alone
#   bash bench/run.sh --count 5  more repetitions
#   bash bench/run.sh --only compile,verify
#   bash bench/run.sh --only retrieval   retrieval quality only (seconds)
#   bash bench/run.sh --only eval   agentlab eval next to promptfoo (bench/eval.sh)
#   bash bench/run.sh --only memory   verify's peak memory only
#
# After the table it measures verify's peak memory against the size of a
# large run directory and of its bundle (agentlab-bench memory).
#
# It builds agentlab and the benchmark driver (bench/cmd/agentlab-bench),
# generates every input under bench/out/work (nothing is downloaded but
# two peers that a full run installs once into ~/.cache/agentlab-bench:
# promptfoo from npm for the eval stage, actionlint from the Go module proxy
# for the start-up stages; the inputs are removed at the end), runs
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
    -h|--help) sed -n '2,25p' "$0"; exit 0 ;;
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

# actionlint (a Go linter of GitHub workflows, run in pre-commit hooks) is
# the floor of the start-up stages. Full runs install the pinned release
# into a cache outside the repository (needs the Go module proxy); smoke
# runs only use it when it is already there, since they must not need the
# network. Without it the start-up stages are left out, with a note.
actionlint_version=v1.7.12
bench_cache="${XDG_CACHE_HOME:-$HOME/.cache}/agentlab-bench"
actionlint="$bench_cache/bin/actionlint"
have_actionlint() { [ -x "$actionlint" ] && "$actionlint" -version 2>/dev/null | head -1 | grep -qx "$actionlint_version"; }
if ! have_actionlint && [ "$smoke" = 0 ]; then
  echo "installing actionlint $actionlint_version into $bench_cache/bin (start-up floor)…"
  mkdir -p "$bench_cache/bin"
  GOBIN="$bench_cache/bin" timeout 600 go install "github.com/rhysd/actionlint/cmd/actionlint@$actionlint_version" >/dev/null 2>&1 \
    || echo "note: could not install actionlint $actionlint_version (is the Go module proxy reachable?); the start-up stages are left out" >&2
fi
if have_actionlint; then
  export ACTIONLINT_BIN="$actionlint"
else
  unset ACTIONLINT_BIN
  echo "note: actionlint $actionlint_version is not installed in $bench_cache/bin; the start-up stages are left out"
fi


# The retrieval stage is not timed: it measures ranking quality (recall@5,
# MRR) on the labelled corpus under bench/testdata/retrieval and writes its
# own section of docs/performance.md. --only splits between it and the
# timed stages of the driver.
run_timed=1
run_retrieval=1
if [ -n "$only" ]; then
  rest=$(echo "$only" | tr ',' '\n' | grep -vx 'retrieval' | paste -sd, - || true)
  case ",$only," in *,retrieval,*) ;; *) run_retrieval=0 ;; esac
  if [ -n "$rest" ]; then args+=(-only "$rest"); else run_timed=0; fi
fi

doc=()
if [ "$smoke" = 0 ]; then
  doc=(-doc docs/performance.md)
fi

# --only splits between the driver's timed stages, the retrieval quality
# stage (not timed: recall@5 and MRR on the labelled corpus under
# bench/testdata/retrieval, its own section of docs/performance.md) and the
# eval stage (bench/eval.sh: whole commands next to a peer from npm, its
# own table between the bench-eval markers).
run_timed=1
run_retrieval=1
run_eval=1
run_memory=1
if [ -n "$only" ]; then
  run_timed=0 run_retrieval=0 run_eval=0 run_memory=0
  rest=()
  IFS=, read -ra names <<<"$only"
  for s in "${names[@]}"; do
    case "$s" in
      eval) run_eval=1 ;;
      retrieval) run_retrieval=1 ;;
      memory) run_memory=1 ;;
      *) rest+=("$s") ;;
    esac
  done
  if [ "${#rest[@]}" -gt 0 ]; then
    run_timed=1
    args+=(-only "$(IFS=,; echo "${rest[*]}")")
  fi
fi

if [ "$run_timed" = 1 ] || [ "$run_eval" = 1 ]; then
  echo "building agentlab and the benchmark driver…"
  # Built as the README builds it: static (CGO_ENABLED=0), which the start-up
  # stages measure.
  CGO_ENABLED=0 go build -o "$out/agentlab" ./cmd/agentlab
  go build -o "$out/agentlab-bench" ./bench/cmd/agentlab-bench
fi
if [ "$run_timed" = 1 ]; then
  AGENTLAB_BIN="$PWD/$out/agentlab" "$out/agentlab-bench" -out "$out" "${doc[@]}" "${args[@]}"
fi
if [ "$run_retrieval" = 1 ]; then
  echo "retrieval quality on the labelled corpus…"
  go build -o "$out/retrieval-quality" ./bench/cmd/retrieval-quality
  "$out/retrieval-quality" "${doc[@]}" | tee "$out/retrieval.md"
fi
if [ "$run_eval" = 1 ]; then
  eargs=()
  if [ "$smoke" = 1 ]; then eargs+=(--smoke); else eargs+=(--doc docs/performance.md); fi
  if [ -n "$count" ]; then eargs+=(--count "$count"); fi
  bash bench/eval.sh "$out" "$PWD/$out/agentlab" "${eargs[@]}"
fi

# verify's memory: peak RSS of `agentlab verify` on a 128 MiB run directory
# and on its bundle.html, against their sizes; over 2x fails the run. The
# smoke run's 8 MiB input is smaller than the Go runtime's own footprint,
# so it only shows the figures.
if [ "$run_memory" = 1 ]; then
  [ -x "$out/agentlab-bench" ] || { CGO_ENABLED=0 go build -o "$out/agentlab" ./cmd/agentlab && go build -o "$out/agentlab-bench" ./bench/cmd/agentlab-bench; }
  echo "measuring verify's peak memory…"
  if [ "$smoke" = 0 ]; then
    AGENTLAB_BIN="$PWD/$out/agentlab" "$out/agentlab-bench" memory -out "$out" -mib 128 -max-ratio 2
  else
    AGENTLAB_BIN="$PWD/$out/agentlab" "$out/agentlab-bench" memory -out "$out" -mib 8 -max-ratio 0
  fi
fi
