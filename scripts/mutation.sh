#!/bin/sh
# mutation.sh measures how many small source changes (mutants) the tests of
# the trust packages notice, one package at a time, and prints each package's
# score and the survivors with file:line. It is not part of .ci/run: a full
# run takes about an hour on 2 cores. See docs/testing.md.
#
#   scripts/mutation.sh                      # every trust package, 60 mutants each, seed 1
#   scripts/mutation.sh chain verify         # some packages
#   MUTANTS=0 scripts/mutation.sh hashid     # every mutant, not a sample
#   SEED=7 MUTANTS=100 scripts/mutation.sh   # another sample
#   go run ./scripts/mutation -line verify/sign.go:42 ./verify   # the mutants of one line
#
# The work tree is never changed: each mutant reaches the go command through
# -overlay. The run is niced, so it shares a busy machine.
set -eu
cd "$(dirname "$0")/.."
: "${MUTANTS:=60}"
: "${SEED:=1}"
: "${NICE:=15}"

if [ $# -eq 0 ]; then
	set -- chain canon hashid verify issuance run/sqlguard run/permission presets/ptc evidence evidence/render
fi

go build -o "${TMPDIR:-/tmp}/agentlab-mutation.$$" ./scripts/mutation
bin="${TMPDIR:-/tmp}/agentlab-mutation.$$"
log=$(mktemp)
trap 'rm -f "$bin" "$log"' EXIT INT TERM

for pkg in "$@"; do
	echo "== $pkg" >&2
	# verify's browser tests take most of its time: the tests under -short
	# (no browser) run first, and the whole suite only on what they let through
	quick=
	case $pkg in verify) quick=-short ;; esac
	nice -n "$NICE" "$bin" -n "$MUTANTS" -seed "$SEED" ${quick:+-quick "$quick"} "./$pkg" | tee -a "$log"
done

echo
echo "== scores (seed $SEED, $MUTANTS mutants per package; 0 means all)"
grep '^SCORE ' "$log" | sed 's/^SCORE github.com\/agentlab\/agentlab\//  /'
