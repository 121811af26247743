package eval

import (
	"context"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/agentlab/agentlab/run/runlog"
	"github.com/agentlab/agentlab/verify"
)

// TestRecordVerifies: an evaluation's record, interrupted and resumed,
// passes every check of agentlab verify, like a run's. (One hashing
// worker: what is checked here is the record, not the verifier's
// concurrency.)
func TestRecordVerifies(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	var n atomic.Int64
	o := fakeOptions(t, RunnerFunc(func(c context.Context, cs Case) (Answer, error) {
		if n.Add(1) == 3 {
			cancel()
			return Answer{Status: StatusCancelled, Error: "interrupted"}, nil
		}
		return (&fakeRunner{}).Run(c, cs)
	}))
	o.DataDir = dir
	if _, err := Evaluate(ctx, o); err != nil {
		t.Fatal(err)
	}
	o.Runner, o.Resume = &fakeRunner{}, true
	res, err := Evaluate(context.Background(), o)
	if err != nil || res.Seal == "" {
		t.Fatalf("resume: %v (seal %q)", err, res.Seal)
	}
	v, err := verify.Verify(filepath.Join(runlog.RunsDir(dir), res.Eval), verify.Options{Expect: res.Seal, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range v.Checks {
		if !c.OK {
			t.Errorf("check %s fails: %s", c.Name, c.Detail)
		}
	}
	if !v.OK || v.Plan != res.Suite {
		t.Errorf("verify ok=%v plan %s, want the suite %s", v.OK, v.Plan, res.Suite)
	}
}
