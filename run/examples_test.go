package run

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/agentlab/agentlab/run/engine"
)

// TestExamplesRun runs every example flow whose node types this version
// supports on the mock provider, twice, and checks both succeed with the
// same seal (fixed clock, separate data dirs).
func TestExamplesRun(t *testing.T) {
	flows, err := filepath.Glob("../examples/*/flow.yml")
	if err != nil {
		t.Fatal(err)
	}
	ran := 0
	for _, f := range flows {
		t.Run(filepath.Base(filepath.Dir(f)), func(t *testing.T) {
			p, h := compileFlow(t, f)
			if err := engine.CheckSupported(p); err != nil {
				t.Skipf("uses node types this version does not run: %v", err)
			}
			ran++
			inputs := map[string]any{}
			for name, in := range p.Inputs {
				if in.Required && in.Default == nil && in.Type == "string" {
					inputs[name] = "an example " + name
				}
			}
			var seal string
			for i := 0; i < 2; i++ {
				out, err := Start(context.Background(), Options{DataDir: t.TempDir(), Plan: p, PlanHash: h, Source: f, Epoch: &epoch, Actor: "ex", Inputs: inputs})
				if err != nil {
					t.Fatal(err)
				}
				if out.Status == engine.StatusWaiting {
					t.Skip("waits for a person (a human node); see TestApprovalGateExample")
				}
				if out.Status != engine.StatusSucceeded {
					t.Fatalf("%s: %s", out.Status, out.Error)
				}
				if i == 1 && out.Seal != seal {
					t.Errorf("seal differs between two runs: %s %s", seal, out.Seal)
				}
				seal = out.Seal
			}
		})
	}
	if ran < 4 {
		t.Errorf("only %d examples ran", ran)
	}
}
