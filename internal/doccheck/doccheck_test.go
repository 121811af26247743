package doccheck

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
)

// repoRoot is the module root: the nearest directory up from the test's
// working directory that holds go.mod.
func repoRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test directory")
		}
		dir = parent
	}
}

// allowedFragments are the files that may assemble a code at run time,
// each with where the finished codes are listed as literals (which the
// scan then checks like any other).
var allowedFragments = map[string]string{
	// CheckPath builds E-EXPR-… and E-TMPL-… path codes from a family;
	// every one of them is a constant in compile/expr/codes.go or
	// compile/tmpl/codes.go.
	"compile/expr/scope.go": "compile/expr/codes.go, compile/tmpl/codes.go",
}

// TestEveryCodeIsDocumented is the rule "document every code in
// docs/diagnostics.md": each code literal in the sources needs an entry
// with a bad example and a fix.
func TestEveryCodeIsDocumented(t *testing.T) {
	root := repoRoot(t)
	scan, err := SourceCodes(root)
	if err != nil {
		t.Fatal(err)
	}
	if len(scan.Codes) < 100 {
		t.Fatalf("found only %d codes under %s; the scan is broken", len(scan.Codes), root)
	}
	md, err := os.ReadFile(filepath.Join(root, "docs", "diagnostics.md"))
	if err != nil {
		t.Fatal(err)
	}
	docs := Documented(md)
	for _, code := range scan.Sorted() {
		use := scan.Codes[code][0]
		e, ok := docs[code]
		switch {
		case !ok:
			t.Errorf("%s:%d: code %s is not documented in docs/diagnostics.md; add a row or paragraph with a bad example and the fix", use.File, use.Line, code)
		case !e.Example:
			t.Errorf("docs/diagnostics.md:%d: %s has no bad example (a `bad` column, or inline code or a code block before \"Fix:\")", e.Line, code)
		case !e.Fix:
			t.Errorf("docs/diagnostics.md:%d: %s has no fix (a `fix` column, or \"Fix:\")", e.Line, code)
		}
	}
	for _, f := range scan.Fragments {
		if _, ok := allowedFragments[f.File]; !ok {
			t.Errorf("%s:%d: a code is assembled at run time, so it cannot be checked against docs/diagnostics.md; use a constant per code", f.File, f.Line)
		}
	}
}

// TestNoStaleCodes catches entries for codes that no source prints any
// more, and typos in documented codes.
func TestNoStaleCodes(t *testing.T) {
	root := repoRoot(t)
	scan, err := SourceCodes(root)
	if err != nil {
		t.Fatal(err)
	}
	md, err := os.ReadFile(filepath.Join(root, "docs", "diagnostics.md"))
	if err != nil {
		t.Fatal(err)
	}
	var stale []string
	for code, e := range Documented(md) {
		if _, ok := scan.Codes[code]; !ok {
			stale = append(stale, fmt.Sprintf("docs/diagnostics.md:%d: %s", e.Line, code))
		}
	}
	sort.Strings(stale)
	for _, s := range stale {
		t.Errorf("%s is documented but no source file uses it; remove the entry or correct the code", s)
	}
}

func TestDocumented(t *testing.T) {
	tests := []struct {
		name string
		md   string
		want map[string]Entry
	}{
		{
			name: "table with bad and fix columns",
			md: "| code | bad | fix |\n|---|---|---|\n" +
				"| `E-A-ONE` | `x: 1` | write y |\n" +
				"| `E-A-TWO` | | write y |\n" +
				"| `H-A` (hint) | `{{ x }}` | |\n",
			want: map[string]Entry{
				"E-A-ONE": {Code: "E-A-ONE", Line: 3, Example: true, Fix: true},
				"E-A-TWO": {Code: "E-A-TWO", Line: 4, Fix: true},
				"H-A":     {Code: "H-A", Line: 5, Example: true},
			},
		},
		{
			name: "meaning table completed by paragraphs",
			md: "| code | meaning |\n|---|---|\n| `E-B` | a thing |\n| `W-B` | other |\n\n" +
				"**E-B** — `a: b` is wrong. Fix: write c.\n\n" +
				"**W-B**\n```yaml\nFix: inside a fence does not count\n```\nno fix here\n",
			want: map[string]Entry{
				"E-B": {Code: "E-B", Line: 3, Example: true, Fix: true},
				"W-B": {Code: "W-B", Line: 4, Example: true},
			},
		},
		{
			name: "paragraph without example",
			md:   "**E-C** — something went wrong. Fix: do better.\n",
			want: map[string]Entry{"E-C": {Code: "E-C", Line: 1, Fix: true}},
		},
		{
			name: "heading form, block ends at the next heading",
			md:   "### E-D\n\n`bad: 1`\n\n## next\n\nFix: too late\n",
			want: map[string]Entry{"E-D": {Code: "E-D", Line: 1, Example: true}},
		},
		{
			name: "escaped pipe stays in its cell",
			md:   "| code | bad | fix |\n|---|---|---|\n| `E-E` | `a \\| b` | `f(a)` |\n",
			want: map[string]Entry{"E-E": {Code: "E-E", Line: 3, Example: true, Fix: true}},
		},
		{
			name: "only tables headed code hold entries",
			md:   "| prefix | page |\n|---|---|\n| `E-YAML` | `x` |\n",
			want: map[string]Entry{},
		},
		{
			name: "mentions in running text and fences are not entries",
			md:   "See E-F and `E-G` for details.\n```\n| `E-H` | x | y |\n**E-I** Fix: y\n```\n",
			want: map[string]Entry{},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Documented([]byte(tt.md))
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got  %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

func TestSourceCodes(t *testing.T) {
	scan, err := SourceCodes(filepath.Join("testdata", "tree"))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]Use{
		"E-TREE-CONST": {{File: "a.go", Line: 5}},
		"W-TREE-LIT":   {{File: "a.go", Line: 9}, {File: "sub/b.go", Line: 4}},
		"H-TREE":       {{File: "a.go", Line: 10}},
	}
	if !reflect.DeepEqual(scan.Codes, want) {
		t.Errorf("codes:\ngot  %v\nwant %v", scan.Codes, want)
	}
	if want := []Use{{File: "a.go", Line: 13}, {File: "a.go", Line: 15}}; !reflect.DeepEqual(scan.Fragments, want) {
		t.Errorf("fragments: got %v, want %v", scan.Fragments, want)
	}
	if got := strings.Join(scan.Sorted(), " "); got != "E-TREE-CONST H-TREE W-TREE-LIT" {
		t.Errorf("Sorted = %s", got)
	}
}

func TestCodePattern(t *testing.T) {
	for s, want := range map[string]bool{
		"E-YAML-READ": true, "W-AGENT-CITE": true, "H-EXPR-BRACES": true, "E-GATE-G1": true, "E-X": true,
		"E-": false, "E-yaml": false, "X-YAML": false, "E-YAML-": false, "E--A": false, "E-1A": false, "e-yaml": false,
	} {
		if got := CodePattern.MatchString(s); got != want {
			t.Errorf("CodePattern(%q) = %v, want %v", s, got, want)
		}
	}
}

func TestFragmentPattern(t *testing.T) {
	for s, want := range map[string]bool{
		"E-": true, "W-GRAPH-": true, "E-GATE-G%d": true, "E-%s": true, "E-%s-%s": true,
		"E-GATE": false, "E-GATE-G1": false, "E-x": false, "e-": false, "E-%": false,
	} {
		if got := fragmentPattern.MatchString(s); got != want {
			t.Errorf("fragmentPattern(%q) = %v, want %v", s, got, want)
		}
	}
}
