package compile

import (
	"strings"
	"testing"
)

// TestRetrieveAlphaWarning: a flow carried over from when alpha weighted
// keywords is told the value to write; 0.5 (the same mix either way) and
// no alpha at all are not warned about; the plan carries the scoring mark.
func TestRetrieveAlphaWarning(t *testing.T) {
	tests := []struct {
		alpha string // the line, "" for none
		fix   string // "" for no warning
	}{
		{"    alpha: 0.7\n", "write `alpha: 0.3`"},
		{"    alpha: 0\n", "write `alpha: 1`"},
		{"    alpha: 1\n", "write `alpha: 0`"},
		{"    alpha: 0.5\n", ""},
		{"", ""},
	}
	for _, tt := range tests {
		p := writeCase(t, codeCase{
			flow:  hdr + "  - id: r\n    type: retrieve\n    from: kb\n    query: refund\n" + tt.alpha,
			files: map[string]string{"kb/a.md": "refunds"},
		})
		var got []string
		for _, d := range LintFile(p, Options{}) {
			if d.Code == CodeRetrieveAlpha {
				got = append(got, d.Fix)
			}
		}
		switch {
		case tt.fix == "" && len(got) != 0:
			t.Errorf("%q: unexpected warning %v", tt.alpha, got)
		case tt.fix != "" && (len(got) != 1 || !strings.Contains(got[0], tt.fix)):
			t.Errorf("%q: fixes %v, want one saying %q", tt.alpha, got, tt.fix)
		}
		pl, _ := CompileFile(p, Options{})
		if pl == nil {
			t.Fatalf("%q does not compile", tt.alpha)
		}
		if n, _ := pl.Graph().NodeByID("r"); n.Str("scoring") == "" {
			t.Errorf("%q: the plan has no scoring mark: %v", tt.alpha, n.Spec)
		}
	}
}
