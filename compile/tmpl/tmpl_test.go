package tmpl

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/agentlab/agentlab/compile/expr"
)

var update = flag.Bool("update", false, "rewrite golden files")

var testScope = expr.Scope{
	Inputs: map[string]bool{"week": true, "question": true},
	Nodes:  map[string][]string{"n1": {"text"}, "pull": {"rows", "columns", "truncated"}, "free": nil},
	Vars:   map[string]bool{"items": true, "answer": true},
}

var codeCases = []struct {
	src      string
	code     string
	off, end int
}{
	{"Hello {{ input.week", CodeUnterminated, 6, 19},
	{"{{ input.week | default('n/a) }}", CodeUnterminated, 24, 25},
	{"a {{ }} b", CodeEmpty, 2, 7},
	{"{{\n}}", CodeEmpty, 0, 5},
	{"{{ a + b }}", CodeSyntax, 5, 6},
	{"{{ vars.answer == 'x' }}", CodeSyntax, 15, 17},
	{"{{ len(vars.items) }}", CodeSyntax, 6, 7},
	{"{{ input. }}", CodeSyntax, 8, 10},
	{"{{ vars.items[x] }}", CodeSyntax, 13, 16},
	{"{{ vars.items[0 }}", CodeSyntax, 13, 16},
	{"{{ 42 }}", CodeSyntax, 3, 5},
	{"{{ vars.items | }}", CodeSyntax, 16, 16},
	{"{{ vars.items | join: ', ' }}", CodeSyntax, 20, 21},
	{"{{ vars.items | join(', ' ';') }}", CodeSyntax, 26, 29},
	{"{{ vars.items | lenght }}", CodeFilter, 16, 22},
	{"{{ vars.items | tojson }}", CodeFilter, 16, 22},
	{"{{ vars.items | upper(1) }}", CodeFilterArgs, 16, 24},
	{"{{ vars.items | default }}", CodeFilterArgs, 16, 23},
	{"{{ vars.items | join(',', ';') }}", CodeFilterArgs, 16, 30},
	{"{{ vars.items | join(1) }}", CodeFilterArgs, 16, 23},
	{"{{ vars.items | default(vars.answer) }}", CodeFilterArgs, 24, 28},
	{"{{ inputs.week }}", CodeName, 3, 9},
	{"{{ week }}", CodeName, 3, 7},
	{"Week {{ input.wek }}", CodeInput, 14, 17},
	{"{{ input['wek'] }}", CodeInput, 10, 13},
	{"{{ nodes.n2.text }}", CodeNode, 9, 11},
	{"{{ nodes.n1.txt }}", CodeField, 12, 15},
	{"{{ vars.anser }}", CodeVar, 8, 13},
	{"{{ item.name }}", CodeLoop, 3, 7},
	{"{{ index }}", CodeLoop, 3, 8},
}

func TestCodes(t *testing.T) {
	for _, tc := range codeCases {
		got := Check(tc.src, testScope)
		ok := false
		for _, is := range got {
			if is.Code == tc.code && is.Offset == tc.off && is.End == tc.end && is.Message != "" && is.Fix != "" {
				ok = true
			}
		}
		if !ok {
			t.Errorf("Check(%q) = %+v, want %s at [%d,%d)", tc.src, got, tc.code, tc.off, tc.end)
		}
	}
}

func TestEveryCodeTested(t *testing.T) {
	src, err := os.ReadFile("codes.go")
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, tc := range codeCases {
		seen[tc.code] = true
	}
	for _, line := range strings.Split(string(src), "\n") {
		f := strings.Fields(line)
		if len(f) == 3 && f[1] == "=" && strings.HasPrefix(f[0], "Code") {
			code := strings.Trim(f[2], `"`)
			if !seen[code] {
				t.Errorf("code %s has no test case", code)
			}
			if !strings.Contains(string(src), "//\t"+code) {
				t.Errorf("code %s is missing from the doc comment table", code)
			}
		}
	}
}

func TestClean(t *testing.T) {
	sc := testScope
	sc.InLoop = true
	for _, src := range []string{
		"", "plain text", "Week {{ input.week }} and {{input.question|upper}}", "{{ nodes.n1.text }}",
		"{{ nodes.pull.rows[0].gmv }}", "{{ nodes.pull.rows[-1]['gmv'] }}", "{{ nodes.free.anything.at.all }}",
		"{{ vars.items | join(' / ') | upper }}", "{{ vars.answer | default('none') }}", "{{ item.name }} #{{ index }}",
		"{{ vars.items | first | default(0) }}", "{{ '{{' }} is literal", "JSON: {\"a\": {\"b\": 1} }",
		"{{ vars.items | json }}{{ vars.items | compact }}{{ vars.items | length }}{{ vars.items | last }}{{ vars.items | lower }}",
		"{{ vars.answer | default(nil) }}{{ vars.answer | default(true) }}{{ vars.answer | default(-1.5) }}",
		"{{ vars.items | join() }}", "}} stray closing braces are text",
	} {
		if got := Check(src, sc); len(got) != 0 {
			t.Errorf("Check(%q) = %+v, want nothing", src, got)
		}
		if tm, is := Parse(src); tm == nil || len(is) != 0 {
			t.Errorf("Parse(%q) = %v, %+v", src, tm, is)
		}
	}
}

func TestParseNilOnError(t *testing.T) {
	tm, is := Parse("ok {{ a + }} {{ b | nope }}")
	if tm != nil || len(is) != 2 {
		t.Fatalf("Parse = %v, %+v; want nil and both errors", tm, is)
	}
}

func renderEnv() map[string]any {
	return map[string]any{
		"input": map[string]any{"week": "2026-W47", "evil": "{{ vars.secret }}", "n": 3},
		"vars": map[string]any{
			"items":  []any{"a", 2, 1.5, map[string]any{"k": true, "a": nil}},
			"empty":  []any{},
			"secret": "S3CRET",
			"none":   nil,
			"num":    1.0 / 3.0,
			"big":    1e21,
			"int":    int64(-7),
			"typed":  []string{"x", "y"},
			"m":      map[string]any{"b": 1, "a": []any{1, 2}},
			"word":   "Ünïcode",
		},
		"nodes": map[string]any{
			"n1":   map[string]any{"text": "Draft <b>&</b>"},
			"pull": map[string]any{"rows": []map[string]any{{"gmv": 10.25, "region": "north"}}},
		},
		"item":  map[string]any{"name": "x"},
		"index": 4,
	}
}

func TestRender(t *testing.T) {
	cases := []struct{ src, want string }{
		{"", ""},
		{"plain", "plain"},
		{"Week {{ input.week }}!", "Week 2026-W47!"},
		{"{{input.n}}", "3"},
		{"{{ vars.num }}", "0.3333333333333333"},
		{"{{ vars.big }}", "1e+21"},
		{"{{ vars.int }}", "-7"},
		{"{{ vars.none }}", ""},
		{"{{ vars.m }}", `{"a":[1,2],"b":1}`},
		{"{{ vars.items }}", `["a",2,1.5,{"a":null,"k":true}]`},
		{"{{ nodes.n1.text }}", "Draft <b>&</b>"},
		{"{{ nodes.pull.rows[0].gmv }}", "10.25"},
		{"{{ nodes.pull.rows[-1]['region'] }}", "north"},
		{"{{ item.name }}-{{ index }}", "x-4"},
		{"{{ '{{' }} x }}", "{{ x }}"},
		// filters
		{"{{ vars.m | json }}", "{\n  \"a\": [\n    1,\n    2\n  ],\n  \"b\": 1\n}"},
		{"{{ input.week | json }}", `"2026-W47"`},
		{"{{ vars.none | json }}", "null"},
		{"{{ vars.m | compact }}", `{"a":[1,2],"b":1}`},
		{"{{ nodes.n1.text | compact }}", `"Draft <b>&</b>"`},
		{"{{ vars.word | upper }}", "ÜNÏCODE"},
		{"{{ vars.word | lower }}", "ünïcode"},
		{"{{ input.n | upper }}", "3"},
		{"{{ vars.items | length }}", "4"},
		{"{{ vars.word | length }}", "7"},
		{"{{ vars.m | length }}", "2"},
		{"{{ vars.none | length }}", "0"},
		{"{{ vars.items | first }}", "a"},
		{"{{ vars.items | last }}", `{"a":null,"k":true}`},
		{"{{ vars.typed | last }}", "y"},
		{"{{ vars.word | first }}", "Ü"},
		{"{{ vars.empty | first }}", ""},
		{"{{ vars.items | join }}", `a, 2, 1.5, {"a":null,"k":true}`},
		{"{{ vars.typed | join(' / ') }}", "x / y"},
		{"{{ vars.typed | join('') }}", "xy"},
		{"{{ vars.none | default('n/a') }}", "n/a"},
		{"{{ vars.missing | default('n/a') }}", "n/a"},
		{"{{ vars.missing.deep | default(0) }}", "0"},
		{"{{ vars.empty | first | default('none') }}", "none"},
		{"{{ vars.secret | default('x') }}", "S3CRET"},
		{"{{ vars.none | upper | default('N/A') }}", "N/A"},
		{"{{ vars.typed | join | upper }}", "X, Y"},
	}
	env := renderEnv()
	for _, tc := range cases {
		got, err := Render(tc.src, env)
		if err != nil || got != tc.want {
			t.Errorf("Render(%q) = %q, %v; want %q", tc.src, got, err, tc.want)
		}
	}
}

// TestRenderNoInjection: a value containing {{ … }} is inserted as text
// and never rendered, however it reaches the output.
func TestRenderNoInjection(t *testing.T) {
	env := renderEnv()
	for src, want := range map[string]string{
		"Q: {{ input.evil }}":                         "Q: {{ vars.secret }}",
		"{{ input.evil | upper }}":                    "{{ VARS.SECRET }}",
		"{{ vars.x | default('{{ vars.secret }}') }}": "{{ vars.secret }}",
		"{{ input.evil }}{{ input.evil }}":            "{{ vars.secret }}{{ vars.secret }}",
	} {
		got, err := Render(src, env)
		if err != nil || got != want || strings.Contains(got, "S3CRET") {
			t.Errorf("Render(%q) = %q, %v; want %q", src, got, err, want)
		}
	}
}

func TestRenderErrors(t *testing.T) {
	env := renderEnv()
	cases := []struct{ src, want string }{
		{"{{ input.nope }}", "template path input.nope not found (at byte 9)"},
		{"x {{ vars.items[9] }}", "template path vars.items[9] not found"},
		{"{{ nodes.n9.text }}", "template path nodes.n9 not found"},
		{"{{ vars.none.x }}", "template path vars.none.x not found (at byte 13): vars.none is nil"},
		{"{{ nodes.pull.rows.gmv }}", "nodes.pull.rows is a list; read an item with [0], not .gmv"},
		{"{{ input.week.x }}", "input.week is string, which has no fields"},
		{"{{ input.n | length }}", "length needs text, a list or a map"},
		{"{{ input.n | join }}", "join needs a list"},
		{"{{ input.n | first }}", "first and last need a list"},
		{"{{ vars.num | bogus }}", "E-TMPL-FILTER"},
	}
	for _, tc := range cases {
		_, err := Render(tc.src, env)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Render(%q) error = %v, want %q", tc.src, err, tc.want)
		}
	}
	_, err := Render("{{ item }}", map[string]any{})
	var me *MissingError
	if !errors.As(err, &me) || me.Path != "item" {
		t.Errorf("Render({{ item }}) without a loop = %v", err)
	}
}

func TestRefsAndLiteral(t *testing.T) {
	tm, is := Parse("{{ input.week }} {{ '{{' }} {{ nodes.pull.rows[0]['gmv'] | json }} {{ item }}")
	if tm == nil {
		t.Fatal(is)
	}
	var got []string
	for _, r := range tm.Refs() {
		got = append(got, fmt.Sprintf("%s%v@%d-%d", r.Root, r.Path, r.Offset, r.End))
	}
	want := []string{"input[week]@3-13", "nodes[pull rows 0 gmv]@31-56", "item[]@70-74"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Refs = %v, want %v", got, want)
	}
	if tm.IsLiteral() {
		t.Error("IsLiteral = true for a template with tags")
	}
	lit, _ := Parse("no tags } here {")
	if lit == nil || !lit.IsLiteral() || len(lit.Refs()) != 0 {
		t.Error("a text without tags should be literal")
	}
	if s, err := lit.Render(nil); err != nil || s != "no tags } here {" {
		t.Errorf("Render literal = %q, %v", s, err)
	}
}

func TestFilters(t *testing.T) {
	want := []string{"compact", "default", "first", "join", "json", "last", "length", "lower", "upper"}
	if got := Filters(); !reflect.DeepEqual(got, want) {
		t.Fatalf("Filters = %v", got)
	}
}

func TestMessagesGolden(t *testing.T) {
	var b strings.Builder
	for _, tc := range codeCases {
		for _, is := range Check(tc.src, testScope) {
			fmt.Fprintf(&b, "%q [%d:%d] %s %s: %s | fix: %s\n", tc.src, is.Offset, is.End, is.Severity, is.Code, is.Message, is.Fix)
		}
	}
	path := filepath.Join("testdata", "messages.golden")
	if *update {
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if string(want) != b.String() {
		t.Errorf("%s differs; run go test -update and review the diff.\ngot:\n%s", path, b.String())
	}
}

// TestRenderConcurrent shares one Template between goroutines; run with -race.
func TestRenderConcurrent(t *testing.T) {
	tm, is := Parse("{{ input.week }}: {{ vars.items | join(' / ') | upper }}")
	if tm == nil {
		t.Fatal(is)
	}
	done := make(chan string, 8)
	for g := 0; g < 8; g++ {
		go func() {
			out := ""
			for i := 0; i < 50; i++ {
				s, err := tm.Render(renderEnv())
				if err != nil {
					out = err.Error()
					break
				}
				out = s
			}
			done <- out
		}()
	}
	for g := 0; g < 8; g++ {
		if got := <-done; got != `2026-W47: A / 2 / 1.5 / {"A":NULL,"K":TRUE}` {
			t.Errorf("Render = %q", got)
		}
	}
}
