package main

import (
	"os"
	"strconv"
)

// longKillTrials is the number of SIGKILL trials the long form of
// TestKillAndResume runs: AGENTLAB_KILL_TRIALS when set, else 240 under
// AGENTLAB_LONG=1, else 0 (the normal count). scripts/longtests.sh sets
// them; docs/security.md reports what it measured.
func longKillTrials() int {
	if n, err := strconv.Atoi(os.Getenv("AGENTLAB_KILL_TRIALS")); err == nil && n > 0 {
		return n
	}
	if os.Getenv("AGENTLAB_LONG") == "1" {
		return 240
	}
	return 0
}
