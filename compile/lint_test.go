package compile

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLintGateMisspeltFlow plays a CI gate against a careless author: a
// flow whose `agentlab:` key is misspelt, or missing, must fail the lint
// naming the file, a YAML file that is no flow at all must be named in a
// warning, and the result must list every file it checked.
func TestLintGateMisspeltFlow(t *testing.T) {
	cases := []struct {
		name     string
		body     string
		wantCode string
		checked  int
	}{
		{"misspelt key", "agentlb: 1\nname: t\nnodes: [{id: a, type: input}]\n", "E-SCHEMA-UNKNOWN-KEY", 1},
		{"missing key", "name: t\nnodes: [{id: a, type: input}]\n", "E-SCHEMA-REQUIRED", 1},
		{"misspelt key, no nodes", "agnetlab: 1\nname: t\n", "E-SCHEMA-UNKNOWN-KEY", 1},
		{"not a flow", "title: notes\nitems: [1, 2]\n", "W-LINT-NOT-A-FLOW", 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			p := filepath.Join(dir, "flows", "weekly.yml")
			os.MkdirAll(filepath.Dir(p), 0o755)
			if err := os.WriteFile(p, []byte(c.body), 0o644); err != nil {
				t.Fatal(err)
			}
			res, err := Lint([]string{filepath.Join(dir, "flows")}, Options{}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Checked) != c.checked {
				t.Errorf("checked %v, want %d file(s)", res.Checked, c.checked)
			}
			found := false
			for _, d := range res.Diagnostics {
				if d.Code == c.wantCode && d.File == p {
					found = true
				}
			}
			if !found {
				t.Errorf("want %s naming %s, got:\n%s", c.wantCode, p, dump(res.Diagnostics))
			}
			if c.wantCode == "W-LINT-NOT-A-FLOW" && (res.Diagnostics.HasErrors() || !strings.Contains(res.Diagnostics[0].Message, "not a flow")) {
				t.Errorf("a file that is not a flow is a warning naming it: %s", dump(res.Diagnostics))
			}
		})
	}
}

// TestLintCountsWhatItChecked: every kind of file is listed once, hidden
// directories are passed over, and an empty directory checks nothing.
func TestLintCountsWhatItChecked(t *testing.T) {
	dir := t.TempDir()
	write := func(rel, body string) {
		p := filepath.Join(dir, rel)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	good := "agentlab: 1\nname: t\nnodes: [{id: a, type: input}, {id: o, type: output, fields: {x: \"1\"}}]\nedges: [a -> o]\n"
	write("a.yml", good)
	write("b.flow.yml", good)
	write("c.card.yml", "name: c\n")
	write("d.eval.yml", "flow: a.yml\n")
	write(".github/workflows/ci.yml", "on: push\n")
	write("README.md", "agentlab: 1\n")
	res, err := Lint([]string{dir}, Options{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[FileKind]int{}
	for _, f := range res.Checked {
		kinds[f.Kind]++
	}
	if kinds[KindFlow] != 2 || kinds[KindCard] != 1 || kinds[KindSuite] != 1 || len(res.Checked) != 4 {
		t.Errorf("checked %v", res.Checked)
	}
	if s := res.Suites(); len(s) != 1 || filepath.Base(s[0]) != "d.eval.yml" {
		t.Errorf("suites %v", s)
	}
	for _, d := range res.Diagnostics {
		if strings.Contains(d.File, ".github") {
			t.Errorf("a hidden directory was walked: %v", d)
		}
	}

	empty := t.TempDir()
	res, err = Lint([]string{empty}, Options{}, nil)
	if err != nil || len(res.Checked) != 0 || len(res.Diagnostics) != 0 {
		t.Errorf("empty directory: %v %v %v", err, res.Checked, res.Diagnostics)
	}
}

// TestLintGlobAndStdin: a quoted pattern is expanded (and one matching
// nothing is an error), and "-" lints standard input as a flow.
func TestLintGlobAndStdin(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"a.yml", "b.yml"} {
		if err := os.WriteFile(filepath.Join(dir, n), []byte("agentlab: 1\nname: t\nnodes: [{id: a, type: input}]\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	res, err := Lint([]string{filepath.Join(dir, "*.yml")}, Options{}, nil)
	if err != nil || len(res.Checked) != 2 {
		t.Errorf("glob: %v %v", err, res.Checked)
	}
	if _, err := Lint([]string{filepath.Join(dir, "*.yaml")}, Options{}, nil); err == nil || !strings.Contains(err.Error(), "no file matches") {
		t.Errorf("a pattern matching nothing: %v", err)
	}
	res, err = Lint([]string{"-"}, Options{}, strings.NewReader("agentlab: 1\nname: t\nnodes: [{id: a, typ: input}]\n"))
	if err != nil || len(res.Checked) != 1 || res.Checked[0].Path != StdinName {
		t.Fatalf("stdin: %v %v", err, res.Checked)
	}
	if len(res.Diagnostics) == 0 || res.Diagnostics[0].File != StdinName || !res.Diagnostics.HasErrors() {
		t.Errorf("stdin diagnostics: %s", dump(res.Diagnostics))
	}
}

// FuzzLintClassify feeds arbitrary file heads to the classification a
// directory walk uses: it never panics, a head with a top-level
// `agentlab:` key is always a flow, and one that looksLikeFlow is linted
// (Lint over "-" never fails on content, only reports).
func FuzzLintClassify(f *testing.F) {
	for _, s := range []string{"agentlab: 1\n", "agentlb: 1\nnodes: []\n", "title: x\n", "\xef\xbb\xbfagentlab: 1", "'agentlab' : 1", "- a\n- b\n", ""} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, head []byte) {
		k := KindOf("x.yml", head)
		if hasTopLevelKey(head, "agentlab") && k != KindFlow {
			t.Fatalf("a head with agentlab: is %v", k)
		}
		_ = looksLikeFlow(head)
		if len(head) < 4096 {
			res, err := Lint([]string{"-"}, Options{}, strings.NewReader(string(head)))
			if err != nil || len(res.Checked) != 1 {
				t.Fatalf("lint -: %v %v", err, res.Checked)
			}
		}
	})
}
