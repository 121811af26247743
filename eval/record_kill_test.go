package eval

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/agentlab/agentlab/run/runlog"
)

// TestResumeOfARecordKilledBeforeItStarted plays a kill that lands right
// after the evaluation's directory appeared, before its run.started: the
// directory holds a checkpoint and a record and an empty log. A fresh
// evaluation under the same fixed clock refuses it and names --resume;
// --resume then starts it as the uninterrupted evaluation would have been,
// seal included.
func TestResumeOfARecordKilledBeforeItStarted(t *testing.T) {
	ctx := context.Background()
	epoch := time.Unix(1700000000, 0).UTC()
	ref := fakeOptions(t, &fakeRunner{})
	ref.DataDir, ref.Epoch = t.TempDir(), &epoch
	want, err := Evaluate(ctx, ref)
	if err != nil {
		t.Fatal(err)
	}

	o := fakeOptions(t, &fakeRunner{})
	o.DataDir, o.Epoch = t.TempDir(), &epoch
	suiteHash, _, err := o.Suite.Hash()
	if err != nil {
		t.Fatal(err)
	}
	_, _, vs := Cases(&o)
	cfg, err := configHash(&o, suiteHash.String(), vs)
	if err != nil {
		t.Fatal(err)
	}
	id, err := newEvalID(cfg, o.Epoch)
	if err != nil {
		t.Fatal(err)
	}
	rl, err := runlog.CreateWith(o.DataDir, id, checkpoint{Format: 1, Config: cfg.String(), Suite: suiteHash.String(), Plan: o.PlanHash.String()},
		runlog.Record{Plan: suiteHash.String(), Kind: KindEval, Status: runlog.StatusRunning})
	if err != nil {
		t.Fatal(err)
	}
	rl.Close()

	if _, err := Evaluate(ctx, o); !errors.Is(err, runlog.ErrExists) {
		t.Fatalf("a fresh evaluation over the killed one: %v, want ErrExists naming --resume", err)
	}
	o.Resume = true
	got, err := Evaluate(ctx, o)
	if err != nil {
		t.Fatalf("resume of a record killed before it started: %v", err)
	}
	if got.Eval != want.Eval || got.Seal != want.Seal || got.Status != "complete" {
		t.Errorf("resumed %s seal %s (%s); uninterrupted %s seal %s", got.Eval, got.Seal, got.Status, want.Eval, want.Seal)
	}
}
