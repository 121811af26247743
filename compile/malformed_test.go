package compile

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/agentlab/agentlab/diag"
)

// wantLine is the first line of every file of the malformed corpus:
// "# want: CODE LINE:COL".
var wantLine = regexp.MustCompile(`^# want: ([EWH]-[A-Z0-9-]+) (\d+):(\d+)$`)

// TestMalformedCorpus lints every file testdata/malformed/NNN-name.yml
// (flows, and *.card.yml / *.patch.yml) and requires the error its first
// line names, with that code at that line and column. Every diagnostic of
// every file must also be complete: a position, a stable code, a message
// and a sentence on how to fix it. Files under support/ and cards/ are
// what the cases refer to, not cases.
func TestMalformedCorpus(t *testing.T) {
	files, err := filepath.Glob("testdata/malformed/[0-9][0-9][0-9]-*.yml")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 100 {
		t.Fatalf("the malformed corpus has %d files, want at least 100", len(files))
	}
	codes := map[string]int{}
	for _, f := range files {
		f := f
		t.Run(strings.TrimSuffix(filepath.Base(f), ".yml"), func(t *testing.T) {
			code, pos := readWant(t, f)
			codes[code]++
			l := LintFile(f, Options{})
			found := false
			for _, d := range l {
				if d.Code == code && d.Line == pos.Line && d.Col == pos.Col && d.Severity == diag.Error {
					found = true
				}
				if d.Line < 1 || d.Col < 1 || d.Code == "" || d.Message == "" || d.Fix == "" {
					t.Errorf("incomplete diagnostic: %+v", d)
				}
			}
			if !found {
				var got []string
				for _, d := range l {
					got = append(got, fmt.Sprintf("%s %d:%d %s", d.Code, d.Line, d.Col, d.Message))
				}
				t.Errorf("want error %s at %d:%d, got:\n  %s", code, pos.Line, pos.Col, strings.Join(got, "\n  "))
			}
		})
	}
	t.Logf("RESULT malformed-flows files=%d distinct-codes=%d", len(files), len(codes))
}

func readWant(t *testing.T, path string) (string, diag.Pos) {
	t.Helper()
	fh, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	sc := bufio.NewScanner(fh)
	sc.Scan()
	m := wantLine.FindStringSubmatch(sc.Text())
	if m == nil {
		t.Fatalf("%s: the first line must be `# want: CODE LINE:COL`, not %q", path, sc.Text())
	}
	var p diag.Pos
	fmt.Sscan(m[2], &p.Line)
	fmt.Sscan(m[3], &p.Col)
	return m[1], p
}
