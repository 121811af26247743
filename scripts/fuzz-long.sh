#!/bin/sh
# fuzz-long.sh runs the bad-input fuzz campaigns of docs/security.md, one
# after the other, each for the same duration, and prints one RESULT line per
# campaign with what the fuzzer measured.
#
#   scripts/fuzz-long.sh                     # 10 minutes each (the long form)
#   AGENTLAB_FUZZTIME=60s scripts/fuzz-long.sh
#   AGENTLAB_FUZZ_ONLY="sql-guard csv-import" scripts/fuzz-long.sh   # some campaigns
#
# Each campaign starts from the committed corpus (testdata/fuzz/<target>) and
# the seeds the target adds itself. A failing input stops the script: the
# fuzzer has written it under testdata/fuzz/<target>, where it becomes a
# regression test once committed. CI runs every target for a few seconds
# (.ci/fuzz-smoke.sh); this script is for the long form.
set -eu
cd "$(dirname "$0")/.."
: "${AGENTLAB_FUZZTIME:=10m}"
: "${AGENTLAB_FUZZ_PARALLEL:=1}"
: "${AGENTLAB_FUZZ_ONLY:=}"
# Go's fuzzer minimizes every new interesting input before it goes on, for
# up to -fuzzminimizetime (60 s by default); on the large seeds (a whole
# bundle, a long narrative) that stalls a campaign for most of its time.
: "${AGENTLAB_FUZZ_MINIMIZE:=5s}"
log=$(mktemp)
trap 'rm -f "$log"' EXIT

# seconds prints the whole seconds of a Go duration such as 10m or 1m30s.
seconds() {
	echo "$1" | awk '{ s = 0; n = ""; for (i = 1; i <= length($0); i++) { c = substr($0, i, 1);
		if (c ~ /[0-9.]/) n = n c; else { if (c == "h") s += n * 3600; else if (c == "m") s += n * 60; else if (c == "s") s += n; n = "" } }
		print int(s) }'
}

# go test has no per-input deadline when fuzzing: an input that hangs the
# target would keep the campaign running for ever. The test timeout (twice
# the campaign plus five minutes) turns that into a failure.
case "$AGENTLAB_FUZZTIME" in
*x) timeout=0 ;;
*) timeout="$(( $(seconds "$AGENTLAB_FUZZTIME") * 2 + 300 ))s" ;;
esac

# campaign name, package, target
campaigns='
flow-loader ./compile FuzzLoad
flow-compiler ./compile FuzzCompile
expressions ./compile/expr FuzzCheck
templates ./compile/tmpl FuzzParse
report-markers ./evidence/marker FuzzParse
report-check ./run/engine FuzzReportCheck
number-reader ./issuance FuzzRead
sql-guard ./run/sqlguard FuzzGuard
patch-files ./presets FuzzPatch
csv-import ./run/sources FuzzCSV
bundle-reader ./verify FuzzVerifyBundle
plan-reader ./plan FuzzDecodeFile
'

echo "$campaigns" | while read -r name pkg target; do
	[ -n "$name" ] || continue
	case " $AGENTLAB_FUZZ_ONLY " in
	"  " | *" $name "*) ;;
	*) continue ;;
	esac
	echo "== fuzz $name ($pkg $target, $AGENTLAB_FUZZTIME)" >&2
	committed=$(ls "$pkg/testdata/fuzz/$target" 2>/dev/null | wc -l | tr -d ' ')
	race=0
	if ! go test -run '^$' -fuzz "^${target}\$" -fuzztime "$AGENTLAB_FUZZTIME" \
		-fuzzminimizetime "$AGENTLAB_FUZZ_MINIMIZE" -parallel "$AGENTLAB_FUZZ_PARALLEL" -timeout "$timeout" "$pkg" >"$log" 2>&1; then
		if grep -q '\[build failed\]\|\[setup failed\]' "$log"; then
			tail -40 "$log" >&2
			echo "FAILED: fuzz $name: $pkg does not build" >&2
			exit 1
		fi
		# Go 1.26's fuzzing coordinator can report its own end-of-time
		# deadline as a failure (golang/go#75804, fixed in Go 1.27): the
		# campaign ran its whole duration, nothing was written and the
		# message is exactly "context deadline exceeded". That is counted
		# as a finished campaign and said in its RESULT line (race=1);
		# anything else fails the script.
		last=$(grep '^fuzz: elapsed:' "$log" | tail -1)
		ran=$(seconds "$(echo "$last" | sed -n 's/^fuzz: elapsed: \([^,]*\),.*/\1/p')")
		want=$(seconds "$AGENTLAB_FUZZTIME")
		if grep -q 'Failing input written to' "$log" || ! grep -q '^    context deadline exceeded$' "$log" ||
			[ "${ran:-0}" -lt "$want" ]; then
			tail -40 "$log" >&2
			echo "FAILED: fuzz $name: a failing input is written under $pkg/testdata/fuzz/$target (a timeout means an input hung)" >&2
			exit 1
		fi
		race=1
	fi
	# The last progress line holds the totals:
	# "fuzz: elapsed: 10m0s, execs: 1234567 (2057/sec), new interesting: 12 (total: 60)"
	last=$(grep '^fuzz: elapsed:' "$log" | tail -1)
	elapsed=$(echo "$last" | sed -n 's/^fuzz: elapsed: \([^,]*\),.*/\1/p')
	execs=$(echo "$last" | sed -n 's/.*execs: \([0-9]*\) .*/\1/p')
	secs=$(seconds "${elapsed:-0s}")
	rate=0
	[ "${secs:-0}" -gt 0 ] && rate=$(( ${execs:-0} / secs ))
	corpus=$(echo "$last" | sed -n 's/.*(total: \([0-9]*\)).*/\1/p')
	race_note=""
	[ "$race" = 1 ] && race_note=" coordinator-deadline-race=1"
	echo "RESULT fuzz=$name execs=${execs:-0} crashers=0 elapsed=${elapsed:-?} per-sec=$rate committed-corpus=$committed corpus=${corpus:-?} target=$target$race_note"
done
