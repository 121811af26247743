package compile

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// TestScopes checks what each string may see: upstream nodes and
// variables, loop names inside a body, outer names inside a body, and not
// body nodes after the loop.
func TestScopes(t *testing.T) {
	cases := []struct {
		name string
		flow string
		want string // sorted error codes, comma-separated
	}{
		{"upstream ok", `
nodes:
  - {id: a, type: llm, prompt: hi, assign_to: x}
  - {id: b, type: transform, expr: "len(nodes.a.text) + len(vars.x.text)"}
  - {id: o, type: output}
edges: [a -> b -> o]`, ""},
		{"downstream node", `
nodes:
  - {id: a, type: transform, expr: "nodes.b"}
  - {id: b, type: transform, expr: "1"}
  - {id: o, type: output}
edges: [a -> b -> o]`, "E-EXPR-NODE"},
		{"sibling branch not upstream", `
nodes:
  - {id: s, type: input}
  - {id: a, type: transform, expr: "1"}
  - {id: b, type: transform, expr: "nodes.a"}
  - {id: o, type: output}
edges: [s -> a -> o, s -> b -> o]`, "E-EXPR-NODE"},
		{"var set downstream", `
nodes:
  - {id: a, type: transform, expr: "vars.later"}
  - {id: b, type: transform, expr: "1", assign_to: later}
  - {id: o, type: output}
edges: [a -> b -> o]`, "E-EXPR-VAR"},
		{"own when cannot see own output", `
nodes:
  - {id: a, type: transform, expr: "1", when: "nodes.a != nil"}
  - {id: o, type: output}
edges: [a -> o]`, "E-EXPR-NODE"},
		{"loop body sees item, outer nodes; collect after loop", `
nodes:
  - {id: src, type: transform, expr: "[1, 2]"}
  - id: l
    type: loop
    over: "[1, 2]"
    max_iterations: 5
    collect: outs
    body:
      nodes:
        - {id: x, type: transform, expr: "item + index + len(string(nodes.src))"}
  - {id: after, type: transform, expr: "len(vars.outs)"}
  - {id: o, type: output}
edges: [src -> l -> after -> o]`, ""},
		{"item outside loop, body node after loop", `
nodes:
  - id: l
    type: loop
    over: "[1]"
    max_iterations: 5
    body:
      nodes:
        - {id: x, type: transform, expr: "item"}
  - {id: after, type: transform, expr: "nodes.x"}
  - {id: bad, type: transform, expr: "item"}
  - {id: o, type: output}
edges: [l -> after -> bad -> o]`, "E-EXPR-LOOP,E-EXPR-NODE"},
		{"while sees collect and body vars", `
nodes:
  - id: l
    type: loop
    while: "len(vars.acc) < 3 && vars.step != nil"
    max_iterations: 5
    collect: acc
    body:
      nodes:
        - {id: x, type: transform, expr: "index", assign_to: step}
  - {id: o, type: output}
edges: [l -> o]`, ""},
		{"metric fields", `
nodes:
  - {id: m, type: metrics, metrics: {gmv: {expr: "1"}}}
  - {id: r, type: llm, prompt: "{{ nodes.m.gmv }} {{ nodes.m.gmw }}"}
  - {id: o, type: output}
edges: [m -> r -> o]`, "E-TMPL-FIELD"},
		{"json only with output_schema", `
nodes:
  - {id: a, type: llm, prompt: hi}
  - {id: b, type: llm, prompt: hi, output_schema: {type: object}}
  - {id: c, type: llm, prompt: "{{ nodes.a.json }} {{ nodes.b.json }}"}
  - {id: o, type: output}
edges: [a -> b -> c -> o]`, "E-TMPL-FIELD"},
		{"fields the engine returns", `
sources:
  s: {kind: csv, path: s.csv}
nodes:
  - {id: q, type: tool, tool: db_query__s, args: {sql: "SELECT 1"}}
  - {id: mg, type: merge, inputs: [q], key: a}
  - {id: d, type: retrieve, from: docs, query: x}
  - {id: r, type: report, prompt: "{{ nodes.d.hits }} {{ nodes.d.query }} {{ nodes.q.node }} {{ nodes.mg.rows }}"}
  - {id: g, type: agent, prompt: "{{ nodes.r.source }} {{ nodes.r.violations }} {{ nodes.r.model }} {{ nodes.r.usage }}"}
  - {id: l, type: llm, prompt: "{{ nodes.g.steps }} {{ nodes.g.stop }} {{ nodes.g.snapshots }} {{ nodes.g.tool_calls }}"}
  - {id: o, type: output, fields: {a: "{{ nodes.l.model }} {{ nodes.l.usage }}"}}
edges: [q -> mg -> d -> r -> g -> l -> o]`, ""},
		{"misspelt engine fields", `
nodes:
  - {id: d, type: retrieve, from: docs, query: x}
  - {id: r, type: report, prompt: "{{ nodes.d.hit }}"}
  - {id: o, type: output, fields: {a: "{{ nodes.r.sources }}"}}
edges: [d -> r -> o]`, "E-TMPL-FIELD,E-TMPL-FIELD"},
		{"registry tool output has any shape", `
nodes:
  - {id: f, type: tool, tool: http_fetch, args: {url: "https://example.com"}}
  - {id: o, type: output, fields: {a: "{{ nodes.f.status }}"}}
edges: [f -> o]`, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "f.flow.yml")
			os.WriteFile(p, []byte("agentlab: 1\nname: t"+c.flow+"\n"), 0o644)
			var codes []string
			for _, d := range LintFile(p, Options{}) {
				if d.Severity == "error" {
					codes = append(codes, d.Code)
				}
			}
			sort.Strings(codes)
			if got := strings.Join(codes, ","); got != c.want {
				t.Errorf("errors %q, want %q\n%s", got, c.want, dump(LintFile(p, Options{})))
			}
		})
	}
}

func TestLoopWithoutBody(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f.flow.yml")
	os.WriteFile(p, []byte("agentlab: 1\nname: t\nnodes:\n  - {id: l, type: loop, over: '[1]', max_iterations: 1}\n"), 0o644)
	l := LintFile(p, Options{})
	for _, d := range l {
		if d.Code == "E-SCHEMA-REQUIRED" && d.Line == 4 {
			return
		}
	}
	t.Fatalf("got:\n%s", dump(l))
}
