package plan

import (
	"strings"
	"testing"
)

// FuzzDecodeFile feeds the plan reader arbitrary bytes, as a hand-edited or
// hostile plan file would: it must never panic, every problem must carry a
// code, a position inside the file and a fix, and never a Go type name;
// an accepted plan must hash and hold nodes.
func FuzzDecodeFile(f *testing.F) {
	for _, s := range []string{
		`{"format": 1}`,
		`{"format": 1, "nodes": [{"id": "a", "type": "llm"}], "edges": [{"from": "a", "to": "a"}]}`,
		"{\"format\": 1,\n \"settings\": {\"parallel\": -2},\n \"nodes\": [{\"id\": 3}]}",
		`{"format": 1, "nodes": [{"id": "l", "type": "loop", "body": {"nodes": [{"id": "x", "type": "llm"}], "edges": []}}]}`,
		`{"format": "1", "nodes": {}}`,
		`[`, ``, `{"format": 1, "nodes": [{"id": "a", "type": "llm", "retry": {"max": -1}}]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		p, _, l := DecodeFile("p.json", b)
		lines := 1 + strings.Count(string(b), "\n")
		for _, d := range l {
			if d.Code == "" || d.Fix == "" || d.Message == "" {
				t.Fatalf("incomplete diagnostic %+v", d)
			}
			if d.Line < 1 || d.Line > lines || d.Col < 1 {
				t.Fatalf("position %d:%d outside the file (%d lines): %+v", d.Line, d.Col, lines, d)
			}
			if strings.Contains(d.Message, "Go struct") || strings.Contains(d.Message, "unmarshal") {
				t.Fatalf("a Go decoding message: %s", d.Message)
			}
		}
		if p != nil {
			if l.HasErrors() || len(p.Nodes) == 0 {
				t.Fatalf("accepted with errors %v or without nodes", l)
			}
			if _, err := p.Hash(); err != nil {
				t.Fatalf("accepted plan does not hash: %v", err)
			}
		} else if !l.HasErrors() {
			t.Fatal("refused without an error")
		}
	})
}
