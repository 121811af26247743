package eval

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/agentlab/agentlab/diag"
	"github.com/agentlab/agentlab/eval/suite"
)

var planHash = regexp.MustCompile(`b3:[0-9a-f]{64}`)

var update = flag.Bool("update", false, "rewrite golden files")

// TestLintGolden lints the suites under testdata/lint against their flow
// and compares every diagnostic (position, code, message, fix) with
// testdata/lint/want.txt.
func TestLintGolden(t *testing.T) {
	dir := filepath.Join("testdata", "lint")
	var all diag.List
	for _, name := range []string{"bad.eval.yml", "broken-flow.eval.yml", "good.eval.yml"} {
		all = append(all, suite.Lint(filepath.Join(dir, name), CompileFlow)...)
	}
	var b bytes.Buffer
	for _, d := range all.Sorted() {
		fmt.Fprintf(&b, "%s:%d:%d %s %s: %s\n    fix: %s\n", filepath.Base(d.File), d.Line, d.Col, d.Severity, d.Code, d.Message, d.Fix)
	}
	// The flow's plan hash changes whenever the compiler's output does;
	// it is not what this test is about.
	out := planHash.ReplaceAllFunc(b.Bytes(), func(h []byte) []byte {
		if bytes.Equal(h, []byte("b3:"+strings.Repeat("0", 64))) {
			return h // the pin written in the suite
		}
		return []byte("b3:<plan>")
	})
	b.Reset()
	b.Write(out)
	golden := filepath.Join(dir, "want.txt")
	if *update {
		if err := os.WriteFile(golden, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(b.Bytes(), want) {
		t.Errorf("lint output differs from %s (run with -update after checking):\n%s", golden, b.String())
	}
}

func TestLintPathsWalksSuites(t *testing.T) {
	l, err := LintPaths([]string{filepath.Join("testdata", "qa")})
	if err != nil {
		t.Fatal(err)
	}
	if len(l) != 0 {
		t.Errorf("testdata/qa should lint clean, got %v", l)
	}
	l, err = LintPaths([]string{filepath.Join("testdata", "lint", "bad.eval.yml"), filepath.Join("testdata", "lint", "flow.yml")})
	if err != nil {
		t.Fatal(err)
	}
	if !l.HasErrors() {
		t.Error("bad.eval.yml must have errors")
	}
	if _, err := LintPaths([]string{"testdata/nothere"}); err == nil {
		t.Error("an unreadable path must be an error")
	}
}
