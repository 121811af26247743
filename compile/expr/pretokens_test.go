package expr

import "testing"

// TestNeedsTokens: every mistake precheck reports and every call
// rewriteCalls renames still gets its lexing pass; plain expressions skip
// it.
func TestNeedsTokens(t *testing.T) {
	for _, c := range []struct {
		text string
		want bool
	}{
		{"a == b && c != d", false},
		{"x <= 1 or y >= 2", false},
		{"len(string(nodes.a)) + 3", false},
		{"a = 1", true},
		{"a === b", true},
		{"a !== b", true},
		{"a <== b", true},
		{"&==", true}, // "&=" then "="
		{"a &= b", false},
		{"{{ vars.x }}", true},
		{"{1, 2}", true},
		{"vars.x | length", true},
		{"a || b", true},
		{"contains(a, 'x')", true},
		{"startsWith(a, 'x')", true},
		{"endsWith(a, 'x')", true},
		{"'a=b' == c", true}, // inside a string: lexed, harmlessly
	} {
		if got := needsTokens(c.text); got != c.want {
			t.Errorf("needsTokens(%q) = %v, want %v", c.text, got, c.want)
		}
	}
}

// FuzzLexOnce is the adversary who writes an expression the byte test
// lets through without its lexing pass: for such text, the tokens must
// hold nothing precheck would report and no call rewriteCalls would
// rename, so skipping the pass never changes a finding or a tree.
func FuzzLexOnce(f *testing.F) {
	for _, tc := range checkCases {
		f.Add(tc.src)
	}
	for _, s := range []string{"a == b", "a=b", "x ! = y", "'<'=1", "a /* = */ b", "a\u00a0contains b", "\"\\\"=\" == x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		if needsTokens(text) {
			return
		}
		s := &source{src: text, text: text, runes: runeOffsets(text, 0)}
		toks := lexAll(text)
		if s.precheck(toks) {
			t.Fatalf("needsTokens(%q) = false, but precheck reports %+v", text, s.issues)
		}
		if _, renamed := s.rewriteCalls(toks); renamed != nil {
			t.Fatalf("needsTokens(%q) = false, but rewriteCalls renames %v", text, renamed)
		}
	})
}
