package compile

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentlab/agentlab/diag"
)

// TestSyntaxErrorPosition checks that a YAML syntax error points at the
// offending line, not at the start of the enclosing block that yaml.v3
// names in its message.
func TestSyntaxErrorPosition(t *testing.T) {
	cases := []struct {
		name, src, want, fix string
	}{
		{"unclosed quote swallowing lines", "agentlab: 1\nname: t\nnodes:\n  - id: a\n    type: llm\n    prompt: \"Q {{ x }}\n  - id: out\n    type: output\n    fields: {answer: \"{{ x }}\"}\n", "6:13", "close the quote"},
		{"unclosed quote at end of file", "agentlab: 1\nname: t\nnodes:\n  - id: a\n    type: llm\n    prompt: 'Q # x\n", "6:13", "close the quote"},
		{"quote after a closed one", "agentlab: 1\nname: \"t\" # a \"comment\"\ndescription: \"a\" \"b\n", "3:18", ""},
		{"bad indent", "agentlab: 1\nname: t\nnodes:\n  - id: a\n    type: llm\n   prompt: x\n", "6:4", "fix the YAML syntax"},
		{"unclosed flow mapping", "agentlab: 1\nname: t\nnodes:\n  - id: a\n    retry: {max: 2\n  - id: b\n", "5:5", "fix the YAML syntax"},
		{"list item in a mapping", "agentlab: 1\nname: t\n- x\n", "3:1", "fix the YAML syntax"},
		{"error on the first line", "a: b: c\n", "1:1", "fix the YAML syntax"},
		{"crlf line breaks", "agentlab: 1\r\nname: t\r\nnodes:\r\n  - id: a\r\n   type: x\r\n", "5:4", "fix the YAML syntax"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			l := LintFile(writeTemp(t, "flow.yml", c.src), Options{})
			var got []string
			for _, d := range l {
				if d.Code != "E-YAML-SYNTAX" || d.Severity != diag.Error {
					continue
				}
				pos := fmt.Sprintf("%d:%d", d.Line, d.Col)
				if pos == c.want && strings.Contains(d.Fix, c.fix) {
					return
				}
				got = append(got, pos+" "+d.Message+" / "+d.Fix)
			}
			t.Errorf("want E-YAML-SYNTAX at %s (fix %q), got %v", c.want, c.fix, got)
		})
	}
}

// TestSyntaxErrorLargeFile checks that a file too large to re-parse gets
// the line yaml.v3 names, counted from one.
func TestSyntaxErrorLargeFile(t *testing.T) {
	var b strings.Builder
	b.WriteString("agentlab: 1\nname: t\ndescription: >\n")
	for b.Len() <= maxLocateSize {
		b.WriteString("  lorem ipsum dolor sit amet consectetur adipiscing elit\n")
	}
	last := strings.Count(b.String(), "\n") + 1
	b.WriteString("- x\n")
	l := LintFile(writeTemp(t, "big.yml", b.String()), Options{})
	for _, d := range l {
		if d.Code == "E-YAML-SYNTAX" && d.Line == last && d.Col == 1 {
			return
		}
	}
	t.Fatalf("want E-YAML-SYNTAX at %d:1, got %v", last, l)
}

func writeTemp(t *testing.T, name, src string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}
