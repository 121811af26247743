package engine

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agentlab/agentlab/plan"
)

func TestValidateRework(t *testing.T) {
	m := newModel(func(_ context.Context, req ModelRequest) (string, error) {
		if strings.Contains(req.Messages[0].Content, "did not match") {
			return `{"name": "Ada", "age": 36}`, nil
		}
		return `{"name": "Ada"}`, nil
	})
	schema := map[string]any{"type": "object", "required": []any{"name", "age"}}
	p := mkPlan([]plan.Node{
		nd("extract", "llm", "prompt", "who?"),
		nd("check", "validate", "target", "extract", "schema", schema, "rework", "extract", "max_reworks", 2),
		nd("out", "output", "fields", map[string]any{"who": "{{ nodes.extract.text }}", "age": "{{ vars.person }}"}),
	}, edges("extract -> check", "check -> out"))
	p.Nodes[0].AssignTo = "person"
	res, rec := run(t, p, nil, withModel(m))
	if res.Status != StatusSucceeded {
		t.Fatalf("%s: %v", res.Status, res.Err)
	}
	if !strings.Contains(res.Outputs["who"].(string), `"age": 36`) {
		t.Errorf("downstream saw the old output: %v", res.Outputs)
	}
	if !strings.Contains(res.Outputs["age"].(string), "36") {
		t.Errorf("assign_to not updated by the rework: %v", res.Outputs)
	}
	if !slices.Contains(rec.ofType(EvNodeFinished), "check.rework[1]") {
		t.Errorf("rework not recorded: %v", rec.ofType(EvNodeFinished))
	}
	// Resume restores the reworked output without calling the model.
	prior, err := NewPrior(rec.events[:len(rec.events)-2], rec.get)
	if err != nil {
		t.Fatal(err)
	}
	m2 := newModel(m.answer)
	res2, _ := run(t, p, nil, withModel(m2), withPrior(prior))
	if res2.Status != StatusSucceeded || res2.Outputs["who"] != res.Outputs["who"] || m2.count("extract") != 0 {
		t.Errorf("resume: %v %v calls=%d", res2.Status, res2.Outputs, m2.count("extract"))
	}

	// Out of reworks: a clear failure.
	never := newModel(func(context.Context, ModelRequest) (string, error) { return `{"name": 1}`, nil })
	res, _ = run(t, p, nil, withModel(never))
	if res.Status != StatusFailed || !strings.Contains(res.Err.Error(), "after 2 rework(s)") {
		t.Errorf("%s: %v", res.Status, res.Err)
	}
}

func TestLLMOutputSchema(t *testing.T) {
	schema := map[string]any{"type": "object", "properties": map[string]any{"n": map[string]any{"type": "integer"}}, "required": []any{"n"}}
	for _, tc := range []struct {
		answer, err string
	}{
		{"```json\n{\"n\": 3}\n```", ""},
		{`{"n": "three"}`, "does not match output_schema"},
		{`n is 3`, "is not JSON"},
	} {
		m := newModel(func(context.Context, ModelRequest) (string, error) { return tc.answer, nil })
		p := mkPlan([]plan.Node{
			nd("ask", "llm", "prompt", "n?", "output_schema", schema),
			nd("out", "output", "fields", map[string]any{"n": "{{ nodes.ask.json.n }}"}),
		}, edges("ask -> out"))
		res, _ := run(t, p, nil, withModel(m))
		if tc.err == "" {
			if res.Status != StatusSucceeded || res.Outputs["n"] != "3" {
				t.Errorf("%q: %s %v %v", tc.answer, res.Status, res.Outputs, res.Err)
			}
			continue
		}
		if res.Status != StatusFailed || !strings.Contains(res.Err.Error(), tc.err) {
			t.Errorf("%q: %s %v", tc.answer, res.Status, res.Err)
		}
	}
}

func TestSemanticBranch(t *testing.T) {
	m := newModel(func(_ context.Context, req ModelRequest) (string, error) {
		if req.Kind != "branch" || !slices.Equal(req.Labels, []string{"billing", "tech"}) {
			return "", errors.New("bad request")
		}
		return " Tech\n", nil
	})
	p := mkPlan([]plan.Node{
		nd("route", "branch", "mode", "semantic", "labels", []any{"billing", "tech"}, "prompt", "My router is broken"),
		nd("b", "transform", "expr", "'billing'"),
		nd("t", "transform", "expr", "'tech'"),
	}, edges("route.billing -> b", "route.tech -> t"))
	res, rec := run(t, p, nil, withModel(m))
	if res.Status != StatusSucceeded {
		t.Fatal(res.Err)
	}
	if got := rec.ofType(EvNodeSkipped); !slices.Equal(got, []string{"b"}) {
		t.Errorf("skipped %v", got)
	}
}

func TestBranchWithoutDefault(t *testing.T) {
	p := mkPlan([]plan.Node{
		nd("br", "branch", "cases", []any{map[string]any{"when": "false", "port": "a"}}),
		nd("x", "transform", "expr", "1"),
	}, edges("br.a -> x"))
	res, _ := run(t, p, nil)
	if res.Status != StatusFailed || !strings.Contains(res.Err.Error(), "add default: PORT") {
		t.Errorf("%s: %v", res.Status, res.Err)
	}
}

func TestMemory(t *testing.T) {
	dir := t.TempDir()
	p := mkPlan([]plan.Node{
		nd("before", "memory", "op", "read", "key", "greeting"),
		nd("save", "memory", "op", "write", "key", "greeting", "value", "hello {{ input.who }}"),
		nd("mine", "memory", "op", "write", "key", "k", "value", "x", "scope", "actor"),
	}, edges("before -> save"))
	p.Inputs = map[string]plan.Input{"who": {Type: "string", Default: "world"}}
	p.Nodes[0].AssignTo = "old"
	withDir := func(c *Config) { c.MemoryDir = dir }
	res, _ := run(t, p, nil, withDir)
	if res.Status != StatusSucceeded {
		t.Fatal(res.Err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "flow", "t", "greeting.json"))
	if err != nil || string(b) != `{"value":"hello world"}` {
		t.Errorf("memory file %q %v", b, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "actor", "tester", "k.json")); err != nil {
		t.Errorf("actor memory: %v", err)
	}
	p2 := mkPlan([]plan.Node{
		nd("get", "memory", "op", "read", "key", "greeting"),
		nd("out", "output", "fields", map[string]any{"g": "{{ vars.g }}", "found": "{{ nodes.get.found }}"}),
	}, edges("get -> out"))
	p2.Nodes[0].AssignTo = "g"
	res, _ = run(t, p2, nil, withDir)
	if res.Outputs["g"] != "hello world" || res.Outputs["found"] != "true" {
		t.Errorf("read back %v (%v)", res.Outputs, res.Err)
	}
	bad := mkPlan([]plan.Node{nd("m", "memory", "op", "read", "key", "../etc/passwd")}, nil)
	res, _ = run(t, bad, nil, withDir)
	if res.Status != StatusFailed || !strings.Contains(res.Err.Error(), "memory key") {
		t.Errorf("path escape not refused: %v", res.Err)
	}
}

func TestOutputSchema(t *testing.T) {
	p := mkPlan([]plan.Node{
		nd("out", "output", "fields", map[string]any{"a": "x"}, "schema", map[string]any{"type": "object", "required": []any{"b"}}),
	}, nil)
	res, _ := run(t, p, nil)
	if res.Status != StatusFailed || !strings.Contains(res.Err.Error(), "do not match its schema") {
		t.Errorf("%s %v", res.Status, res.Err)
	}
}

func TestPrepareInputs(t *testing.T) {
	decls := map[string]plan.Input{
		"q":    {Type: "string", Required: true},
		"n":    {Type: "integer", Default: 3.0},
		"f":    {Type: "number"},
		"b":    {Type: "boolean"},
		"tags": {Type: "array"},
		"mode": {Type: "string", Enum: []any{"fast", "slow"}},
	}
	for _, tc := range []struct {
		name string
		in   map[string]any
		want string
		err  string
	}{
		{"defaults", map[string]any{"q": "hi"}, `{"n":3,"q":"hi"}`, ""},
		{"coerce", map[string]any{"q": "hi", "n": "7", "f": "2.5", "b": "true", "tags": `["a"]`}, `{"b":true,"f":2.5,"n":7,"q":"hi","tags":["a"]}`, ""},
		{"typed", map[string]any{"q": "hi", "n": 7.0, "b": false}, `{"b":false,"n":7,"q":"hi"}`, ""},
		{"missing", map[string]any{}, "", `input "q" is required`},
		{"unknown", map[string]any{"q": "x", "zz": "1"}, "", `input "zz" is not declared by the flow; declared inputs: b, f, mode, n, q, tags`},
		{"badint", map[string]any{"q": "x", "n": "1.5"}, "", `input "n" must be an integer`},
		{"notint", map[string]any{"q": "x", "n": 1.5}, "", `input "n" must be an integer`},
		{"badbool", map[string]any{"q": "x", "b": "maybe"}, "", `input "b" must be a boolean`},
		{"badjson", map[string]any{"q": "x", "tags": "[a"}, "", `input "tags" must be an array`},
		{"enum", map[string]any{"q": "x", "mode": "medium"}, "", `input "mode" must be one of [fast slow]`},
		{"wrongtype", map[string]any{"q": 5.0}, "", `input "q" must be a string`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := PrepareInputs(decls, tc.in)
			if tc.err != "" {
				var ie *InputError
				if !errors.As(err, &ie) || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if s := jsonOf(got); s != tc.want {
				t.Errorf("got %s, want %s", s, tc.want)
			}
		})
	}
}

func TestCommitOrderBuffersLaterNodes(t *testing.T) {
	var out []string
	s := newSequencer(sinkFunc(func(ev pendingEvent) error { out = append(out, ev.node); return nil }), 3)
	s.emit(2, pendingEvent{node: "c"})
	s.emit(1, pendingEvent{node: "b"})
	s.emit(0, pendingEvent{node: "a1"})
	s.emit(0, pendingEvent{node: "a2"})
	if strings.Join(out, ",") != "a1,a2" {
		t.Fatalf("head not written through: %v", out)
	}
	s.close(2)
	s.close(0)
	if strings.Join(out, ",") != "a1,a2,b" {
		t.Fatalf("after closing a: %v", out)
	}
	s.close(1)
	if strings.Join(out, ",") != "a1,a2,b,c" {
		t.Fatalf("after closing b: %v", out)
	}
}

type sinkFunc func(pendingEvent) error

func (f sinkFunc) emit(ev pendingEvent) error { return f(ev) }

func (f sinkFunc) emitBatch(evs []pendingEvent) error {
	for _, ev := range evs {
		if err := f(ev); err != nil {
			return err
		}
	}
	return nil
}

func TestRecorderFailureStopsTheRun(t *testing.T) {
	rec := newRecorder()
	rec.failAfter = 3
	p := mkPlan([]plan.Node{nd("a", "transform", "expr", "1"), nd("b", "transform", "expr", "2"), nd("c", "transform", "expr", "3")}, edges("a -> b", "b -> c"))
	res, _ := run(t, p, nil, withRecorder(rec))
	if res.Status != StatusFailed || !strings.Contains(res.Err.Error(), "disk full") {
		t.Errorf("%s %v", res.Status, res.Err)
	}
}
