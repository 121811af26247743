#!/bin/sh
# longtests.sh runs the long forms of the reliability and bad-input tests
# and prints the results table of docs/security.md from what they measured.
#
#   scripts/longtests.sh                          # full size (240 SIGKILL trials, every fault index, parallel too)
#   AGENTLAB_KILL_TRIALS=40 scripts/longtests.sh  # fewer SIGKILL trials
#   AGENTLAB_LONG=0 scripts/longtests.sh          # the normal sizes of `go test`
#   AGENTLAB_FUZZTIME=60s scripts/longtests.sh    # shorter fuzz campaigns (default 10m each)
#   AGENTLAB_FUZZTIME=0 scripts/longtests.sh      # no fuzz campaigns
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
step go test -count=1 -v -timeout 120m -run 'TestKillAndResume|TestKillAtEveryEventBoundary|TestTwoProcessesOneDataDir|TestSecretsNeverWritten' ./cmd/agentlab
step go test -count=1 -v -run 'TestMalformedCorpus' ./compile

# Attacks: each test logs how many attempts it made; all of them must fail.
step go test -count=1 -v -run '^(TestCorpus|TestJailRefusals|TestSSRFRefusals|TestSSRFSpellings|TestSSRFRebinding|TestContainment|TestForkBomb|TestCraftedBundles|TestPromptInjectedToolResult|TestReportAndBundleEscapeData|TestInitNeverWritesThroughPlantedLinks|TestInitNeverFollowsPlantedFileLinks)$' \
	./run/sqlguard ./run/tools ./run/sandbox ./verify ./run ./cmd/agentlab ./examples
step go test -count=1 -run 'TestScripts/attack_template_injection' ./cmd/agentlab
echo "RESULT template-injection runs=$(grep -c '^exec agentlab run' cmd/agentlab/testdata/script/attack_template_injection.txtar)" >>"$log"

# Fuzz campaigns on every parser of untrusted input (10 minutes each).
: "${AGENTLAB_FUZZTIME:=10m}"
if [ "$AGENTLAB_FUZZTIME" != "0" ]; then
	export AGENTLAB_FUZZTIME
	step scripts/fuzz-long.sh
fi

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
		if (kv[1] == "trials" || kv[1] == "runs" || kv[1] == "starts" || kv[1] == "files" || kv[1] == "processes" || kv[1] == "execs") trials = kv[2]
		else if (kv[1] == "lost" || kv[1] == "leaked" || kv[1] == "crashers") lost = (kv[2] == "0") ? "yes" : "NO"
		else detail = detail (detail == "" ? "" : ", ") $i
	}
	# The script stops at the first failing test, so every trial of a
	# printed row passed.
	print "| " name " | " trials " | " trials " | " lost " | " detail " |"
}'
