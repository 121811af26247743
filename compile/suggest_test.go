package compile

import "testing"

// TestDidYouMean pins the wording compile messages build on; the
// matching itself is tested in package diag.
func TestDidYouMean(t *testing.T) {
	cases := []struct {
		in   string
		cand []string
		want string
	}{
		{"agnet", nodeTypes, `did you mean "agent"? `},
		{"promt", []string{"prompt", "model", "system"}, `did you mean "prompt"? `},
		{"xyz", nodeTypes, ""},
		{"trasnform", nodeTypes, `did you mean "transform"? `},
		{"Output", nodeTypes, `did you mean "output"? `},
		{"a", []string{"b", "c"}, ""},
		{"A", []string{"a", "c"}, `did you mean "a"? `},
	}
	for _, c := range cases {
		if got := didYouMean(c.in, c.cand); got != c.want {
			t.Errorf("didYouMean(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// TestDidYouMeanNode plays an author who mistypes a short node id: "ot"
// for "out" is suggested, an id two edits away or with two near ids is not.
func TestDidYouMeanNode(t *testing.T) {
	cases := []struct {
		id   string
		ids  []string
		want string
	}{
		{"ot", []string{"answer", "out"}, `did you mean "out"? `},
		{"ou", []string{"answer", "out"}, `did you mean "out"? `},
		{"x", []string{"answer", "out"}, ""},
		{"ot", []string{"out", "of"}, ""},
		{"anwser", []string{"answer", "out"}, `did you mean "answer"? `},
	}
	for _, c := range cases {
		if got := didYouMeanNode(c.id, c.ids); got != c.want {
			t.Errorf("didYouMeanNode(%q, %v) = %q, want %q", c.id, c.ids, got, c.want)
		}
	}
}
