package runlog

import (
	"os"
	"strconv"
	"strings"
	"sync"
)

// CrashAfterEnv names the crash test hook: a process whose environment
// sets it kills itself with SIGKILL at one exact instant of a run, so that
// tests can resume from every event boundary instead of from wherever a
// timer happened to land.
//
//	AGENTLAB_TEST_CRASH_AFTER=event:N   right after the append that wrote event N (seq N)
//	AGENTLAB_TEST_CRASH_AFTER=seal      right after the seal is recorded in run.json
//
// An event in a batch (a group commit) crashes after the whole batch: the
// batch is one write, so no kill lands inside it. Unset, the hook costs one
// comparison per append.
const CrashAfterEnv = "AGENTLAB_TEST_CRASH_AFTER"

var crashAt struct {
	once  sync.Once
	event int64 // 0: never
	seal  bool
}

func loadCrashPoint() {
	crashAt.once.Do(func() {
		v := strings.TrimSpace(os.Getenv(CrashAfterEnv))
		if v == "seal" {
			crashAt.seal = true
		} else if n, ok := strings.CutPrefix(v, "event:"); ok {
			if i, err := strconv.ParseInt(n, 10, 64); err == nil && i > 0 {
				crashAt.event = i
			}
		}
	})
}

// crashAfterEvents kills the process when the events from..to (seqs, both
// included) just written hold the crash point.
func crashAfterEvents(from, to int64) {
	loadCrashPoint()
	if crashAt.event > 0 && from <= crashAt.event && crashAt.event <= to {
		crash()
	}
}

// crashAfterSeal kills the process when the crash point is the seal.
func crashAfterSeal() {
	loadCrashPoint()
	if crashAt.seal {
		crash()
	}
}

// crash stops the process as kill -9 does: no deferred function, no
// buffered write and no lock release runs.
func crash() {
	if p, err := os.FindProcess(os.Getpid()); err == nil {
		_ = p.Kill()
	}
	select {} // the signal is on its way
}
