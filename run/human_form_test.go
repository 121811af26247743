package run

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentlab/agentlab/run/engine"
	"github.com/agentlab/agentlab/run/runlog"
)

const formFlow = `agentlab: 1
name: change-gate
nodes:
  - id: gate
    type: human
    prompt: Deploy?
    form:
      ticket: {type: string, required: true}
      risk: {type: string, enum: [low, high]}
      amount: number
  - id: out
    type: output
    fields: {result: "deployed under {{ nodes.gate.form.ticket }} at risk {{ nodes.gate.form.risk }}"}
  - id: held
    type: output
    fields: {result: "held"}
edges: [gate.approve -> out, gate.reject -> held]
`

// TestApproveForm records decisions on a gate with a form: refused
// submissions leave the event log as it was; an accepted approval records
// its typed values, and the resumed run reads them.
func TestApproveForm(t *testing.T) {
	src := filepath.Join(t.TempDir(), "flow.yml")
	if err := os.WriteFile(src, []byte(formFlow), 0o644); err != nil {
		t.Fatal(err)
	}
	p, h := compileFlow(t, src)
	start := func(t *testing.T) (string, string) {
		dir := t.TempDir()
		out, err := Start(context.Background(), Options{DataDir: dir, Plan: p, PlanHash: h, Source: src, Epoch: &epoch})
		if err != nil {
			t.Fatal(err)
		}
		want := "agentlab approve " + out.RunID + " gate --decision approve --by … --field ticket=… --data-dir " + dir
		if out.Status != runlog.StatusWaiting || out.Waiting[0].Command != want || len(out.Waiting[0].Form) != 3 {
			t.Fatalf("waiting: %+v", out.Waiting)
		}
		return dir, out.RunID
	}
	events := func(t *testing.T, dir, id string) int {
		snap, err := runlog.OpenReadOnly(dir, id)
		if err != nil {
			t.Fatal(err)
		}
		return len(snap.Events)
	}

	t.Run("refused", func(t *testing.T) {
		dir, id := start(t)
		before := events(t, dir, id)
		for _, tc := range []struct {
			answer string
			fields map[string]any
			want   string
		}{
			{"approve", nil, `form field "ticket" is required to approve`},
			{"approve", map[string]any{"ticket": "…"}, "placeholder"},
			{"approve", map[string]any{"ticket": "T", "risk": "mid"}, `must be one of low, high`},
			{"approve", map[string]any{"ticket": "T", "amount": "lots"}, `"amount" must be a number`},
			{"approve", map[string]any{"ticket": "T", "tiket": "T"}, `did you mean "ticket"?`},
			{"reject", map[string]any{"amount": true}, `"amount" must be a number`},
		} {
			_, err := Approve(ApproveOptions{DataDir: dir, RunID: id, Node: "gate", Answer: tc.answer, By: "ann", Fields: tc.fields, Epoch: &epoch})
			var ue *UsageError
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "was not recorded") || !asUsage(err, &ue) {
				t.Errorf("%s %v: err = %v, want a usage error with %q", tc.answer, tc.fields, err, tc.want)
			}
		}
		if after := events(t, dir, id); after != before {
			t.Errorf("refused decisions wrote %d events", after-before)
		}
	})

	t.Run("approved", func(t *testing.T) {
		dir, id := start(t)
		res, err := Approve(ApproveOptions{DataDir: dir, RunID: id, Node: "gate", Answer: "approve", By: "ann",
			Fields: map[string]any{"ticket": "OPS-12", "risk": "low", "amount": "1e3"}, Epoch: &epoch})
		if err != nil {
			t.Fatal(err)
		}
		if res.Verdict != engine.VerdictApproved || res.Form["amount"] != 1000.0 || res.Form["ticket"] != "OPS-12" {
			t.Errorf("approve result %+v", res)
		}
		fin, err := Resume(context.Background(), ResumeOptions{DataDir: dir, RunID: id, Epoch: &epoch})
		if err != nil {
			t.Fatal(err)
		}
		if fin.Status != engine.StatusSucceeded || fin.Outputs["result"] != "deployed under OPS-12 at risk low" {
			t.Fatalf("resumed: %+v", fin)
		}
	})

	t.Run("rejected without the form", func(t *testing.T) {
		dir, id := start(t)
		if _, err := Approve(ApproveOptions{DataDir: dir, RunID: id, Node: "gate", Answer: "no", By: "ann", Epoch: &epoch}); err != nil {
			t.Fatal(err)
		}
		fin, err := Resume(context.Background(), ResumeOptions{DataDir: dir, RunID: id, Epoch: &epoch})
		if err != nil || fin.Outputs["result"] != "held" {
			t.Fatalf("resumed: %+v %v", fin, err)
		}
	})
}
