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

// TestApprovalGateExample pauses at the human node, refuses decisions that
// do not apply, records an approval and resumes to a sealed success; the
// same run resumed after a rejection follows the reject port instead.
func TestApprovalGateExample(t *testing.T) {
	p, h := compileFlow(t, "../examples/approval-gate/flow.yml")
	for _, tc := range []struct{ answer, want string }{
		{"approve", "published: "},
		{"lgtm", "not published"},
	} {
		dir := t.TempDir()
		out, err := Start(context.Background(), Options{DataDir: dir, Plan: p, PlanHash: h, Source: "../examples/approval-gate/flow.yml",
			Epoch: &epoch, Inputs: map[string]any{"topic": "VPN"}})
		if err != nil {
			t.Fatal(err)
		}
		if out.Status != runlog.StatusWaiting || len(out.Waiting) != 1 || out.Waiting[0].Node != "review" ||
			out.Waiting[0].Command != "agentlab approve "+out.RunID+" review --decision approve --by alice --data-dir "+dir {
			t.Fatalf("first attempt: %+v", out)
		}
		snap, err := runlog.OpenReadOnly(dir, out.RunID)
		if err != nil || snap.Record.Status != runlog.StatusWaiting || len(snap.Record.Waiting) != 1 {
			t.Fatalf("run.json: %+v %v", snap.Record, err)
		}
		if _, err := Approve(ApproveOptions{DataDir: dir, RunID: out.RunID, Node: "review", Answer: "approve", By: "eve"}); err == nil || !strings.Contains(err.Error(), "not an assignee") {
			t.Errorf("a non-assignee decided: %v", err)
		}
		res, err := Approve(ApproveOptions{DataDir: dir, RunID: out.RunID, Node: "review", Answer: tc.answer, By: "alice", Epoch: &epoch})
		if err != nil {
			t.Fatal(err)
		}
		if res.Verdict == engine.VerdictPending || res.Approved != (tc.answer == "approve") {
			t.Errorf("approve result %+v", res)
		}
		fin, err := Resume(context.Background(), ResumeOptions{DataDir: dir, RunID: out.RunID, Epoch: &epoch})
		if err != nil {
			t.Fatal(err)
		}
		if fin.Status != engine.StatusSucceeded || fin.Seal == "" || !strings.HasPrefix(fin.Outputs["result"].(string), tc.want) {
			t.Fatalf("after %q: %+v", tc.answer, fin)
		}
	}
}

// TestAgentPermissionInCI runs an agent whose tool no rule allows: with no
// terminal the call is refused with the sentence naming the rule to add,
// and the run still finishes (the model is told why).
func TestAgentPermissionInCI(t *testing.T) {
	dir := t.TempDir()
	flow := filepath.Join(dir, "flow.yml")
	if err := os.MkdirAll(filepath.Join(dir, "data"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "data", "t.csv"), []byte("a,b\n1,2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	src := `agentlab: 1
name: perm
sources:
  t: {kind: csv, path: data/t.csv}
nodes:
  - id: ask
    type: agent
    prompt: "What is in t?"
    tools: [db_query__t]
  - id: out
    type: output
    fields: {answer: "{{ nodes.ask.text }}"}
edges:
  - ask -> out
`
	if err := os.WriteFile(flow, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	p, h := compileFlow(t, flow)
	out, err := Start(context.Background(), Options{DataDir: filepath.Join(dir, "d"), Plan: p, PlanHash: h, Source: flow, Epoch: &epoch})
	if err != nil {
		t.Fatal(err)
	}
	if out.Status != engine.StatusSucceeded {
		t.Fatalf("%+v", out)
	}
	snap, err := runlog.OpenReadOnly(filepath.Join(dir, "d"), out.RunID)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, e := range snap.Events {
		if e.Type == engine.EvPermission {
			s := string(e.Data)
			found = strings.Contains(s, `"allowed":false`) && strings.Contains(s, "there is no terminal to ask") &&
				strings.Contains(s, `tool = \"db_query__t\"`)
		}
	}
	if !found {
		t.Errorf("no refusal naming the rule in the events")
	}
	// With --yes the same call is allowed.
	out, err = Start(context.Background(), Options{DataDir: filepath.Join(dir, "y"), Plan: p, PlanHash: h, Source: flow, Epoch: &epoch, Interaction: Interaction{Yes: true}})
	if err != nil || out.Status != engine.StatusSucceeded {
		t.Fatalf("%+v %v", out, err)
	}
}
