package engine

import (
	"context"
	"regexp"
	"slices"
	"sort"
	"sync"
	"testing"

	"github.com/agentlab/agentlab/plan"
)

// modelIDPlan has model calls at the top level, in nested loops, in a
// subflow called from a loop, and a supervisor's and a report's extra ids.
func modelIDPlan() *plan.Plan {
	sub := mkPlan([]plan.Node{
		nd("in", "input"),
		nd("ask", "llm", "prompt", "say {{ input.word }}"),
		nd("out", "output", "fields", map[string]any{"said": "{{ nodes.ask.text }}"}),
	}, edges("in -> ask", "ask -> out"))
	sub.Name = "sayer"
	sub.Inputs = map[string]plan.Input{"word": {Type: "string", Required: true}}
	innerLoop := nd("inner", "loop", "over", "[1, 2]", "max_iterations", 2)
	innerLoop.Body = &plan.Graph{Nodes: []plan.Node{nd("deep", "llm", "prompt", "deep {{ item }}")}}
	outer := nd("outer", "loop", "over", "['a', 'b', 'c']", "max_iterations", 3)
	outer.Body = &plan.Graph{
		Nodes: []plan.Node{nd("step", "llm", "prompt", "step {{ item }}"), innerLoop,
			nd("call", "subgraph", "pin", "b3:sub", "inputs", map[string]any{"word": "{{ item }}"})},
		Edges: edges("step -> inner", "inner -> call"),
	}
	p := mkPlan([]plan.Node{nd("first", "llm", "prompt", "hi"), outer,
		nd("boss", "supervisor", "prompt", "coordinate", "workers", []any{map[string]any{"id": "scout", "role": "looks"}}),
		nd("brief", "report", "prompt", "write"),
		nd("out", "output", "fields", map[string]any{"x": "{{ nodes.first.text }}"})},
		edges("first -> outer", "outer -> out"))
	p.Subflows = map[string]*plan.Plan{"b3:sub": sub}
	return p
}

func TestModelNodeIDs(t *testing.T) {
	got := ModelNodeIDs(modelIDPlan())
	want := []string{
		"boss", "boss.scout", "brief", "brief:judge", "first", "out", "outer",
		"outer[].call", "outer[].call.ask", "outer[].call.in", "outer[].call.out",
		"outer[].inner", "outer[].inner[].deep", "outer[].step",
	}
	if !slices.Equal(got, want) {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	if len(ModelNodeIDs(nil)) != 0 {
		t.Error("a nil plan has no ids")
	}
	// A subflow that names itself is followed only so deep.
	self := mkPlan([]plan.Node{nd("again", "subgraph", "pin", "b3:self")}, nil)
	self.Subflows = map[string]*plan.Plan{"b3:self": self}
	if n := len(ModelNodeIDs(self)); n != maxModelIDDepth+1 {
		t.Errorf("self-referencing subflow: %d ids", n)
	}
}

// TestModelNodeIDsMatchRun runs the plan and checks that every node id a
// model call was made with is one ModelNodeIDs lists, iterations written
// as "[]": the W-SCRIPT-NODE check relies on it.
func TestModelNodeIDsMatchRun(t *testing.T) {
	p := modelIDPlan()
	p.Nodes = slices.DeleteFunc(p.Nodes, func(n plan.Node) bool { return n.Type == "supervisor" || n.Type == "report" })
	var mu sync.Mutex
	seen := map[string]bool{}
	m := newModel(func(_ context.Context, req ModelRequest) (string, error) {
		mu.Lock()
		seen[req.Node] = true
		mu.Unlock()
		return "ok", nil
	})
	res, _ := run(t, p, nil, withModel(m))
	if res.Status != StatusSucceeded {
		t.Fatalf("%s: %v", res.Status, res.Err)
	}
	known := ModelNodeIDs(p)
	iter := regexp.MustCompile(`\[[0-9]+\]`)
	var called []string
	for id := range seen {
		called = append(called, id)
		if g := iter.ReplaceAllString(id, "[]"); !slices.Contains(known, g) {
			t.Errorf("the run called the model as %q (%s), which ModelNodeIDs does not list: %q", id, g, known)
		}
	}
	sort.Strings(called)
	for _, want := range []string{"first", "outer[0].step", "outer[2].inner[1].deep", "outer[1].call.ask"} {
		if !seen[want] {
			t.Errorf("no call as %q; calls: %q", want, called)
		}
	}
}
