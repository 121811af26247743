package expr

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/agentlab/agentlab/diag"
)

var update = flag.Bool("update", false, "rewrite golden files")

// testScope is the flow around the expressions under test.
var testScope = Scope{
	Inputs:  map[string]bool{"week": true, "region": true},
	Nodes:   map[string][]string{"pull": {"rows", "columns", "truncated"}, "draft": {"text"}, "any": nil},
	Vars:    map[string]bool{"gate": true, "items": true, "m": true},
	Metrics: map[string]bool{"gmv": true, "orders": true},
}

var loopScope = func() Scope { s := testScope; s.InLoop = true; return s }()

// checkCases maps a snippet to the code it must produce at [off, end).
var checkCases = []struct {
	src      string
	ctx      Context
	code     string
	off, end int
}{
	{"", Cond, CodeEmpty, 0, 0},
	{"   ", Cond, CodeEmpty, 0, 3},
	{"{{  }}", Cond, CodeEmpty, 0, 6},
	{"vars.gate == (1", Cond, CodeSyntax, 15, 15},
	{"'abc", Cond, CodeSyntax, 4, 4},
	{"vars.gate == 'ok' )", Cond, CodeSyntax, 18, 19},
	{"vars.gate @ 1", Cond, CodeSyntax, 10, 11},
	{"len(vars.items", Cond, CodeSyntax, 14, 14},
	{"vars.items | length > 0", Transform, CodePipe, 11, 19},
	{"vars.gate | upper", Transform, CodePipe, 10, 17},
	{"vars.gate | upper()", Transform, CodePipe, 10, 17},
	{"len(vars.items | length) > 0", Transform, CodePipe, 15, 23},
	{"contains(vars.gate | lower, 'x')", Transform, CodePipe, 19, 26},
	{"{'a', 'b'}", Transform, CodeSet, 0, 10},
	{"vars.gate in {'a', 'b'}", Cond, CodeSet, 13, 23},
	{"{1}", Transform, CodeSet, 0, 3},
	{"vars.gate = 'ok'", Cond, CodeAssign, 10, 11},
	{"index = 0", Cond, CodeAssign, 6, 7},
	{"{{ vars.gate }} == 'ok'", Cond, CodeBraces, 0, 15},
	{"vars.gate == {{ input.week }}", Cond, CodeBraces, 13, 29},
	{"{{ vars.gate == 'ok' }}", Cond, CodeBracesHint, 0, 23},
	{"  {{vars.gate}}  ", Transform, CodeBracesHint, 2, 15},
	{"'{{ vars.gate }}' == 'ok'", Cond, CodeTemplateString, 0, 17},
	{"vars.gate == \"{{ vars.gate }}\"", Cond, CodeTemplateString, 13, 30},
	{"'week {{ input.week }}'", Transform, CodeTemplateString, 0, 23},
	{"lenght(vars.items) > 0", Cond, CodeFunc, 0, 6},
	{"length(vars.items) > 0", Cond, CodeFunc, 0, 6},
	{"now() != nil", Cond, CodeFunc, 0, 3},
	{"split(vars.gate, ',')", Transform, CodeFunc, 0, 5},
	{"Contains(vars.gate, 'a')", Cond, CodeFunc, 0, 8},
	{"env('HOME')", Transform, CodeFunc, 0, 3},
	{"col(nodes.pull, 'gmv')", Transform, CodeMetricFunc, 0, 3},
	{"rows(nodes.pull) > 0", Cond, CodeMetricFunc, 0, 4},
	{"len(vars.items, 2) > 0", Cond, CodeArgs, 0, 3},
	{"upper()", Transform, CodeArgs, 0, 5},
	{"round(1, 2, 3)", Metric, CodeArgs, 0, 5},
	{"contains('a')", Cond, CodeArgs, 0, 8},
	{"vars.gate.upper() == 'OK'", Cond, CodeMethod, 10, 15},
	{"input.week.startsWith('2026')", Cond, CodeMethod, 11, 21},
	{"let x = 1; x > 0", Cond, CodeUnsupported, 4, 5},
	{"all(vars.items, {# > 0})", Cond, CodeUnsupported, 0, 3},
	{"vars.gate matches '^o'", Cond, CodeUnsupported, 10, 17},
	{"1..3", Over, CodeUnsupported, 1, 3},
	{"vars.gate ?: 'x'", Transform, CodeUnsupported, 0, 16},
	{"if vars.gate == 'ok' { 1 } else { 2 }", Transform, CodeUnsupported, 0, 37},
	{"1; 2", Transform, CodeUnsupported, 0, 1},
	{"b'abc'", Transform, CodeUnsupported, 0, 6},
	{"inputs.week == 'x'", Cond, CodeName, 0, 6},
	{"week == '2026-W47'", Cond, CodeName, 0, 4},
	{"status == nul", Cond, CodeName, 0, 6},
	{"vars.gate == null", Cond, CodeName, 13, 17},
	{"$env", Transform, CodeName, 0, 4},
	{"input.wek == 'x'", Cond, CodeInput, 6, 9},
	{"input['wek'] == 'x'", Cond, CodeInput, 7, 10},
	{"nodes.pul.rows", Over, CodeNode, 6, 9},
	{"nodes.other.text == ''", Cond, CodeNode, 6, 11},
	{"nodes.draft.txt == ''", Cond, CodeField, 12, 15},
	{"len(nodes.pull.row) > 0", Cond, CodeField, 15, 18},
	{"vars.gat != 'ok'", Cond, CodeVar, 5, 8},
	{"{{ vars.gat == 'ok' }}", Cond, CodeVar, 8, 11},
	{"{{ 周 + vars.gat }}", Cond, CodeVar, 14, 17},
	{"gmx * 2", Metric, CodeMetric, 0, 3},
	{"item == 'a'", Cond, CodeLoop, 0, 4},
	{"index > 0", Cond, CodeLoop, 0, 5},
	{"upper(item.name)", Transform, CodeLoop, 6, 10},
	{"'yes'", Cond, CodeType, 0, 5},
	{"len(vars.items)", Cond, CodeType, 0, 15},
	{"vars.gate == nil ? 1 : 2 ", Cond, CodeType, 0, 24},
	{"nil", Cond, CodeType, 0, 3},
	{"{'a': 1}", Over, CodeType, 0, 8},
	{"'abc'", Over, CodeType, 0, 5},
	{"'abc'", Metric, CodeType, 0, 5},
	{"col(nodes.pull, 'gmv')", Metric, CodeType, 0, 22},
	{"1 + 'a'", Transform, CodeType, 2, 3},
	{"'a' - 1", Transform, CodeType, 4, 5},
	{"len(vars.items) == '3'", Cond, CodeType, 16, 18},
	{"true < 1", Cond, CodeType, 5, 6},
	{"len(vars.items) and true", Cond, CodeType, 0, 14},
	{"not 'a'", Cond, CodeType, 4, 7},
	{"-'a'", Transform, CodeType, 1, 4},
	{"'a' in 'abc'", Cond, CodeType, 4, 6},
	{"upper(1)", Transform, CodeType, 6, 7},
	{"len(5)", Transform, CodeType, 4, 5},
	{"sum(1)", Metric, CodeType, 4, 5},
	{"index.name", Transform, CodeType, 6, 10},
	{"(1 > 2) ? 'a' : 'b'", Cond, CodeType, 0, 19},
	{"sum(col(vars.gate, 'gmv'))", Metric, CodeSnapshot, 8, 17},
	{"sum(col(nodes.pull, vars.gate))", Metric, CodeSnapshot, 20, 29},
	{"cell(nodes.pull, 0, 1 + 1) + 0", Metric, CodeSnapshot, 20, 25},
	{"rows(nodes.draft)", Metric, CodeSnapshot, 5, 16},
	{"rows(nodes.pull.rows)", Metric, CodeSnapshot, 5, 20},
	{"sum(nodes.pull.rows)", Metric, CodeUntraced, 15, 19},
	{"nodes.pull.rows[0].gmv * 1", Metric, CodeUntraced, 11, 15},
}

func TestCheckCodes(t *testing.T) {
	for _, tc := range checkCases {
		t.Run(tc.code+"/"+tc.src, func(t *testing.T) {
			sc := testScope
			got := Check(tc.src, tc.ctx, sc)
			for _, is := range got {
				if is.Code == tc.code && is.Offset == tc.off && is.End == tc.end {
					if is.Message == "" || is.Fix == "" {
						t.Errorf("issue %+v lacks a message or a fix", is)
					}
					return
				}
			}
			t.Errorf("Check(%q) = %+v, want %s at [%d,%d)", tc.src, got, tc.code, tc.off, tc.end)
		})
	}
}

// TestEveryCodeTested keeps codes.go and the table in step.
func TestEveryCodeTested(t *testing.T) {
	src, err := os.ReadFile("codes.go")
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, tc := range checkCases {
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
				t.Errorf("code %s is missing from the table in the doc comment", code)
			}
		}
	}
}

// cleanCases must produce no issue at all in their context.
var cleanCases = []struct {
	src string
	ctx Context
	sc  Scope
}{
	{"vars.gate != 'ok'", Cond, testScope},
	{"len(vars.items) > 0", Cond, testScope},
	{"upper(item)", Transform, loopScope},
	{"index < 3 && item.name != ''", Cond, loopScope},
	{"contains(vars.gate, 'o') or startsWith(input.week, '2026') || endsWith(input.week, '47')", Cond, testScope},
	{"not contains(vars.items, 'x')", Cond, testScope},
	{"vars.gate contains 'o' and vars.gate not startsWith 'x'", Cond, testScope},
	{"input.region in ['north', 'south']", Cond, testScope},
	{"'k' not in vars.m", Cond, testScope},
	{"nodes.draft.text != '' ? nodes.draft.text : 'none'", Transform, testScope},
	{"nodes.any.whatever.deep[0]", Transform, testScope},
	{"nodes.pull.rows", Over, testScope},
	{"keys(vars.m)", Over, testScope},
	{"vars.items[1:]", Over, testScope},
	{"vars.m?.a ?? 0", Transform, testScope},
	{"{'week': input.week, 'n': len(vars.items)}", Transform, testScope},
	{"sum(col(nodes.pull, 'gmv')) / rows(nodes.pull)", Metric, testScope},
	{"round(gmv / orders, 2)", Metric, testScope},
	{"cell(nodes.pull, 0, 'gmv') - min(col(nodes.pull, 'gmv'))", Metric, testScope},
	{"abs(max(1, gmv) - avg(col(nodes.pull, 'gmv'))) + count(col(nodes.pull, 'region'))", Metric, testScope},
	{"int(input.week[6:]) > 40", Cond, testScope},
	{"float('1.5') * 2 ** 3 % 5", Metric, testScope},
	{"string(len(vars.items)) + ' items'", Transform, testScope},
	{"trim(lower(vars.gate)) == 'ok'", Cond, testScope},
	{"values(vars.m)", Over, testScope},
	{"vars.gate == 'ok' // trailing comment", Cond, testScope},
	{"1 < 2 < 3", Cond, testScope},
	{"nodes.pull.truncated == false && !nodes.pull.truncated", Cond, testScope},
}

func TestCheckClean(t *testing.T) {
	for _, tc := range cleanCases {
		if got := Check(tc.src, tc.ctx, tc.sc); len(got) != 0 {
			t.Errorf("Check(%q) = %+v, want no issues", tc.src, got)
		}
	}
}

// TestCheckImpliesCompile is the contract between lint and run: an
// expression Check accepts without errors always compiles.
func TestCheckImpliesCompile(t *testing.T) {
	var all []struct {
		src string
		ctx Context
	}
	for _, tc := range cleanCases {
		all = append(all, struct {
			src string
			ctx Context
		}{tc.src, tc.ctx})
	}
	for _, tc := range checkCases {
		all = append(all, struct {
			src string
			ctx Context
		}{tc.src, tc.ctx})
	}
	for _, tc := range all {
		for _, sc := range []Scope{testScope, loopScope} {
			if hasError(Check(tc.src, tc.ctx, sc)) {
				continue
			}
			if _, err := Compile(tc.src, tc.ctx); err != nil {
				t.Errorf("Check(%q) has no errors but Compile fails: %v", tc.src, err)
			}
		}
	}
}

func hasError(is []Issue) bool {
	for _, i := range is {
		if i.Severity == diag.Error {
			return true
		}
	}
	return false
}

func TestCompileErrors(t *testing.T) {
	for _, tc := range checkCases {
		if tc.code == CodeBracesHint {
			continue
		}
		_, err := Compile(tc.src, tc.ctx)
		scoped := map[string]bool{CodeInput: true, CodeNode: true, CodeField: true, CodeVar: true,
			CodeMetric: true, CodeLoop: true}
		if scoped[tc.code] {
			continue // depends on the flow: only Check knows it
		}
		if tc.code == CodeSnapshot && strings.Contains(tc.src, "draft") {
			continue // node fields come from the Scope
		}
		ce, ok := err.(*CompileError)
		if !ok {
			t.Errorf("Compile(%q) = %v, want a *CompileError with %s", tc.src, err, tc.code)
			continue
		}
		found := false
		for _, is := range ce.Issues {
			found = found || is.Code == tc.code
		}
		if !found || !strings.Contains(err.Error(), "E-EXPR-") {
			t.Errorf("Compile(%q) = %v, want %s", tc.src, err, tc.code)
		}
	}
}

func TestHintStillCompiles(t *testing.T) {
	p, err := Compile("{{ vars.gate == 'ok' }}", Cond)
	if err != nil {
		t.Fatal(err)
	}
	ok, err := p.EvalBool(map[string]any{"vars": map[string]any{"gate": "ok"}})
	if err != nil || !ok {
		t.Fatalf("EvalBool = %v, %v", ok, err)
	}
}

// TestOffsetsAreBytes checks that offsets count bytes, not runes, when
// the expression contains multi-byte text.
func TestOffsetsAreBytes(t *testing.T) {
	src := "vars.gate == '周报' && vars.gat == 1"
	got := Check(src, Cond, testScope)
	want := strings.Index(src, "gat ")
	if len(got) != 1 || got[0].Offset != want || got[0].End != want+3 || src[got[0].Offset:got[0].End] != "gat" {
		t.Fatalf("Check(%q) = %+v, want E-EXPR-VAR at byte %d", src, got, want)
	}
}

func TestRefs(t *testing.T) {
	p, err := Compile("len(nodes.pull.rows[0]) > 0 and input.week == vars.m[input.region] and item.x", Cond)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range p.Refs() {
		got = append(got, fmt.Sprintf("%s%v@%d-%d", r.Root, r.Path, r.Offset, r.End))
	}
	want := []string{"nodes[pull rows 0]@4-21", "input[week]@32-42", "vars[m]@46-52",
		"input[region]@53-65", "item[x]@71-77"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Refs = %v, want %v", got, want)
	}
	m, err := Compile("gmv / orders + sum(col(nodes.pull, 'gmv'))", Metric)
	if err != nil {
		t.Fatal(err)
	}
	if got := m.Metrics(); !reflect.DeepEqual(got, []string{"gmv", "orders"}) {
		t.Fatalf("Metrics = %v", got)
	}
}

func TestFunctions(t *testing.T) {
	want := []string{"abs", "avg", "cell", "col", "contains", "count", "endsWith", "float", "int", "keys", "len",
		"lower", "max", "min", "round", "rows", "startsWith", "string", "sum", "trim", "upper", "values"}
	if got := Functions(); !reflect.DeepEqual(got, want) {
		t.Fatalf("Functions = %v", got)
	}
}

func TestSuggest(t *testing.T) {
	cases := []struct{ name, want string }{
		{"lenght", "len"}, {"uper", "upper"}, {"SUM", "sum"}, {"zzzzzz", ""}, {"len", ""},
	}
	for _, c := range cases {
		if got := Suggest(c.name, Functions()); got != c.want {
			t.Errorf("Suggest(%q) = %q, want %q", c.name, got, c.want)
		}
	}
}

// TestMessagesGolden pins the full text of every message and fix, so a
// change of wording is a visible diff in review.
func TestMessagesGolden(t *testing.T) {
	var b strings.Builder
	for _, tc := range checkCases {
		for _, is := range Check(tc.src, tc.ctx, testScope) {
			fmt.Fprintf(&b, "%q [%d:%d] %s %s: %s | fix: %s\n", tc.src, is.Offset, is.End, is.Severity, is.Code, is.Message, is.Fix)
		}
	}
	golden(t, filepath.Join("testdata", "messages.golden"), b.String())
}

func golden(t *testing.T, path, got string) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if string(want) != got {
		t.Errorf("%s differs; run go test -update and review the diff.\ngot:\n%s", path, got)
	}
}

// A node whose output fields are not listed (a transform, say) may output
// any value, so arithmetic on it is not a type error; a node with listed
// fields outputs an object, so it is.
func TestNodeOutputKind(t *testing.T) {
	sc := Scope{Nodes: map[string][]string{"t": nil, "ask": {"text", "json"}}}
	if issues := Check("nodes.t + 1 > 2", Cond, sc); len(issues) != 0 {
		t.Errorf("transform output: unexpected issues %+v", issues)
	}
	issues := Check("nodes.ask + 1 > 2", Cond, sc)
	if len(issues) == 0 || issues[0].Code != CodeType {
		t.Errorf("object output: want %s, got %+v", CodeType, issues)
	}
}
