package plan

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/agentlab/agentlab/canon"
)

// oddPlans are plans whose values sit on the edges of the canonical
// form: empty and nil collections, omitted fields, numbers that change
// notation, strings that need escaping, invalid UTF-8, nested plans and
// values of types a YAML decoder leaves behind.
func oddPlans() map[string]*Plan {
	two := 2
	zero := 0
	return map[string]*Plan{
		"zero":  {},
		"empty": {Inputs: map[string]Input{}, Sources: map[string]Source{}, Nodes: []Node{}, Edges: []Edge{}, Cards: map[string]Card{}, Subflows: map[string]*Plan{}, Tools: map[string]map[string]any{}},
		"full": {Format: 1, Agentlab: 1, Name: "n<&>\u2028", Title: "t\"\\\n", Description: "d\x01\x7f", Version: "1", Tier: TierGoverned,
			Preset: Preset{Name: "p", Rows: []PresetRow{{ID: "a", Use: "u", Disabled: true, Config: map[string]any{"k": 1.5, "z": []any{int64(3), "x"}}}, {ID: "b", Use: "v", Config: map[string]any{}}}},
			Inputs: map[string]Input{
				"q": {Type: "string", Required: true, Default: "x", Description: "d", Enum: []any{"x", "y"}},
				"n": {Type: "number", Default: 0.0},
				"e": {Type: "array", Default: []any{}, Enum: []any{}},
				"z": {Type: "object", Default: map[string]any(nil)},
			},
			Sources:  map[string]Source{"s": {Kind: "csv", Path: "s.csv", Table: "t", MaskColumns: []string{"a", "b"}, RowCap: 5}, "r": {Kind: "sqlite", MaskColumns: []string{}}},
			Settings: Settings{MaxGraphSteps: 1 << 60, RunTimeoutS: 1e21, Parallel: -1, RowCap: 0},
			Nodes: []Node{
				{ID: "a", Type: "transform", Spec: map[string]any{"expr": "1", "f": 1e-7, "g": -0.0, "h": 123456789012345678.0, "i": int(7), "j": json.Number("1.50"), "k": nil, "l": true, "m": []string{"x"}, "n": map[string]any{"é": "\xff", "a": []any{map[string]any{}}}}},
				{ID: "b", Type: "loop", Title: "t", AssignTo: "v", When: "x", OnError: "continue", TimeoutS: 0.5, Retry: Retry{Max: 2, BackoffS: 1.25},
					Body: &Graph{Nodes: []Node{{ID: "c", Type: "llm", Spec: map[string]any{"prompt": "p"}}}, Edges: []Edge{{From: "c", Port: "yes", To: "c"}}}},
				{ID: "d", Type: "noop", Body: &Graph{}},
			},
			Edges:    []Edge{{From: "a", To: "b"}, {From: "b", Port: "p", To: "d"}},
			Cards:    map[string]Card{"c@1": {Name: "c", Version: 1, Metrics: map[string]Metric{"m": {Expr: "sum(x)", Unit: "€", Decimals: &two, Format: "percent"}, "o": {Expr: "y", Decimals: &zero}}}, "d@2": {Name: "d", Version: 2}},
			Subflows: map[string]*Plan{"b3:1": {Name: "sub", Nodes: []Node{{ID: "x", Spec: map[string]any{}}}}, "b3:0": nil},
			Tools:    map[string]map[string]any{"t": {"name": "t", "params": map[string]any{"a": "string"}, "list": []string{"x"}}, "u": nil},
		},
		"bad-utf8-keys": {Inputs: map[string]Input{"a\xff": {Type: "string"}, "a\xfe": {Type: "number"}}},
		"bad-utf8-spec": {Nodes: []Node{{ID: "a", Spec: map[string]any{"k\xff": 1, "k\xfe": 2, "k\uFFFD": 3}}}},
		"other-types":   {Nodes: []Node{{ID: "a", Spec: map[string]any{"s": struct{ B int }{1}, "m": map[string]int{"b": 1, "a": 2}, "f32": float32(0.1), "u": uint8(200)}}}},
	}
}

// TestEncodeEqualsMarshal: the field-by-field encoder writes exactly the
// bytes of canon.Marshal, the definition of a plan's canonical form, for
// every golden plan of the compiler and for plans on the edges of the
// format; the plan file with a flow directory equals the old splice.
func TestEncodeEqualsMarshal(t *testing.T) {
	plans := oddPlans()
	golden, _ := filepath.Glob(filepath.Join("..", "compile", "testdata", "golden", "*.plan.json"))
	if len(golden) == 0 {
		t.Fatal("no golden plans found")
	}
	for _, g := range golden {
		b, err := os.ReadFile(g)
		if err != nil {
			t.Fatal(err)
		}
		p, _, err := Decode(b)
		if err != nil {
			t.Fatalf("%s: %v", g, err)
		}
		plans[filepath.Base(g)] = p
	}
	for name, p := range plans {
		t.Run(name, func(t *testing.T) { sameEncoding(t, p) })
	}
}

func TestEncodeRefusesWhatMarshalRefuses(t *testing.T) {
	for name, p := range map[string]*Plan{
		"NaN timeout":  {Nodes: []Node{{TimeoutS: math.NaN()}}},
		"Inf in spec":  {Nodes: []Node{{Spec: map[string]any{"x": math.Inf(1)}}}},
		"bad number":   {Inputs: map[string]Input{"a": {Default: json.Number("1x")}}},
		"Inf settings": {Settings: Settings{RunTimeoutS: math.Inf(-1)}},
	} {
		if _, err := canon.Marshal(p); err == nil {
			t.Fatalf("%s: canon.Marshal accepted it; the case is wrong", name)
		}
		if _, err := p.Encode(); err == nil {
			t.Errorf("%s: Encode accepted a plan canon.Marshal refuses", name)
		}
	}
}

func sameEncoding(t *testing.T, p *Plan) {
	t.Helper()
	want, werr := canon.Marshal(p)
	enc, err := p.Encode()
	if (err != nil) != (werr != nil) {
		t.Fatalf("Encode error %v, canon.Marshal error %v", err, werr)
	}
	if err != nil {
		return
	}
	if !bytes.Equal(enc.Bytes, want) {
		t.Fatalf("Encode differs from canon.Marshal:\n got %s\nwant %s", enc.Bytes, want)
	}
	for _, dir := range []string{"", ".", "../flows", "d\"\\\xff<>"} {
		got, err := enc.File(dir)
		if err != nil {
			t.Fatal(err)
		}
		wantFile := append(bytes.Clone(want), '\n')
		if dir != "" && dir != "." {
			if wantFile, err = marshalFileSlow(want, dir); err != nil {
				t.Fatal(err)
			}
		}
		if !bytes.Equal(got, wantFile) {
			t.Fatalf("File(%q) differs:\n got %s\nwant %s", dir, got, wantFile)
		}
	}
}

// FuzzEncodeEqualsMarshal: whatever plan JSON decodes to (a plan file
// edited as text included), Encode and canon.Marshal agree byte for byte.
func FuzzEncodeEqualsMarshal(f *testing.F) {
	for _, p := range oddPlans() {
		if b, err := json.Marshal(p); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte(`{"nodes":[{"spec":{"a":1e400}}]}`))
	f.Add([]byte(`{"nodes":[{"body":{"nodes":[{"body":null}]}}],"subflows":{"x":{"name":"\ud800"}}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		var p Plan
		if json.Unmarshal(b, &p) != nil {
			return
		}
		sameEncoding(t, &p)
	})
}

// TestEncodeLargePlan: a plan of many chunks (encoder.spill) — long lists
// of nodes and edges, a loop body and a subflow each spanning chunks, and
// one value larger than a chunk — still encodes to canon.Marshal's bytes,
// and the flow directory lands at its place in the key order.
func TestEncodeLargePlan(t *testing.T) {
	graph := func(n int, prefix string) ([]Node, []Edge) {
		nodes := make([]Node, n)
		edges := make([]Edge, 0, n)
		for i := range nodes {
			id := prefix + string(rune('a'+i%26)) + string(rune('a'+i/26%26)) + string(rune('a'+i/676%26))
			nodes[i] = Node{ID: id, Type: "transform", Retry: Retry{Max: i % 3}, Spec: map[string]any{"expr": "len(string(nodes.x)) + 1", "i": float64(i)}}
			if i > 0 {
				edges = append(edges, Edge{From: nodes[i-1].ID, To: id})
			}
		}
		return nodes, edges
	}
	nodes, edges := graph(20_000, "n")
	body, bodyEdges := graph(3_000, "b")
	nodes[10].Body = &Graph{Nodes: body, Edges: bodyEdges}
	nodes[11].Spec["big"] = string(bytes.Repeat([]byte("x\"é"), encChunk/2))
	subNodes, subEdges := graph(4_000, "s")
	p := &Plan{Format: 1, Agentlab: 1, Name: "big", Nodes: nodes, Edges: edges,
		Subflows: map[string]*Plan{"b3:1": {Name: "sub", Nodes: subNodes, Edges: subEdges}}}
	enc, err := p.Encode()
	if err != nil {
		t.Fatal(err)
	}
	if len(enc.Bytes) < 8*encChunk {
		t.Fatalf("the plan is %d bytes, too small to span many chunks", len(enc.Bytes))
	}
	sameEncoding(t, p)
}
