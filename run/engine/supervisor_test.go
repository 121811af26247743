package engine

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/agentlab/agentlab/plan"
)

func supervisorPlan() *plan.Plan {
	p := mkPlan([]plan.Node{nd("team", "supervisor", "prompt", "Compare the regions.", "max_rounds", 2,
		"workers", []any{
			map[string]any{"id": "north", "role": "the north analyst", "tools": []any{"db_query__sales"}},
			map[string]any{"id": "south", "role": "the south analyst", "tools": []any{"db_query__sales"}},
		})}, nil)
	return p
}

// teamModel: the coordinator assigns both workers in round 1 (south
// first) and answers in round 2; each worker queries once, after a delay
// that makes the faster worker finish first, then answers.
func teamModel() *agentModel {
	return &agentModel{fn: func(i int, req ModelRequest) ModelResponse {
		switch {
		case req.Kind == "supervisor" && req.Call == 0:
			return ModelResponse{ToolCalls: []ToolCall{
				{ID: "c1", Name: "assign__south", Args: json.RawMessage(`{"task": "sum the south"}`)},
				{ID: "c2", Name: "assign__north", Args: json.RawMessage(`{"task": "sum the north"}`)},
				{ID: "c3", Name: "assign__east", Args: json.RawMessage(`{"task": "?"}`)},
			}}
		case req.Kind == "supervisor":
			return answer("north 120, south 80")
		case req.Call == 0:
			if strings.HasSuffix(req.Node, ".south") {
				time.Sleep(20 * time.Millisecond)
			}
			return call("db_query__sales", fmt.Sprintf(`{"sql": "SELECT gmv FROM sales -- %s"}`, req.Node))
		}
		return answer("the " + req.Node + " total")
	}}
}

func TestSupervisorDeterministic(t *testing.T) {
	var first []string
	for i := 0; i < 5; i++ {
		m := teamModel()
		res, rec := run(t, supervisorPlan(), nil, withModel(m), withParallel(4),
			func(c *Config) { c.Sources = describedFake{} }, withHost(Host{Yes: true}))
		if res.Status != StatusSucceeded {
			t.Fatalf("%s %v", res.Status, res.Err)
		}
		lines := rec.lines()
		if i == 0 {
			first = lines
			continue
		}
		if strings.Join(lines, "\n") != strings.Join(first, "\n") {
			t.Fatalf("run %d wrote other events:\n%s\n---\n%s", i, strings.Join(lines, "\n"), strings.Join(first, "\n"))
		}
	}
	joined := strings.Join(first, "\n")
	// south was named first: its snapshot is Q1, its events come first.
	south := strings.Index(joined, `"worker":"south"`)
	north := strings.Index(joined, `"worker":"north"`)
	if south < 0 || north < 0 || south > north {
		t.Errorf("worker events out of order:\n%s", joined)
	}
	if !strings.Contains(joined, `"snapshot":"Q1"`) || !strings.Contains(joined, `no worker tool named \"assign__east\"`) {
		t.Errorf("events:\n%s", joined)
	}
	var fin map[string]any
	for _, l := range first {
		if strings.HasPrefix(l, "node.finished team ") {
			_ = json.Unmarshal([]byte(strings.TrimPrefix(l, "node.finished team ")), &fin)
		}
	}
	out := fin["output"].(map[string]any)
	if out["text"] != "north 120, south 80" || out["rounds"] != 1.0 || len(out["assignments"].([]any)) != 2 {
		t.Errorf("output = %v", out)
	}
}

func TestSupervisorRefusedOutsideExploratory(t *testing.T) {
	p := supervisorPlan()
	p.Tier = plan.TierPublished
	rec := newRecorder()
	_, err := Run(t.Context(), Config{Plan: p, Recorder: rec, Model: teamModel()})
	if err == nil || !strings.Contains(err.Error(), `supervisor "team" runs only in exploratory runs`) {
		t.Fatalf("err = %v", err)
	}
}
