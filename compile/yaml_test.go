package compile

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unsafe"

	"gopkg.in/yaml.v3"

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

// TestScalarSharesText: converter.str returns each scalar's value, whether
// it can share the file's text (plain, quoted without escapes) or must keep
// the parser's copy (escapes, block and folded scalars, tags and anchors
// before the value, other characters earlier on the line, CRLF, aliases
// and merges that go back in the file).
func TestScalarSharesText(t *testing.T) {
	docs := []string{
		"a: b\nc: \"d e\"\nf: 'g''h'\ni: \"j\\tk\"\n",
		"é: x\nkey: 'é and more'\n\"é\": \"y\"\n",
		"a: !!str 12\nb: &x val\nc: *x\nd: |\n  line one\n  line two\ne: >\n  folded\n  text\n",
		"base: &b {p: 1, q: two}\nnode:\n  <<: *b\n  r: three\nlist: [a, 'b', \"c\", {d: e}]\n",
		"a: b\r\nc: d\r\n",
		"x: \"multi\n  line\"\ny: plain\n  continued\nz: 1.5\n",
		"- - deep\n  - \"er\"\n- last\n",
	}
	for _, doc := range docs {
		var root yaml.Node
		if err := yaml.Unmarshal([]byte(doc), &root); err != nil {
			t.Fatalf("%q: %v", doc, err)
		}
		c := &converter{src: doc}
		var walk func(n *yaml.Node)
		walk = func(n *yaml.Node) {
			if n.Kind == yaml.ScalarNode {
				if got := c.str(n); got != n.Value {
					t.Errorf("%q: scalar at %d:%d is %q, want %q", doc, n.Line, n.Column, got, n.Value)
				}
			}
			for _, k := range n.Content {
				walk(k)
			}
		}
		walk(&root)
		// the same scalars again, going back to the start
		walk(&root)
	}
	// and the plain and quoted scalars do share the text
	doc := "key: plain\nq: \"quoted text\"\n"
	var root yaml.Node
	if err := yaml.Unmarshal([]byte(doc), &root); err != nil {
		t.Fatal(err)
	}
	c := &converter{src: doc}
	m := root.Content[0]
	for _, n := range m.Content {
		got := c.str(n)
		start := uintptr(unsafe.Pointer(unsafe.StringData(doc)))
		at := uintptr(unsafe.Pointer(unsafe.StringData(got)))
		if at < start || at >= start+uintptr(len(doc)) {
			t.Errorf("scalar %q is a copy, not part of the text", got)
		}
	}
}
