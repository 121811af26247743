//go:build unix

package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/agentlab/agentlab/compile"
	"github.com/agentlab/agentlab/hashid"
	"github.com/agentlab/agentlab/run"
	"github.com/agentlab/agentlab/run/runlog"
)

// engineWork runs the flow on the mock provider through run.Start, as
// `agentlab run` does: run directory, lock, events, checkpoint, outputs
// and seal. Compiling the flow is not timed.
func engineWork(a *childArgs) (*sample, error) {
	p := filepath.Join(a.dir, "flow.yml")
	pl, l := compile.CompileFile(p, compile.Options{})
	if pl == nil {
		return nil, fmt.Errorf("compile %s: %v", p, first(l))
	}
	h, err := pl.Hash()
	if err != nil {
		return nil, err
	}
	events := 0
	i := 0
	ns, n, err := measure(a, func() (time.Duration, error) {
		i++
		dd := filepath.Join(a.dir, fmt.Sprintf("data-%d-%d", os.Getpid(), i))
		defer os.RemoveAll(dd)
		t := time.Now()
		out, err := run.Start(context.Background(), run.Options{DataDir: dd, Plan: pl, PlanHash: h, Source: p,
			Provider: "mock", Parallel: 2, Origin: "bench"})
		d := time.Since(t)
		if err != nil {
			return 0, err
		}
		if out.Status != runlog.StatusSucceeded || out.Seal == "" {
			return 0, fmt.Errorf("run %s ended %s: %s", out.RunID, out.Status, out.Error)
		}
		b, err := os.ReadFile(filepath.Join(runlog.RunsDir(dd), out.RunID, "events.jsonl"))
		if err != nil {
			return 0, err
		}
		events = strings.Count(string(b), "\n")
		return d, nil
	})
	return &sample{NsPerOp: ns, Ops: n, Units: len(pl.Nodes), Extra: map[string]float64{"events": float64(events)}}, err
}

// engineFloor appends as many events as the engine wrote, bare, with the
// run log's default durability (node.finished fsync'd, node.started not).
func engineFloor(a *childArgs) (*sample, error) {
	if a.events < 2 {
		return nil, errors.New("the engine floor needs -events (the work's event count)")
	}
	i := 0
	ns, n, err := measure(a, func() (time.Duration, error) {
		i++
		dd := filepath.Join(a.dir, fmt.Sprintf("floor-%d-%d", os.Getpid(), i))
		defer os.RemoveAll(dd)
		t := time.Now()
		rl, err := runlog.Create(dd, "floor")
		if err != nil {
			return 0, err
		}
		if _, err := rl.Append("run.started", "", map[string]any{"plan": hashid.Sum(nil).String(), "flow": "chain"}); err != nil {
			return 0, err
		}
		for j := 0; j < a.events-2; j++ {
			id := fmt.Sprintf("n%d", j/2)
			var err error
			if j%2 == 0 {
				_, err = rl.Append("node.started", id, map[string]any{"type": "transform"})
			} else {
				_, err = rl.Append("node.finished", id, map[string]any{"output": j, "type": "transform"})
			}
			if err != nil {
				return 0, err
			}
		}
		if _, err := rl.Append("run.finished", "", map[string]any{"status": "succeeded"}); err != nil {
			return 0, err
		}
		err = rl.Close()
		return time.Since(t), err
	})
	return &sample{NsPerOp: ns, Ops: n, Units: a.size, Extra: map[string]float64{"events": float64(a.events)}}, err
}
