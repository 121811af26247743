package compile

import "testing"

func TestSuggest(t *testing.T) {
	cases := []struct {
		in   string
		cand []string
		want string
	}{
		{"agnet", nodeTypes, "agent"},
		{"promt", []string{"prompt", "model", "system"}, "prompt"},
		{"llm", nodeTypes, "llm"},
		{"xyz", nodeTypes, ""},
		{"trasnform", nodeTypes, "transform"},
		{"Output", nodeTypes, "output"},
		{"a", []string{"b", "c"}, ""},
		{"A", []string{"a", "c"}, "a"},
	}
	for _, c := range cases {
		if got := suggest(c.in, c.cand); got != c.want {
			t.Errorf("suggest(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	if d := levenshtein("kitten", "sitting"); d != 3 {
		t.Errorf("levenshtein = %d", d)
	}
	if d := levenshtein("ab", "ba"); d != 1 {
		t.Errorf("transposition = %d", d)
	}
}
