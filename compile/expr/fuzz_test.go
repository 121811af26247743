package expr

import (
	"strings"
	"testing"
)

var fuzzScope = Scope{
	Inputs:  map[string]bool{"week": true, "a": true},
	Nodes:   map[string][]string{"pull": nil, "draft": {"text"}},
	Vars:    map[string]bool{"gate": true, "items": true, "m": true},
	Metrics: map[string]bool{"gmv": true},
	InLoop:  true,
}

// FuzzCheck checks that no input makes lint, compile or evaluation panic,
// that every issue lies inside the string, and that lint and compile
// agree: Check without errors implies Compile succeeds, and a Compile
// error is always a Check error.
func FuzzCheck(f *testing.F) {
	for _, tc := range checkCases {
		f.Add(tc.src, uint8(tc.ctx))
	}
	f.Fuzz(func(t *testing.T, src string, c uint8) {
		ctx := Context(c % 4)
		issues := Check(src, ctx, fuzzScope)
		for _, is := range issues {
			if is.Offset < 0 || is.End < is.Offset || is.End > len(src) || is.Code == "" || is.Message == "" {
				t.Fatalf("Check(%q): bad issue %+v", src, is)
			}
		}
		p, err := Compile(src, ctx)
		if hasError(issues) {
			return
		}
		if err != nil {
			t.Fatalf("Check(%q) found no error but Compile failed: %v", src, err)
		}
		env := testEnv()
		env["item"], env["index"] = map[string]any{"name": "x"}, 1
		for _, run := range []func() error{
			func() error { _, err := p.Eval(env); return err },
			func() error { _, err := p.EvalBool(env); return err },
			func() error { _, err := p.EvalMetric(env, map[string]float64{"gmv": 2}, func(Cell) {}); return err },
		} {
			if err := run(); err != nil && strings.Contains(err.Error(), "internal evaluation fault") {
				t.Fatalf("Eval(%q): %v", src, err)
			}
		}
	})
}

// TestCompileImpliesCheckError is the converse half of the agreement,
// over the table cases: a Compile error is always an error of Check.
func TestCompileImpliesCheckError(t *testing.T) {
	for _, tc := range checkCases {
		if _, err := Compile(tc.src, tc.ctx); err != nil && !hasError(Check(tc.src, tc.ctx, fuzzScope)) {
			t.Errorf("Compile(%q) fails (%v) but Check reports no error", tc.src, err)
		}
	}
}
