package run

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentlab/agentlab/internal/standin"
	"github.com/agentlab/agentlab/run/engine"
)

// TestEndOfRunWarningsTellTheTruth: a CI run against an overloaded server,
// with an agent whose query tool needs approval nobody can give and a
// model without a price, ends with warnings naming each: the refused call
// with the rule to add, the unpriced model, the provider's retries.
func TestEndOfRunWarningsTellTheTruth(t *testing.T) {
	srv := standin.New()
	defer srv.Close()
	remoteEnv(t, srv)
	fastRetries(t)
	t.Setenv("CI", "true")
	dir := t.TempDir()
	src, err := os.ReadFile(filepath.Join("..", "examples", "data-qa", "data", "stores.csv"))
	if err != nil {
		t.Fatal(err)
	}
	writeFiles(t, dir, map[string]string{"stores.csv": string(src), "flow.yml": `agentlab: 1
name: ci-warnings
sources:
  stores: {kind: csv, path: stores.csv}
nodes:
  - id: analyst
    type: agent
    prompt: "Which store had the highest revenue in 2025?"
    tools: [db_query__stores]
    max_steps: 4
  - id: out
    type: output
    fields: {answer: "{{ nodes.analyst.text }}"}
edges:
  - analyst -> out
`})
	srv.Fail(standin.Fault{Status: 529, Message: "Overloaded"})
	f := filepath.Join(dir, "flow.yml")
	p, h := compileFlow(t, f)
	out, err := Start(context.Background(), Options{DataDir: filepath.Join(dir, "data"), Plan: p, PlanHash: h, Source: f, Epoch: &epoch, Actor: "ci", Provider: "anthropic", Model: "stand-in-1"})
	if err != nil {
		t.Fatal(err)
	}
	if out.Status != engine.StatusSucceeded {
		t.Fatalf("%s: %s", out.Status, out.Error)
	}
	got := map[string]string{}
	for _, w := range out.Warnings {
		got[w.Code] += w.Node + ": " + w.Message + "\n"
	}
	for code, want := range map[string]string{
		WarnToolRefused:   "analyst: tool db_query__stores was refused",
		WarnUnpriced:      "stand-in-1 (node analyst) has no price",
		WarnProviderRetry: "analyst: the provider retried 1 time(s); last: HTTP 529 Overloaded",
	} {
		if !strings.Contains(got[code], want) {
			t.Errorf("%s: %q, want %q", code, got[code], want)
		}
	}
	if !strings.Contains(got[WarnToolRefused], "[[permissions.rules]]") {
		t.Errorf("the refusal does not name the rule to add: %s", got[WarnToolRefused])
	}
}
