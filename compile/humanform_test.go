package compile

import (
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/agentlab/agentlab/diag"
)

// formFlow is a human node with a form, followed by a node whose
// expression (and an output whose template) is given by each case.
const formFlow = `agentlab: 1
name: t
nodes:
  - id: gate
    type: human
    prompt: ok?
    form:
%s
  - {id: next, type: transform, expr: %q}
  - {id: out, type: output, fields: {v: %q}}
edges: [gate.approve -> next, next -> out]
`

// TestHumanForm checks the form checks and the scope of
// nodes.<id>.form.<field>: sorted error codes per case.
func TestHumanForm(t *testing.T) {
	const good = "      ticket: {type: string, required: true}\n      risk: {type: string, enum: [low, high]}\n      n: number"
	cases := []struct {
		name, form, expr, tmpl string
		want                   string
	}{
		{"fields in scope", good, "nodes.gate.form.n > 2 && nodes.gate.form.risk == 'low'", "{{ nodes.gate.form.ticket }} {{ nodes.gate.decision }}", ""},
		{"the shorthand", "      ticket: string\n      ok: boolean", "nodes.gate.form.ok", "{{ nodes.gate.form.ticket }}", ""},
		{"unknown form field", good, "nodes.gate.form.tiket", "{{ nodes.gate.form.rsk }}", "E-EXPR-FIELD,E-TMPL-FIELD"},
		{"misspelt output field", good, "nodes.gate.fomr", "{{ nodes.gate.decisoin }}", "E-EXPR-FIELD,E-TMPL-FIELD"},
		{"a computed step is not checked", good, "nodes.gate.form['ti' + 'cket']", "{{ nodes.gate.form }}", ""},
		{"a field with errors is still in scope", "      ticket: text", "nodes.gate.form.ticket", "x", "E-SCHEMA-FORM-TYPE"},
		{"no type", "      ticket:", "1", "x", "E-SCHEMA-FORM-TYPE"},
		{"bad name", "      bad-name: string", "1", "x", "E-SCHEMA-PATTERN"},
		{"unknown key", "      t: {type: string, requird: true}", "1", "x", "E-SCHEMA-UNKNOWN-KEY"},
		{"required not a boolean", "      t: {type: string, required: yes please}", "1", "x", "E-SCHEMA-TYPE"},
		{"a list", "      t: [string]", "1", "x", "E-SCHEMA-TYPE"},
		{"enum not a list", "      t: {type: string, enum: low}", "1", "x", "E-SCHEMA-TYPE"},
		{"enum of the wrong type", "      t: {type: number, enum: [1, two]}", "1", "x", "E-SCHEMA-FORM-ENUM"},
		{"enum twice", "      t: {enum: [a, a]}", "1", "x", "E-SCHEMA-FORM-ENUM"},
		{"empty enum", "      t: {enum: []}", "1", "x", "E-SCHEMA-FORM-ENUM"},
		{"boolean enum", "      t: {type: boolean, enum: [true]}", "1", "x", "E-SCHEMA-FORM-ENUM"},
		{"form not a mapping", "      - ticket", "1", "x", "E-SCHEMA-TYPE"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "f.flow.yml")
			src := strings.Replace(formFlow, "%s", c.form, 1)
			src = strings.Replace(src, "%q", quoteYAML(c.expr), 1)
			src = strings.Replace(src, "%q", quoteYAML(c.tmpl), 1)
			if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
				t.Fatal(err)
			}
			l := LintFile(p, Options{})
			var got []string
			for _, d := range l {
				if d.Severity == diag.Error {
					got = append(got, d.Code)
				}
			}
			sort.Strings(got)
			if strings.Join(got, ",") != c.want {
				t.Errorf("errors %q, want %q\n%s", got, c.want, dump(l))
			}
		})
	}
}

func quoteYAML(s string) string { return `"` + strings.ReplaceAll(s, `"`, `\"`) + `"` }

// TestHumanFormPlan checks that the plan holds every form field in the
// long shape, whatever shape the flow wrote it in.
func TestHumanFormPlan(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f.flow.yml")
	src := `agentlab: 1
name: t
nodes:
  - id: gate
    type: human
    prompt: ok?
    form:
      ticket: {type: string, required: true, description: the ticket}
      n: number
      level: {type: integer, enum: [1, 2], required: false}
      note: {}
`
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	pl, l := CompileFile(p, Options{})
	if errs, _ := l.Counts(); errs > 0 || pl == nil {
		t.Fatalf("compile:\n%s", dump(l))
	}
	got := pl.Nodes[0].Spec["form"]
	want := map[string]any{
		"ticket": map[string]any{"type": "string", "required": true, "description": "the ticket"},
		"n":      map[string]any{"type": "number"},
		"level":  map[string]any{"type": "integer", "enum": []any{1.0, 2.0}},
		"note":   map[string]any{"type": "string"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("plan form = %#v\nwant %#v", got, want)
	}
}
