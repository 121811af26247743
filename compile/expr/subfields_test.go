package expr

import "testing"

// TestSubfields checks the step after nodes.<id>.<field> when the scope
// knows that object's fields (a human node's form).
func TestSubfields(t *testing.T) {
	sc := Scope{
		Nodes:     map[string][]string{"gate": {"decision", "form"}, "other": {"form"}},
		Subfields: map[string]map[string][]string{"gate": {"form": {"ticket", "risk"}}},
		Vars:      map[string]bool{"k": true},
	}
	tests := []struct {
		src        string
		code       string // "" for clean
		off, end   int
		suggestion string
	}{
		{"nodes.gate.form.ticket == 'x'", "", 0, 0, ""},
		{"nodes.gate.form.tiket == 'x'", "E-EXPR-FIELD", 16, 21, `did you mean "ticket"?`},
		{"nodes.gate.form['tiket'] == 'x'", "E-EXPR-FIELD", 17, 22, `did you mean "ticket"?`}, // a constant key is a name
		{"nodes.gate.form[vars.k] == 'x'", "", 0, 0, ""},                                      // a computed one is not checked
		{"nodes.gate.form.risk.level == 'x'", "", 0, 0, ""},
		{"nodes.other.form.anything == 'x'", "", 0, 0, ""}, // fields unknown: any
		{"nodes.gate.decision.x == 'x'", "", 0, 0, ""},
	}
	for _, tc := range tests {
		var got []Issue
		for _, i := range Check(tc.src, Cond, sc) {
			if i.Code[0] == 'E' {
				got = append(got, i)
			}
		}
		switch {
		case tc.code == "" && len(got) > 0:
			t.Errorf("%s: unexpected %+v", tc.src, got)
		case tc.code != "" && (len(got) != 1 || got[0].Code != tc.code || got[0].Offset != tc.off || got[0].End != tc.end || got[0].Fix != tc.suggestion):
			t.Errorf("%s: got %+v, want %s at [%d,%d) with %q", tc.src, got, tc.code, tc.off, tc.end, tc.suggestion)
		}
	}
}
