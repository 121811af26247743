package run_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"testing"

	"github.com/agentlab/agentlab/run"
	"github.com/agentlab/agentlab/run/engine"
	"github.com/agentlab/agentlab/run/runlog"
)

// TestConcurrentRunsOneDataDir runs 20 flows at once in one process, all
// on one data dir (one shared artifact store, blobs written by several
// runs at the same time): every run succeeds with the outputs it has when
// run alone, every chain verifies and the store checks clean.
func TestConcurrentRunsOneDataDir(t *testing.T) {
	p, h := faultPlan(t)
	const n = 20
	dir := t.TempDir()
	alone := map[string]map[string]any{}
	for i := 0; i < 2; i++ {
		o := faultOptions(t.TempDir(), p, h)
		o.Inputs = map[string]any{"topic": fmt.Sprintf("topic %d", i)}
		o.OutDir = ""
		out, err := run.Start(context.Background(), o)
		if err != nil || out.Status != engine.StatusSucceeded {
			t.Fatalf("alone: %+v %v", out, err)
		}
		alone[fmt.Sprint(i)] = out.Outputs
	}
	var wg sync.WaitGroup
	outs := make([]*run.Outcome, n)
	errs := make([]error, n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			o := faultOptions(dir, p, h)
			// Two distinct inputs, so that many runs store the same blobs
			// concurrently; distinct seeds make distinct run ids.
			o.Inputs = map[string]any{"topic": fmt.Sprintf("topic %d", i%2)}
			o.OutDir, o.Parallel = "", 3
			o.Epoch = nil
			outs[i], errs[i] = run.Start(context.Background(), o)
		}(i)
	}
	wg.Wait()
	ids := map[string]bool{}
	for i := 0; i < n; i++ {
		if errs[i] != nil || outs[i].Status != engine.StatusSucceeded {
			t.Fatalf("run %d: %+v %v", i, outs[i], errs[i])
		}
		if !reflect.DeepEqual(outs[i].Outputs, alone[fmt.Sprint(i%2)]) {
			t.Fatalf("run %d: outputs differ from the same run alone", i)
		}
		ids[outs[i].RunID] = true
		checkFaultRun(t, fmt.Sprintf("run %d", i), dir, outs[i].RunID, true)
	}
	if len(ids) != n {
		t.Fatalf("%d distinct run ids for %d runs", len(ids), n)
	}
	recs, err := runlog.List(dir)
	if err != nil || len(recs) != n {
		t.Fatalf("runs list: %d %v", len(recs), err)
	}
	t.Logf("RESULT concurrent-in-process distinct-runs runs=%d lost=0", n)
}

// TestConcurrentSameRunID starts the same run (the same derived run id
// under SOURCE_DATE_EPOCH) 20 times at once: one creates and finishes it,
// every other gets a clear error saying the run exists or is in use, and
// the one run left on disk verifies.
func TestConcurrentSameRunID(t *testing.T) {
	p, h := faultPlan(t)
	const n = 20
	dir := t.TempDir()
	var wg sync.WaitGroup
	outs := make([]*run.Outcome, n)
	errs := make([]error, n)
	start := make(chan struct{})
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			<-start
			outs[i], errs[i] = run.Start(context.Background(), faultOptions(dir, p, h))
		}(i)
	}
	close(start)
	wg.Wait()
	won, id := 0, ""
	for i := 0; i < n; i++ {
		if errs[i] == nil {
			if outs[i].Status != engine.StatusSucceeded {
				t.Fatalf("run %d: %+v", i, outs[i])
			}
			won++
			id = outs[i].RunID
			continue
		}
		var le *runlog.LockedError
		if !errors.Is(errs[i], runlog.ErrExists) && !errors.As(errs[i], &le) {
			t.Errorf("start %d: not a clear exists/in-use error: %v", i, errs[i])
		}
	}
	if won != 1 {
		t.Fatalf("%d of %d identical starts succeeded, want exactly 1", won, n)
	}
	checkFaultRun(t, "the one run", dir, id, true)
	t.Logf("RESULT concurrent-in-process same-run-id starts=%d succeeded=1 refused=%d lost=0", n, n-1)
}
