package run

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentlab/agentlab/run/engine"
)

// A scripted model that reads one large file after another fills the
// context window long before the default token budget (2,000,000) is
// spent, so compaction is what keeps it going: old tool results are
// compressed, the agent answers on its own, and no budget stops it.
func TestAgentFloodedWithLargeToolResultsCompactsUnderDefaultBudget(t *testing.T) {
	dir := t.TempDir()
	line := strings.Repeat("the quarterly ledger lists every invoice with its region and amount ", 2) + "\n"
	files := map[string]string{
		"agentlab.toml": "[[permissions.rules]]\ntool = \"file_read\"\ndecision = \"allow\"\n",
		"flow.yml": `agentlab: 1
name: flood
nodes:
  - id: reader
    type: agent
    prompt: "Read every ledger and summarise them."
    tools: [file_read]
  - id: out
    type: output
    fields: {answer: "{{ nodes.reader.text }}"}
edges:
  - reader -> out
`,
	}
	var script strings.Builder
	script.WriteString("nodes:\n  reader:\n")
	const reads = 26
	for i := 0; i < reads; i++ {
		name := fmt.Sprintf("ledger%02d.txt", i)
		files[name] = fmt.Sprintf("ledger %d\n", i) + strings.Repeat(line, 300)
		fmt.Fprintf(&script, "    - tool_calls: [{id: r%d, name: file_read, args: {path: %s}}]\n", i, name)
	}
	script.WriteString("    - every ledger lists invoices by region\n")
	files["calls.yml"] = script.String()
	writeFiles(t, dir, files)
	flow := filepath.Join(dir, "flow.yml")
	p, h := compileFlow(t, flow)
	data := filepath.Join(dir, "data")
	out, err := Start(context.Background(), Options{DataDir: data, Plan: p, PlanHash: h, Source: flow, Epoch: &epoch, Provider: "script:calls.yml"})
	if err != nil {
		t.Fatal(err)
	}
	if out.Status != engine.StatusSucceeded || out.Outputs["answer"] != "every ledger lists invoices by region" {
		t.Fatalf("%+v", out)
	}
	compressed, reason := 0, ""
	var limits map[string]any
	for _, e := range eventsOf(t, data, out.RunID) {
		var d map[string]any
		_ = json.Unmarshal(e.Data, &d)
		switch e.Type {
		case engine.EvAgentCompressed:
			compressed++
		case engine.EvAgentStopped:
			reason, _ = d["reason"].(string)
		case engine.EvAgentLimits:
			limits = d
		}
	}
	if limits["tokens"] != float64(2000000) || limits["cost_usd"] != float64(0) || limits["max_steps"] != float64(100) {
		t.Errorf("default limits %v, want 2,000,000 tokens, no cost cap, 100 steps", limits)
	}
	if compressed == 0 {
		t.Error("no agent.compressed event: compaction was not reached")
	}
	if reason != engine.StopAnswer {
		t.Errorf("the agent stopped with %q, want %q", reason, engine.StopAnswer)
	}
}
