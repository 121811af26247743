package provider

import (
	"fmt"
	"strings"
	"testing"
)

// TestScriptCheckIterations: Check matches a key the way Lookup does
// while a run works — exactly — with the ids of loop bodies written with
// "[]" for any iteration number.
func TestScriptCheckIterations(t *testing.T) {
	ids := []string{"draft", "review", "review[].edit", "review[].edit:judge", "outer[].inner[].ask", "sub.ask", "sup.worker", "permission-gate"}
	tests := []struct {
		key  string
		warn bool
		fix  string // the fix when warned
	}{
		{key: "draft"},
		{key: "review"},
		{key: "review[0].edit"},
		{key: "review[17].edit"},
		{key: "review[3].edit:judge"},
		{key: "outer[2].inner[0].ask"},
		{key: "sub.ask"},
		{key: "sup.worker"},
		{key: "permission-gate"},
		{key: "edit", warn: true, fix: `did you mean "review[0].edit"? a node inside a loop or a subflow is called by its full id, <loop>[<iteration>].<node> or <subgraph>.<node>`},
		{key: "nothing_like_it", warn: true, fix: "remove the entry or rename it to a node id of the flow"},
		{key: "review[].edit"}, // every iteration
		{key: "review[01].edit", warn: true, fix: `did you mean "review[0].edit"?`},
		{key: "review[x].edit", warn: true},
		{key: "review[4].edti", warn: true, fix: `did you mean "review[4].edit"?`},
		{key: "outer[5].inner[6].aks", warn: true, fix: `did you mean "outer[5].inner[6].ask"?`},
		{key: "outer[5].ask", warn: true},
		{key: "drafts", warn: true, fix: `did you mean "draft"?`},
		{key: "sub.asks", warn: true, fix: `did you mean "sub.ask"?`},
		{key: "draft[0]", warn: true},
	}
	for _, tc := range tests {
		t.Run(tc.key, func(t *testing.T) {
			src := fmt.Sprintf("nodes:\n  %q: hello\n", tc.key)
			s, diags := ParseScript("answers.yml", []byte(src))
			if s == nil {
				t.Fatalf("parse: %v", diags)
			}
			l := s.Check(ids)
			if !tc.warn {
				if len(l) != 0 {
					t.Errorf("unexpected warning %v", l)
				}
				return
			}
			if len(l) != 1 {
				t.Fatalf("got %d warnings, want 1: %v", len(l), l)
			}
			d := l[0]
			if d.Code != CodeScriptNode || d.File != "answers.yml" || d.Line != 2 || d.Col != 3 || !strings.Contains(d.Message, fmt.Sprintf("%q", tc.key)) {
				t.Errorf("warning %s", d)
			}
			if tc.fix != "" && d.Fix != tc.fix {
				t.Errorf("fix %q, want %q", d.Fix, tc.fix)
			}
			if d.Fix == "" {
				t.Error("no fix")
			}
		})
	}
}

func TestSpecialize(t *testing.T) {
	tests := []struct {
		id    string
		iters []string
		want  string
	}{
		{"a", nil, "a"},
		{"a[].b", []string{"[3]"}, "a[3].b"},
		{"a[].b[].c", []string{"[3]"}, "a[3].b[0].c"},
		{"a[].b", []string{"[1]", "[2]"}, "a[1].b"},
	}
	for _, tc := range tests {
		if got := specialize(tc.id, tc.iters); got != tc.want {
			t.Errorf("specialize(%q, %v) = %q, want %q", tc.id, tc.iters, got, tc.want)
		}
	}
}
