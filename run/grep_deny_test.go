package run

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentlab/agentlab/run/engine"
)

// TestGrepAndListCannotSidestepAPathDeny: the operator denies the file
// tools secrets/* and allows them the rest. A scripted model greps the
// whole workspace, greps ".", greps through a link to secrets, and lists
// secrets: each is refused by the deny (the calls reach the denied files),
// nothing of the secret reaches the events, and a grep of docs still runs.
func TestGrepAndListCannotSidestepAPathDeny(t *testing.T) {
	dir := t.TempDir()
	for _, d := range []string{"secrets", "docs"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("secrets", filepath.Join(dir, "vault")); err != nil {
		t.Fatal(err)
	}
	writeFiles(t, dir, map[string]string{
		"secrets/key.txt": "TOPSECRET-VALUE\n",
		"docs/readme.txt": "public words\n",
		"agentlab.toml": `[[permissions.rules]]
tool = "file_*"
arg = { path = "path", glob = "secrets/*" }
decision = "deny"

[[permissions.rules]]
tool = "file_*"
decision = "allow"
`,
		"flow.yml": `agentlab: 1
name: sidestep
nodes:
  - id: ask
    type: agent
    prompt: "Find the key."
    tools: [file_grep, file_list]
  - id: out
    type: output
    fields: {answer: "{{ nodes.ask.text }}"}
edges:
  - ask -> out
`,
		"calls.yml": `nodes:
  ask:
    - tool_calls:
        - {id: g1, name: file_grep, args: {pattern: "TOPSECRET"}}
        - {id: g2, name: file_grep, args: {pattern: ".", path: "."}}
        - {id: g3, name: file_grep, args: {pattern: ".", path: "vault"}}
        - {id: l1, name: file_list, args: {path: "secrets"}}
        - {id: g4, name: file_grep, args: {pattern: "public", path: "docs"}}
    - done
`,
	})
	flow := filepath.Join(dir, "flow.yml")
	p, h := compileFlow(t, flow)
	data := filepath.Join(dir, "data")
	out, err := Start(context.Background(), Options{DataDir: data, Plan: p, PlanHash: h, Source: flow, Epoch: &epoch, Provider: "script:calls.yml"})
	if err != nil {
		t.Fatal(err)
	}
	if out.Status != engine.StatusSucceeded {
		t.Fatalf("run: %+v", out)
	}
	allowed := map[string]bool{}
	for _, e := range eventsOf(t, data, out.RunID) {
		if strings.Contains(string(e.Data), "TOPSECRET-VALUE") {
			t.Errorf("the denied file's content reached event %s: %s", e.Type, e.Data)
		}
		if e.Type != engine.EvPermission {
			continue
		}
		var d struct {
			Allowed bool   `json:"allowed"`
			CallID  string `json:"call_id"`
			By      string `json:"by"`
		}
		if err := json.Unmarshal(e.Data, &d); err != nil {
			t.Fatal(err)
		}
		allowed[d.CallID] = d.Allowed
		if !d.Allowed && d.By != "rule 1" {
			t.Errorf("call %s refused by %q, want the operator's rule 1", d.CallID, d.By)
		}
	}
	for id, want := range map[string]bool{"g1": false, "g2": false, "g3": false, "l1": false, "g4": true} {
		if got, ok := allowed[id]; !ok || got != want {
			t.Errorf("call %s allowed=%v (decided %v), want %v", id, got, ok, want)
		}
	}
}
