package engine

import (
	"context"
	"encoding/json"
	"errors"
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

// pricedModel answers like fakeModel but every call costs 10 input
// tokens, one output token per word and $0.25, so sums are exact.
type pricedModel struct{ *fakeModel }

func (p pricedModel) Complete(ctx context.Context, req ModelRequest, onToken func(string)) (ModelResponse, error) {
	resp, err := p.fakeModel.Complete(ctx, req, onToken)
	if err != nil {
		return resp, err
	}
	resp.Usage = Usage{InputTokens: 10, OutputTokens: len(strings.Fields(resp.Text)), CostUSD: 0.25}
	return resp, nil
}

// A node that succeeds on attempt k records the usage of all k attempts:
// in its output (node.finished), in the run's node summary and, attempt
// by attempt, in node.retrying. A failed call that returned nothing (a
// provider error) cost nothing and adds nothing.
func TestRetriedNodeRecordsEveryAttempt(t *testing.T) {
	schema := map[string]any{"type": "object"}
	tests := []struct {
		name    string
		node    plan.Node
		answers []string // by call; "!" fails the call with a provider error
		want    Usage
		retries []*Usage // usage of each node.retrying, nil when absent
	}{
		{
			name: "llm answer not JSON, then JSON", node: nd("ask", "llm", "prompt", "json please", "output_schema", schema),
			answers: []string{"not json at all", `{"a": 1}`},
			want:    Usage{InputTokens: 20, OutputTokens: 6, CostUSD: 0.5},
			retries: []*Usage{{InputTokens: 10, OutputTokens: 4, CostUSD: 0.25}},
		},
		{
			name: "llm fails twice, then JSON", node: nd("ask", "llm", "prompt", "json please", "output_schema", schema),
			answers: []string{"no", "still no", `{"a": 1}`},
			want:    Usage{InputTokens: 30, OutputTokens: 5, CostUSD: 0.75},
			retries: []*Usage{{InputTokens: 10, OutputTokens: 1, CostUSD: 0.25}, {InputTokens: 10, OutputTokens: 2, CostUSD: 0.25}},
		},
		{
			name: "provider error, then an answer", node: nd("ask", "llm", "prompt", "hello"),
			answers: []string{"!", "fine thanks"},
			want:    Usage{InputTokens: 10, OutputTokens: 2, CostUSD: 0.25},
			retries: []*Usage{nil},
		},
		{
			name: "first try succeeds", node: nd("ask", "llm", "prompt", "hello"),
			answers: []string{"fine"},
			want:    Usage{InputTokens: 10, OutputTokens: 1, CostUSD: 0.25},
		},
		{
			name: "agent without an answer, then one", node: nd("ask", "agent", "prompt", "Find out.", "max_steps", 3),
			answers: []string{"", "found it"},
			want:    Usage{InputTokens: 20, OutputTokens: 2, CostUSD: 0.5},
			retries: []*Usage{{InputTokens: 10, OutputTokens: 0, CostUSD: 0.25}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			n := tc.node
			n.Retry = plan.Retry{Max: 3}
			p := mkPlan([]plan.Node{n}, nil)
			m := pricedModel{newModel(func(_ context.Context, req ModelRequest) (string, error) {
				a := tc.answers[min(req.Call, len(tc.answers)-1)]
				if a == "!" {
					return "", errors.New("rate limited")
				}
				return a, nil
			})}
			res, rec := run(t, p, nil, withModel(m))
			if res.Status != StatusSucceeded {
				t.Fatalf("status %s: %v", res.Status, res.Err)
			}
			out, _ := finishedData(t, rec, "ask")["output"].(map[string]any)
			if got := usageOf(out); got != tc.want {
				t.Errorf("node.finished usage %+v, want %+v", got, tc.want)
			}
			if len(res.Nodes) != 1 || res.Nodes[0].Usage != tc.want {
				t.Errorf("summary %+v, want usage %+v", res.Nodes, tc.want)
			}
			var retries []*Usage
			for _, e := range rec.events {
				if e.Type != EvNodeRetrying {
					continue
				}
				var d struct {
					Usage *Usage `json:"usage"`
				}
				if err := json.Unmarshal(e.Data, &d); err != nil {
					t.Fatal(err)
				}
				retries = append(retries, d.Usage)
			}
			if len(retries) != len(tc.retries) {
				t.Fatalf("%d node.retrying events, want %d", len(retries), len(tc.retries))
			}
			for i := range retries {
				if (retries[i] == nil) != (tc.retries[i] == nil) || retries[i] != nil && *retries[i] != *tc.retries[i] {
					t.Errorf("node.retrying %d usage %v, want %v", i+1, retries[i], tc.retries[i])
				}
			}
		})
	}
}

// The same run twice records the same events: the summed usage is
// deterministic.
func TestRetriedUsageDeterministic(t *testing.T) {
	n := nd("ask", "llm", "prompt", "json please", "output_schema", map[string]any{"type": "object"})
	n.Retry = plan.Retry{Max: 2}
	p := mkPlan([]plan.Node{n}, nil)
	answer := func(_ context.Context, req ModelRequest) (string, error) {
		if req.Call == 0 {
			return "nope", nil
		}
		return `{"ok": true}`, nil
	}
	var logs []string
	for range 2 {
		_, rec := run(t, p, nil, withModel(pricedModel{newModel(answer)}))
		var b strings.Builder
		for _, e := range rec.events {
			b.WriteString(e.Type + " " + string(e.Data) + "\n")
		}
		logs = append(logs, b.String())
	}
	if logs[0] != logs[1] {
		t.Errorf("two runs differ:\n%s\n%s", logs[0], logs[1])
	}
}
