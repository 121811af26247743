package run

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/agentlab/agentlab/run/engine"
)

// TestSupervisorOnMockIsDeterministic runs a supervisor whose workers
// query a source in parallel, on the mock, twice: the seals are equal.
func TestSupervisorOnMockIsDeterministic(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "sales.csv"), []byte("region,gmv\nnorth,120\nsouth,80\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "agentlab.toml"), []byte("[[permissions.rules]]\ntool = \"db_query__*\"\ndecision = \"allow\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	flow := filepath.Join(dir, "flow.yml")
	src := `agentlab: 1
name: team
sources:
  sales: {kind: csv, path: sales.csv}
nodes:
  - id: team
    type: supervisor
    prompt: "Compare the sales of the regions."
    max_rounds: 2
    workers:
      - {id: north, role: "north sales analyst", tools: [db_query__sales]}
      - {id: south, role: "south sales analyst", tools: [db_query__sales]}
  - id: out
    type: output
    fields: {answer: "{{ nodes.team.text }}"}
edges:
  - team -> out
`
	if err := os.WriteFile(flow, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	p, h := compileFlow(t, flow)
	var seal string
	for i := 0; i < 3; i++ {
		out, err := Start(context.Background(), Options{DataDir: t.TempDir(), Plan: p, PlanHash: h, Source: flow, Epoch: &epoch, Parallel: 4})
		if err != nil {
			t.Fatal(err)
		}
		if out.Status != engine.StatusSucceeded {
			t.Fatalf("%+v", out)
		}
		if i > 0 && out.Seal != seal {
			t.Fatalf("seal differs: %s vs %s", out.Seal, seal)
		}
		seal = out.Seal
	}
}
