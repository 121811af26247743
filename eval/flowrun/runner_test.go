package flowrun

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/agentlab/agentlab/eval"
	"github.com/agentlab/agentlab/eval/suite"
)

// TestRunnerRunsTheFlow runs testdata/qa's flow for real with the script
// provider and reads the answer back.
func TestRunnerRunsTheFlow(t *testing.T) {
	dir := filepath.Join("..", "testdata", "qa")
	s, p, h, l := suite.Load(filepath.Join(dir, "sales.eval.yml"), eval.CompileFlow)
	if s == nil {
		t.Fatal(l)
	}
	data := t.TempDir()
	r := &Runner{Plan: p, PlanHash: h, Flow: suite.FlowPath(s), SuiteDir: dir, DataDir: data}
	if err := r.Prepare(s.Variants); err != nil {
		t.Fatal(err)
	}
	ans, err := r.Run(context.Background(), eval.Case{Question: &s.Questions[0], Variant: &s.Variants[0]})
	if err != nil {
		t.Fatal(err)
	}
	if ans.Status != eval.StatusSucceeded || ans.Seal == "" || ans.Run == "" {
		t.Fatalf("answer %+v", ans)
	}
	if ans.Text == "" || ans.Text == s.Questions[0].Inputs["question"] {
		t.Errorf("answer text %q", ans.Text)
	}
	// The whole harness on the real runner: every question passes.
	o, err := eval.NewSourceOracle(context.Background(), p, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	res, err := eval.Evaluate(context.Background(), eval.Options{Suite: s, Plan: p, PlanHash: h, Runner: r, Oracle: o, DataDir: data, Parallel: 3})
	if err != nil {
		t.Fatal(err)
	}
	if res.Exit != 0 || res.Summary[0].Passed != 3 || res.Seal == "" {
		t.Errorf("exit %d, summary %+v, seal %q", res.Exit, res.Summary, res.Seal)
	}
	// A variant preset that does not resolve is refused before running.
	bad := []suite.Variant{{Name: "x", Preset: "nosuch", Repeats: 1}}
	if err := r.Prepare(bad); err == nil {
		t.Error("an unknown preset must be refused")
	}
}
