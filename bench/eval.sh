#!/usr/bin/env bash
# The eval stage of bench/run.sh: `agentlab eval` over generated suites of
# 1,000 and 10,000 questions (a one-llm-node flow on the mock, a CSV
# source with one row per question, one `sql:` expectation per question
# that reads its row), next to promptfoo
# 0.110.0 running the same questions (its echo provider, one `contains`
# assertion each), alternately, each in its own process, timed with
# /usr/bin/time (wall, user + system CPU, peak RSS). Then one CPU and one
# block profile of agentlab at each size (AGENTLAB_CPUPROFILE,
# AGENTLAB_BLOCKPROFILE), kept in bench/out/ with their -top listings.
#
#   bash bench/eval.sh OUT_DIR AGENTLAB_BIN [--smoke] [--count N] [--sizes 1000,10000] [--doc FILE]
#
# bench/run.sh calls it; --smoke runs 50 questions once, without npm and
# without profiles. promptfoo is installed from npm into
# ${AGENTLAB_BENCH_CACHE:-~/.cache/agentlab-bench} (outside the
# repository) the first time; when npm cannot be reached the table says so
# and agentlab is measured alone. The table goes to OUT_DIR/eval.md and,
# with --doc, between the bench-eval markers of that file.
set -euo pipefail

out=$1
bin=$2
shift 2
smoke=0
count=3
doc=""
sizes=(1000 10000)
while [ $# -gt 0 ]; do
  case "$1" in
    --smoke) smoke=1 ;;
    --count) count=$2; shift ;;
    --doc) doc=$2; shift ;;
    --sizes) IFS=, read -ra sizes <<<"$2"; shift ;;
    *) echo "bench/eval.sh: unknown argument $1" >&2; exit 2 ;;
  esac
  shift
done

if [ "$smoke" = 1 ]; then
  sizes=(50)
  count=1
fi
out=$(cd "$out" && pwd)
work="$out/work-eval"
rm -rf "$work"
mkdir -p "$work"
trap 'rm -rf "$work"' EXIT

pfver=0.110.0
cache="${AGENTLAB_BENCH_CACHE:-$HOME/.cache/agentlab-bench}/promptfoo-$pfver"
peer=""
peer_note=""

# install_peer installs promptfoo once into the cache: npm install without
# its install scripts, then better-sqlite3's native module built against
# the system's Node headers.
install_peer() {
  if [ -x "$cache/node_modules/.bin/promptfoo" ] && [ -f "$cache/.built" ]; then
    peer="$cache/node_modules/.bin/promptfoo"
    return
  fi
  if ! command -v npm >/dev/null 2>&1; then
    peer_note="npm is not installed, so promptfoo was not measured"
    return
  fi
  echo "installing promptfoo $pfver into $cache…"
  mkdir -p "$cache"
  if ! (cd "$cache" && npm install "promptfoo@$pfver" --ignore-scripts --no-audit --no-fund >install.log 2>&1); then
    peer_note="npm could not install promptfoo $pfver (registry unreachable?), so it was not measured; see $cache/install.log"
    return
  fi
  if ! (cd "$cache/node_modules/better-sqlite3" && npx --yes node-gyp rebuild --release --nodedir=/usr >>"$cache/install.log" 2>&1); then
    peer_note="better-sqlite3 could not be built for promptfoo $pfver, so it was not measured; see $cache/install.log"
    return
  fi
  touch "$cache/.built"
  peer="$cache/node_modules/.bin/promptfoo"
}

# generate writes, under $work/n$1, the flow, its CSV, the suite and the
# promptfoo configuration of the same questions.
generate() {
  local n=$1 d="$work/n$1"
  mkdir -p "$d"
  cat >"$d/flow.yml" <<'EOF'
agentlab: 1
name: bench-eval
inputs:
  question: {type: string}
sources:
  sales: {kind: csv, path: sales.csv}
nodes:
  - id: answer
    type: llm
    prompt: "Question: {{ input.question }}"
    assign_to: answer
  - id: out
    type: output
    fields:
      answer: "{{ vars.answer }}"
edges:
  - answer -> out
EOF
  awk -v n="$n" 'BEGIN { print "id,value"; for (i = 0; i < n; i++) printf "%d,%d\n", i, 10000 + i }' >"$d/sales.csv"
  awk -v n="$n" 'BEGIN {
    print "eval: 1\nname: bench\nflow: flow.yml\nquestions:"
    for (i = 0; i < n; i++) printf "  - id: q%d\n    inputs: {question: \"What is %d?\"}\n    expect: {sql: \"SELECT value FROM sales WHERE id = %d\"}\n", i, 10000 + i, i
  }' >"$d/bench.eval.yml"
  awk -v n="$n" 'BEGIN {
    print "description: bench\nprompts:\n  - \"What is {{value}}?\"\nproviders:\n  - echo\ntests:"
    for (i = 0; i < n; i++) printf "  - vars: {value: \"%d\"}\n    assert:\n      - {type: contains, value: \"%d\"}\n", 10000 + i, 10000 + i
  }' >"$d/promptfooconfig.yaml"
}

# timed runs "$@" in $1 (a directory) under /usr/bin/time and prints
# "wall cpu rss_kib exit".
timed() {
  local dir=$1
  shift
  local t="$work/time.$$"
  local rc=0
  (cd "$dir" && /usr/bin/time -f '%e %U %S %M' -o "$t" "$@" >/dev/null 2>"$work/stderr.log") || rc=$?
  awk -v rc="$rc" '{ printf "%s %.2f %s %s\n", $1, $2 + $3, $4, rc }' "$t"
}

run_agentlab() {
  local d="$work/n$1"
  rm -rf "$d/.agentlab"
  timed "$d" env -u SOURCE_DATE_EPOCH "$bin" eval bench.eval.yml --format json
}

run_peer() {
  local d="$work/n$1" cfg
  cfg=$(mktemp -d "$work/pfcfg.XXXX")
  timed "$d" env PROMPTFOO_DISABLE_TELEMETRY=1 PROMPTFOO_DISABLE_UPDATE=1 PROMPTFOO_DISABLE_SHARING=1 \
    PROMPTFOO_CONFIG_DIR="$cfg" "$peer" eval -c promptfooconfig.yaml --no-cache --no-table --no-write
  rm -rf "$cfg"
}

median() { sort -g | awk '{ a[NR] = $1 } END { if (NR % 2) print a[(NR + 1) / 2]; else printf "%.2f\n", (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }

if [ "$smoke" = 0 ]; then
  install_peer
else
  peer_note="smoke run: promptfoo not measured"
fi
command -v /usr/bin/time >/dev/null || { echo "bench/eval.sh: /usr/bin/time is needed (Debian package time)" >&2; exit 1; }

declare -A res
for n in "${sizes[@]}"; do
  generate "$n"
  for rep in $(seq 1 "$count"); do
    r=$(run_agentlab "$n")
    res[a$n]+="$r"$'\n'
    printf '  rep %d/%d eval %6d questions' "$rep" "$count" "$n"
    echo "$r" | awk '{ printf "  agentlab %ss wall %ss cpu %d MiB exit %s", $1, $2, $3 / 1024, $4 }'
    if [ "${r##* }" != 0 ]; then
      echo; echo "bench/eval.sh: agentlab eval exited ${r##* } at $n questions:" >&2
      tail -5 "$work/stderr.log" >&2
      exit 1
    fi
    if [ -n "$peer" ]; then
      p=$(run_peer "$n")
      res[p$n]+="$p"$'\n'
      echo "$p" | awk '{ printf "   promptfoo %ss wall %ss cpu %d MiB exit %s", $1, $2, $3 / 1024, $4 }'
    fi
    echo
  done
done

# Profiles: one run of each size with both profiles on (not timed above).
profiles=()
if [ "$smoke" = 0 ]; then
  for n in "${sizes[@]}"; do
    d="$work/n$n"
    rm -rf "$d/.agentlab"
    (cd "$d" && AGENTLAB_CPUPROFILE="$out/cpu-eval-$n.pprof" AGENTLAB_BLOCKPROFILE="$out/block-eval-$n.pprof" \
      "$bin" eval bench.eval.yml --format json >/dev/null 2>&1) || true
    for k in cpu block; do
      go tool pprof -top -nodecount=40 "$bin" "$out/$k-eval-$n.pprof" >"$out/$k-eval-$n.top.txt" 2>/dev/null || true
      go tool pprof -top -cum -nodecount=60 "$bin" "$out/$k-eval-$n.pprof" >"$out/$k-eval-$n.cum.txt" 2>/dev/null || true
    done
    profiles+=("$n")
  done
fi

# The table.
table="$out/eval.md"
{
  echo "### Latest measurement"
  echo
  echo "Written by \`bench/run.sh\` (\`bench/eval.sh\`) on $(date -u '+%Y-%m-%d %H:%M UTC'): $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg) at the end; $count repetition(s), agentlab and promptfoo $pfver alternating, each in its own process; default data dir (\`./.agentlab\`, fsync on), default \`--parallel\`. Figures are medians; CPU is user + system time; RSS is the peak resident set."
  echo
  if [ -n "$peer_note" ]; then
    echo "**$peer_note.**"
    echo
  fi
  echo "| questions | agentlab wall | agentlab CPU | agentlab peak RSS | promptfoo wall | promptfoo CPU | promptfoo peak RSS | wall ratio | CPU ratio | RSS ratio |"
  echo "|---|---|---|---|---|---|---|---|---|---|"
  for n in "${sizes[@]}"; do
    aw=$(printf '%s' "${res[a$n]}" | awk 'NF { print $1 }' | median)
    ac=$(printf '%s' "${res[a$n]}" | awk 'NF { print $2 }' | median)
    am=$(printf '%s' "${res[a$n]}" | awk 'NF { print $3 / 1024 }' | median)
    if [ -n "${res[p$n]:-}" ]; then
      pw=$(printf '%s' "${res[p$n]}" | awk 'NF { print $1 }' | median)
      pc=$(printf '%s' "${res[p$n]}" | awk 'NF { print $2 }' | median)
      pm=$(printf '%s' "${res[p$n]}" | awk 'NF { print $3 / 1024 }' | median)
      awk -v n="$n" -v aw="$aw" -v ac="$ac" -v am="$am" -v pw="$pw" -v pc="$pc" -v pm="$pm" 'BEGIN {
        printf "| %d | %.2f s | %.2f s | %.0f MiB | %.2f s | %.2f s | %.0f MiB | %.2f× | %.2f× | %.2f× |\n", n, aw, ac, am, pw, pc, pm, aw / pw, ac / pc, am / pm }'
    else
      awk -v n="$n" -v aw="$aw" -v ac="$ac" -v am="$am" 'BEGIN {
        printf "| %d | %.2f s | %.2f s | %.0f MiB | — | — | — | — | — | — |\n", n, aw, ac, am }'
    fi
  done
  echo
  echo "Ratios are agentlab ÷ promptfoo (the target: ≤ 0.20× wall and CPU, ≤ 0.33× RSS)."
  if [ "${#profiles[@]}" -gt 0 ]; then
    echo
    echo "Profiles of one further run at each size: \`bench/out/cpu-eval-N.pprof\` and \`bench/out/block-eval-N.pprof\`, with \`-top\` listings beside them (\`*.top.txt\`, \`*.cum.txt\`)."
  fi
} >"$table"
cat "$table"

if [ -n "$doc" ] && [ "$smoke" = 0 ]; then
  begin='<!-- bench-eval:begin -->'
  end='<!-- bench-eval:end -->'
  if [ "$(grep -cxF "$begin" "$doc")" != 1 ] || [ "$(grep -cxF "$end" "$doc")" != 1 ]; then
    echo "bench/eval.sh: $doc needs one $begin line and one $end line" >&2
    exit 1
  fi
  awk -v b="$begin" -v e="$end" -v t="$table" '
    $0 == b { print; while ((getline l < t) > 0) print l; skip = 1; next }
    $0 == e { skip = 0 }
    !skip { print }' "$doc" >"$doc.tmp"
  mv "$doc.tmp" "$doc"
  echo "wrote the eval table to $doc"
fi
