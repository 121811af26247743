package plan

import (
	"strings"
	"testing"
)

// TestDecodeFileHandEditedPlans: a plan edited by hand, or written by
// something other than compile, is refused before anything runs, with the
// code and the position of the value at fault — never a Go decoding
// message.
func TestDecodeFileHandEditedPlans(t *testing.T) {
	for _, tt := range []struct {
		name, plan string
		code       string
		line, col  int
		msg        string
	}{
		{"no-nodes", `{"format": 1}`, CodeNodes, 1, 1, "no nodes"},
		{"wrong-format", `{"format": 7, "nodes": []}`, CodeFormat, 1, 12, "format 7"},
		{"cut-short", `{"format": 1, "nodes": [`, CodeJSON, 1, 25, "not valid JSON"},
		{"id-is-a-number", "{\"format\": 1,\n \"nodes\": [{\"id\": 3}]}", CodeJSON, 2, 19, "nodes.id is a JSON number, but it must be a string"},
		{"negative-parallel", "{\"format\": 1,\n  \"settings\": {\"parallel\": -2},\n  \"nodes\": [{\"id\": \"a\", \"type\": \"llm\"}]}", CodeRange, 2, 28, "settings.parallel is -2"},
		{"negative-timeout", `{"format": 1, "settings": {"run_timeout_s": -1}, "nodes": [{"id": "a", "type": "llm"}]}`, CodeRange, 1, 45, "run_timeout_s is -1"},
		{"node-timeout", `{"format": 1, "nodes": [{"id": "a", "type": "llm", "timeout_s": -5}]}`, CodeRange, 1, 65, `timeout_s of node "a" is -5`},
		{"no-type", `{"format": 1, "nodes": [{"id": "a"}]}`, CodeNodes, 1, 25, `node "a" has no type`},
		{"duplicate-id", `{"format": 1, "nodes": [{"id": "a", "type": "llm"}, {"id": "a", "type": "llm"}]}`, CodeNodes, 1, 60, `"a" is used twice`},
		{"unknown-edge", `{"format": 1, "nodes": [{"id": "a", "type": "llm"}], "edges": [{"from": "a", "to": "zz"}]}`, CodeEdge, 1, 84, `to "zz" names no node`},
		{"cycle", `{"format": 1, "nodes": [{"id": "a", "type": "llm"}, {"id": "b", "type": "llm"}], "edges": [{"from": "a", "to": "b"}, {"from": "b", "to": "a"}]}`, CodeCycle, 1, 91, "a -> b -> a"},
		{"cycle-in-a-loop-body", `{"format": 1, "nodes": [{"id": "l", "type": "loop", "body": {"nodes": [{"id": "x", "type": "llm"}], "edges": [{"from": "x", "to": "x"}]}}]}`, CodeCycle, 1, 110, "x -> x"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p, _, l := DecodeFile("p.json", []byte(tt.plan))
			if p != nil || !l.HasErrors() {
				t.Fatalf("accepted: %+v", p)
			}
			for _, d := range l {
				if d.Code == tt.code && strings.Contains(d.Message, tt.msg) {
					if d.Line != tt.line || d.Col != tt.col {
						t.Errorf("%s at %d:%d, want %d:%d", d.Code, d.Line, d.Col, tt.line, tt.col)
					}
					if d.Fix == "" || strings.Contains(d.Message, "json:") || strings.Contains(d.Message, "Go ") {
						t.Errorf("message %q (fix %q)", d.Message, d.Fix)
					}
					return
				}
			}
			t.Errorf("want %s %q, got %v", tt.code, tt.msg, l)
		})
	}
}

// TestIsPlan: a JSON object with "agentlab" is a flow in JSON syntax; one
// with "format" is a plan.
func TestIsPlan(t *testing.T) {
	for in, want := range map[string]bool{
		`{"format": 1, "nodes": []}`:     true,
		`{"agentlab": 1, "name": "x"}`:   false,
		"agentlab: 1\nname: x\n":         false,
		`  {"format": 1, "agentlab": 1}`: true,
		`{"format": 1, "nodes": [`:       true,
		`[1, 2]`:                         false,
	} {
		if got := IsPlan([]byte(in)); got != want {
			t.Errorf("IsPlan(%q) = %v, want %v", in, got, want)
		}
	}
}
