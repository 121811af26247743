package engine

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/agentlab/agentlab/plan"
)

// A node that fails after paid model calls (an answer that is not JSON,
// retried once) records what every attempt cost in node.failed and in
// the run's node summary, so cost caps count failed work too.
func TestFailedNodeRecordsUsage(t *testing.T) {
	n := nd("ask", "llm", "prompt", "give me JSON", "output_schema", map[string]any{"type": "object"})
	n.Retry = plan.Retry{Max: 1}
	p := mkPlan([]plan.Node{n}, nil)
	m := newModel(func(context.Context, ModelRequest) (string, error) { return "not json at all", nil })
	res, rec := run(t, p, nil, withModel(m))
	if res.Status != StatusFailed {
		t.Fatalf("status %s, want failed", res.Status)
	}
	var failed []RecordedEvent
	for _, e := range rec.events {
		if e.Type == EvNodeFailed {
			failed = append(failed, e)
		}
	}
	if len(failed) != 1 {
		t.Fatalf("node.failed events: %d", len(failed))
	}
	var data struct {
		Error string `json:"error"`
		Usage Usage  `json:"usage"`
	}
	if err := json.Unmarshal(failed[0].Data, &data); err != nil {
		t.Fatal(err)
	}
	// Two attempts of 3 input and 4 output tokens each (see fakeModel).
	if data.Usage.InputTokens != 6 || data.Usage.OutputTokens != 8 {
		t.Errorf("usage %+v, want 6/8 over two attempts", data.Usage)
	}
	if !strings.Contains(data.Error, "not JSON") {
		t.Errorf("error %q", data.Error)
	}
	var summed Usage
	for _, s := range res.Nodes {
		summed = addUsage(summed, s.Usage)
	}
	if summed.InputTokens != 6 {
		t.Errorf("summary usage %+v, want the failed node's 6 input tokens", summed)
	}
}
