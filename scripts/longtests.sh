#!/bin/sh
# longtests.sh runs the long forms of the reliability and bad-input tests
# and prints the results table of docs/security.md from what they measured.
#
#   scripts/longtests.sh                          # full size (240 SIGKILL trials, every fault index, parallel too)
#   AGENTLAB_KILL_TRIALS=40 scripts/longtests.sh  # fewer SIGKILL trials
#   AGENTLAB_LONG=0 scripts/longtests.sh          # the normal sizes of `go test`
#
# Every figure in the table comes from a RESULT line a test logged; a test
# that fails stops the script with its output.
set -eu
cd "$(dirname "$0")/.."
: "${AGENTLAB_LONG:=1}"
export AGENTLAB_LONG
log=$(mktemp)
trap 'rm -f "$log"' EXIT

step() {
	echo "== $*" >&2
	if ! "$@" >>"$log" 2>&1; then
		grep -v '^=== \|^--- PASS\|^    --- PASS' "$log" | tail -60 >&2
		echo "FAILED: $*" >&2
		exit 1
	fi
}

step go test -count=1 -race ./run/store/... ./run/runlog
step go test -count=1 -v -timeout 60m -run 'TestFaultMatrix|TestReadFaultsOnResume' ./run
step go test -count=1 -v -race -timeout 30m -run 'TestConcurrent' ./run
step go test -count=1 -v -timeout 120m -run 'TestKillAndResume|TestTwoProcessesOneDataDir|TestSecretsNeverWritten' ./cmd/agentlab
step go test -count=1 -v -run 'TestMalformedCorpus' ./compile

# One table row per RESULT line: "RESULT name k=v k=v ...".
grep -o 'RESULT .*' "$log" | awk '
BEGIN {
	print "| test | trials | passed | nothing lost | detail |"
	print "|---|---:|---:|---|---|"
}
{
	name = $2; detail = ""; trials = ""; lost = "n/a"
	if (index(name, "=") > 0) { split(name, kv, "="); name = kv[1] " " kv[2] }
	for (i = 3; i <= NF; i++) {
		split($i, kv, "=")
		if (kv[1] == "trials" || kv[1] == "runs" || kv[1] == "starts" || kv[1] == "files" || kv[1] == "processes") trials = kv[2]
		else if (kv[1] == "lost" || kv[1] == "leaked") lost = (kv[2] == "0") ? "yes" : "NO"
		else detail = detail (detail == "" ? "" : ", ") $i
	}
	# The script stops at the first failing test, so every trial of a
	# printed row passed.
	print "| " name " | " trials " | " trials " | " lost " | " detail " |"
}'
