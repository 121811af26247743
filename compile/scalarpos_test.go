package compile

import (
	"fmt"
	"strings"
	"testing"

	"github.com/agentlab/agentlab/diag"
)

// TestPosIn checks that an offset inside a scalar's value maps to the
// place in the file where those characters were written, for every style.
func TestPosIn(t *testing.T) {
	cases := []struct {
		name   string
		doc    string // the value of key `v`
		needle string // text to find in the decoded value
		want   string // line:col of needle in the file
	}{
		{"plain", "v: a {{ nodes.x }} b\n", "nodes", "1:9"},
		{"plain-unicode", "v: 中文 {{ nodes.x }}\n", "nodes", "1:10"},
		{"double", "v: \"a {{ nodes.x }}\"\n", "nodes", "1:10"},
		{"double-escape", "v: \"\\t\\u00e9 {{ nodes.x }}\"\n", "nodes", "1:17"},
		{"double-fold", "v: \"first\n  second {{ nodes.x }}\"\n", "nodes", "2:13"},
		{"double-continuation", "v: \"first\\\n  second nodes\"\n", "nodes", "2:10"},
		{"single", "v: 'it''s {{ nodes.x }}'\n", "nodes", "1:14"},
		{"literal", "v: |\n  line one\n  line {{ nodes.x }}\n", "nodes", "3:11"},
		{"literal-indented", "v: |\n  a\n    b nodes\n", "nodes", "3:7"},
		{"literal-blank", "v: |\n  a\n\n  b nodes\n", "nodes", "4:5"},
		{"folded", "v: >\n  one\n  two nodes\n", "nodes", "3:7"},
		{"folded-para", "v: >\n  one\n\n  two nodes\n", "nodes", "4:7"},
		{"plain-multiline", "v: one\n  two nodes\n", "nodes", "2:7"},
		{"nested", "a:\n  - b: {c: \"x nodes\"}\n", "nodes", "2:15"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var l diag.List
			root, src := load("f.yml", []byte(c.doc), &l)
			if root == nil {
				t.Fatalf("load: %v", l)
			}
			v := findScalar(root, c.needle)
			if v == nil {
				t.Fatalf("no scalar holds %q", c.needle)
			}
			p := src.posIn(v, strings.Index(v.Str, c.needle))
			if got := fmt.Sprintf("%d:%d", p.Line, p.Col); got != c.want {
				t.Errorf("posIn = %s, want %s (value %q)", got, c.want, v.Str)
			}
		})
	}
}

// findScalar returns the first scalar whose value contains s.
func findScalar(v *V, s string) *V {
	if v.Kind == vScalar {
		if strings.Contains(v.Str, s) {
			return v
		}
		return nil
	}
	for _, c := range append(append([]*V{}, v.Vals()...), v.Items()...) {
		if r := findScalar(c, s); r != nil {
			return r
		}
	}
	return nil
}
